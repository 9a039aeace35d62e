#!/bin/sh
# check_no_avx.sh BUILD_DIR KERNEL_LIB...: no object file of the build holds
# an instruction beyond the x86 baseline that the CPU kernel flags enable
# (AVX, AVX2, FMA, F16C, AVX-512: VEX/EVEX encodings, ymm/zmm/mask
# registers; BMI too, as -march-style flags would bring it), except the
# objects of the KERNEL_LIBs (the avx2 kernel set), which only run after
# the dispatch checked the CPU. So a CPU without AVX never meets one
# outside them. The kernel libraries must hold some (else the check below
# could be blind). Exit 77 (skip) without objdump, or when objdump sees
# no instructions in the kernel libraries (LTO bytecode objects).
set -u
build=$1
shift

command -v objdump >/dev/null 2>&1 || { echo "objdump not found: skipped"; exit 77; }

# The build's current objects, as ninja knows them (files left over from
# older builds would give false alarms); every .o under the build directory
# when ninja cannot say.
objects=$(ninja -C "$build" -t targets all 2>/dev/null | sed -n 's/^\(.*\.o\): .*/\1/p')
if [ -z "$objects" ]; then
  objects=$(cd "$build" && find . -name '*.o' | sed 's|^\./||')
fi

# Prints "instructions avx_count first_avx_line" for one object.
scan() {
  objdump -d --no-show-raw-insn "$1" 2>/dev/null | awk '
    /^[0-9a-f]+ <.*>:$/ { fn = $2 }
    /^ *[0-9a-f]+:\t/ {
      n++
      split($0, parts, "\t")
      ins = parts[2]
      split(ins, w, " ")
      op = w[1]
      if (ins ~ /%[yz]mm[0-9]/ || ins ~ /%k[0-7]/ ||
          (op ~ /^v/ && ins ~ /%xmm[0-9]/) ||
          op ~ /^(vzeroupper|vzeroall|vldmxcsr|vstmxcsr)$/ ||
          op ~ /^(andn|bextr|blsi|blsmsk|blsr|bzhi|mulx|pdep|pext|rorx|sarx|shlx|shrx)$/) {
        if (!bad) first = fn " " ins
        bad++
      }
    }
    END { printf "%d %d %s\n", n + 0, bad + 0, first }'
}

[ $# -gt 0 ] || { echo "FAIL: no kernel library given"; exit 1; }

# True if object $1 (relative to the build) belongs to a kernel library
# (its path, absolute or relative to the build): meson puts a library's
# objects in "<library>.p/".
is_kernel_object() {
  path=$build/$1
  shift
  for lib in "$@"; do
    case "$lib" in /*) ;; *) lib=$build/$lib ;; esac
    case "$path" in "$lib".p/*) return 0 ;; esac
  done
  return 1
}

checked=0
failed=0
kernel_ins=0
kernel_avx=0
for obj in $objects; do
  [ -f "$build/$obj" ] || continue
  read -r n bad first <<EOF2
$(scan "$build/$obj")
EOF2
  if is_kernel_object "$obj" "$@"; then
    kernel_ins=$((kernel_ins + n))
    kernel_avx=$((kernel_avx + bad))
    continue
  fi
  checked=$((checked + 1))
  if [ "$bad" -gt 0 ]; then
    echo "FAIL $obj: $bad AVX-class instructions outside the kernel libraries, first: $first"
    failed=$((failed + 1))
  fi
done

if [ "$kernel_ins" -eq 0 ]; then
  echo "objdump shows no instructions in the kernel libraries (LTO objects?): skipped"
  exit 77
fi
if [ "$kernel_avx" -eq 0 ]; then
  echo "FAIL: no AVX instruction in the kernel libraries: built without their flags, or is this check blind?"
  exit 1
fi
if [ "$checked" -lt 10 ]; then
  echo "FAIL: only $checked objects found under $build"
  exit 1
fi
echo "$checked objects without AVX-class instructions; $kernel_avx in the kernel libraries"
[ "$failed" -eq 0 ]
