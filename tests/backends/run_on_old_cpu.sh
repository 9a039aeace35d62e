#!/bin/sh
# run_on_old_cpu.sh TEST_BACKENDS TEST_CPU_KERNELS: the CPU backends on a
# CPU without AVX, emulated by qemu-user as an Intel Nehalem (SSE4.2, no
# AVX/AVX2/FMA/F16C): the kernel choice must fall back to portable and
# refuse a forced avx2 with a message (test_cpu_kernels), and every backend
# must still match the reference (test_backends' parity tests). Any
# instruction the Nehalem lacks would end the run with SIGILL. The heavy
# double-precision attention test is left to the native runs: emulated it
# takes ~10 s. Exit 77 (skip) without qemu-x86_64 (Debian: qemu-user).
set -u
backends=$1
kernels=$2

qemu=$(command -v qemu-x86_64) || { echo "qemu-x86_64 not found (qemu-user): skipped"; exit 77; }

# Whatever the caller forces would defeat the point: the CPU picks. That
# holds for OpenBLAS too: OPENBLAS_CORETYPE=Haswell (set on some hosts)
# makes it run AVX2 code on the emulated Nehalem.
unset CFORMER_CPU_KERNELS OPENBLAS_CORETYPE

status=0
"$qemu" -cpu Nehalem "$kernels" || status=1
out=$("$qemu" -cpu Nehalem "$backends" test_cpu_kernel_set_in_use \
  test_every_backend_matches_ref test_every_backend_rowops_match_ref 2>&1) || status=1
echo "$out"
case "$out" in
  *"runs the portable kernels"*) ;;
  *) echo "FAIL: no CPU backend reported the portable kernels"; status=1 ;;
esac
case "$out" in
  *"runs the avx2 kernels"*) echo "FAIL: avx2 kernels chosen on a CPU without AVX2"; status=1 ;;
esac
exit $status
