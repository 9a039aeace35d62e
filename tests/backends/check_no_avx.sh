#!/bin/sh
# check_no_avx.sh BUILD_DIR KERNEL_LIB... [--avx512 AVX512_LIB...]: no
# object file of the build holds an instruction beyond the x86 baseline
# that the CPU kernel flags enable (AVX, AVX2, FMA, F16C, AVX-512: VEX/EVEX
# encodings, ymm/zmm/mask registers; BMI too, as -march-style flags would
# bring it), except the objects of the KERNEL_LIBs (the avx2 and avx512
# kernel sets), which only run after the dispatch checked the CPU. And no
# AVX-512 instruction (EVEX encoded: a 0x62 prefix byte, zmm or mask
# registers) sits outside the AVX512_LIBs (which must be among the
# KERNEL_LIBs): the avx2 set runs on CPUs without AVX-512. So a CPU without
# AVX never meets one outside the kernel sets, nor one without AVX-512 an
# AVX-512 instruction outside the avx512 set. Each kind of library must
# hold some of its instructions (else the check could be blind). Exit 77
# (skip) without objdump, or when objdump sees no instructions in the
# kernel libraries (LTO bytecode objects).
set -u
build=$1
shift

command -v objdump >/dev/null 2>&1 || { echo "objdump not found: skipped"; exit 77; }

kernel_libs=""
avx512_libs=""
into=kernel
for arg in "$@"; do
  if [ "$arg" = "--avx512" ]; then into=avx512; continue; fi
  if [ $into = kernel ]; then kernel_libs="$kernel_libs $arg"; else avx512_libs="$avx512_libs $arg"; fi
done
[ -n "$kernel_libs" ] || { echo "FAIL: no kernel library given"; exit 1; }

# The build's current objects, as ninja knows them (files left over from
# older builds would give false alarms); every .o under the build directory
# when ninja cannot say.
objects=$(ninja -C "$build" -t targets all 2>/dev/null | sed -n 's/^\(.*\.o\): .*/\1/p')
if [ -z "$objects" ]; then
  objects=$(cd "$build" && find . -name '*.o' | sed 's|^\./||')
fi

# Prints "instructions avx_count avx512_count first_avx|first_avx512" for
# one object. objdump prints "addr:<TAB>bytes<TAB>instruction"; a long
# instruction's remaining bytes follow on a line without an instruction.
scan() {
  objdump -d "$1" 2>/dev/null | awk -F '\t' '
    /^[0-9a-f]+ <.*>:$/ { split($0, h, " "); fn = h[2] }
    /^ *[0-9a-f]+:\t/ && NF >= 3 {
      n++
      ins = $3
      split(ins, w, " ")
      op = w[1]
      # The first byte after the legacy prefixes: 0x62 in 64-bit mode is
      # the EVEX prefix (AVX-512 only).
      nb = split($2, b, " ")
      i = 1
      while (i < nb && b[i] ~ /^(26|2e|36|3e|64|65|66|67|f0|f2|f3)$/) i++
      evex = (b[i] == "62") || ins ~ /%zmm[0-9]/ || ins ~ /%k[0-7]/ ||
             ins ~ /%[xy]mm(1[6-9]|2[0-9]|3[01])/
      if (evex) {
        if (!bad512) first512 = fn " " ins
        bad512++
      }
      if (evex || ins ~ /%ymm[0-9]/ ||
          (op ~ /^v/ && ins ~ /%xmm[0-9]/) ||
          op ~ /^(vzeroupper|vzeroall|vldmxcsr|vstmxcsr)$/ ||
          op ~ /^(andn|bextr|blsi|blsmsk|blsr|bzhi|mulx|pdep|pext|rorx|sarx|shlx|shrx)$/) {
        if (!bad) first = fn " " ins
        bad++
      }
    }
    END { printf "%d %d %d %s|%s\n", n + 0, bad + 0, bad512 + 0, first, first512 }'
}

# True if object $1 (relative to the build) belongs to one of the
# libraries $2... (paths, absolute or relative to the build): meson puts a
# library's objects in "<library>.p/".
in_libs() {
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
avx512_seen=0
for obj in $objects; do
  [ -f "$build/$obj" ] || continue
  line=$(scan "$build/$obj")
  n=${line%% *}; rest=${line#* }
  bad=${rest%% *}; rest=${rest#* }
  bad512=${rest%% *}; rest=${rest#* }
  first=${rest%%|*}; first512=${rest#*|}
  # shellcheck disable=SC2086 # word splitting of the library lists is meant
  if [ -n "$avx512_libs" ] && in_libs "$obj" $avx512_libs; then
    kernel_ins=$((kernel_ins + n))
    kernel_avx=$((kernel_avx + bad))
    avx512_seen=$((avx512_seen + bad512))
    continue
  fi
  # shellcheck disable=SC2086
  if in_libs "$obj" $kernel_libs; then
    kernel_ins=$((kernel_ins + n))
    kernel_avx=$((kernel_avx + bad))
    if [ "$bad512" -gt 0 ]; then
      echo "FAIL $obj: $bad512 AVX-512 instructions outside the avx512 kernel library, first: $first512"
      failed=$((failed + 1))
    fi
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
if [ -n "$avx512_libs" ] && [ "$avx512_seen" -eq 0 ]; then
  echo "FAIL: no AVX-512 instruction in the avx512 library: built without its flags, or is this check blind?"
  exit 1
fi
if [ "$checked" -lt 10 ]; then
  echo "FAIL: only $checked objects found under $build"
  exit 1
fi
echo "$checked objects without AVX-class instructions; $kernel_avx in the kernel libraries," \
  "$avx512_seen of them AVX-512 (avx512 library only)"
[ "$failed" -eq 0 ]
