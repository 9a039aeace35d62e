#!/bin/sh
# run_on_old_cpu.sh TEST_BACKENDS TEST_CPU_KERNELS: the CPU backends on
# CPUs older than this one, emulated by qemu-user:
#   - an Intel Nehalem (SSE4.2, no AVX/AVX2/FMA/F16C/AVX-512): the kernel
#     choice must fall back to portable and refuse a forced avx2 or avx512
#     with a message (test_cpu_kernels), and every backend must still match
#     the reference (test_backends' parity tests). Any instruction the
#     Nehalem lacks would end the run with SIGILL.
#   - an Intel Haswell (AVX2, FMA, F16C, no AVX-512): the choice must be
#     avx2, never avx512, and the avx2 kernels must match the reference
#     under emulation too.
# The heavy double-precision attention test is left to the native runs:
# emulated it takes ~10 s. Exit 77 (skip) without qemu-x86_64 (Debian:
# qemu-user).
set -u
backends=$1
kernels=$2

qemu=$(command -v qemu-x86_64) || { echo "qemu-x86_64 not found (qemu-user): skipped"; exit 77; }

# Whatever the caller forces would defeat the point: the CPU picks. That
# holds for OpenBLAS too: OPENBLAS_CORETYPE=Haswell (set on some hosts)
# makes it run AVX2 code on the emulated Nehalem.
unset CFORMER_CPU_KERNELS OPENBLAS_CORETYPE ONEDNN_MAX_CPU_ISA

status=0

# run_cpu MODEL EXPECTED_SET FORBIDDEN_SET...
run_cpu() {
  model=$1
  want=$2
  shift 2
  echo "== emulated $model"
  # qemu warns about host-only features of the model it leaves out (TSX,
  # INVPCID): noise, not failures.
  out=$("$qemu" -cpu "$model" "$kernels" 2>&1) || { echo "FAIL: test_cpu_kernels on $model"; status=1; }
  echo "$out" | grep -v "TCG doesn't support requested feature"
  out=$("$qemu" -cpu "$model" "$backends" test_cpu_kernel_set_in_use \
    test_every_backend_matches_ref test_every_backend_rowops_match_ref 2>&1) || status=1
  echo "$out" | grep -v "TCG doesn't support requested feature"
  case "$out" in
    *"runs the $want kernels"*) ;;
    *) echo "FAIL: no CPU backend reported the $want kernels on $model"; status=1 ;;
  esac
  for bad in "$@"; do
    case "$out" in
      *"runs the $bad kernels"*) echo "FAIL: $bad kernels chosen on $model"; status=1 ;;
    esac
  done
}

run_cpu Nehalem portable avx2 avx512
# oneDNN's own AVX2 JIT code for tanh comes out wrong under qemu 7.2's AVX2
# emulation (the same code is right on real AVX2 hardware, and with our
# portable kernels forced it still fails), so oneDNN is held to SSE4.1
# here; our avx2 kernels, the subject, run as chosen.
export ONEDNN_MAX_CPU_ISA=SSE41
run_cpu Haswell avx2 avx512
exit $status
