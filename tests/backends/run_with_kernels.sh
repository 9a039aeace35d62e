#!/bin/sh
# run_with_kernels.sh SET TEST_BACKENDS: the backend tests with every CPU
# backend forced onto kernel set SET (CFORMER_CPU_KERNELS=SET), so each set
# is compared with the reference backend whatever this CPU would pick.
# Exit 77 (skip) when this CPU or build cannot run SET: the backends then
# refuse to be created (backends/cpu/cf_cpu_dispatch.c), which
# backends/cpu-kernels checks.
set -u
set_name=$1
backends=$2
export CFORMER_CPU_KERNELS="$set_name"

out=$("$backends" test_cpu_kernel_set_in_use 2>&1)
status=$?
if [ $status -ne 0 ]; then
  case "$out" in
    *"this CPU lacks"*|*"not built for this target"*)
      echo "$out" | grep -m1 "CFORMER_CPU_KERNELS"
      echo "the $set_name kernels cannot run here: skipped"
      exit 77 ;;
  esac
  echo "$out"
  exit $status
fi
exec "$backends"
