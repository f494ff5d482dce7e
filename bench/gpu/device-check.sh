#!/bin/sh
# The device check of the GPU work as one command, on a machine with a CUDA device, after
# `node bench/gpu/pack-device.mjs` here (carry build-device and dist): the GPU tests (every
# kernel, dense and through resident-mask refs, against the CPU), then the GPU benchmark
# (bench/gpu/kernels.bench.ts: mask kernels and the candidate "apply-waves" kernel, launch
# latency, fused argmax and sampling, resident masks along real outputs). Logs and the JSON
# report go to $OUT (default bench/results). `--quick` passes on to the benchmark.
set -u
OUT=${OUT:-bench/results}
mkdir -p "$OUT"
if [ ! -f build-device/Release/tagmask.node ] || [ ! -d build-device/node_modules ] || [ ! -d dist/bench ]; then
  echo "bench/gpu/device-check.sh: build-device/ or dist/ is missing; run node bench/gpu/pack-device.mjs first" >&2
  exit 2
fi
[ -e node_modules ] || ln -s build-device/node_modules node_modules
export TAGMASK_ADDON="$PWD/build-device/Release/tagmask.node"
(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 || true) | tee "$OUT/device.txt"
node -e 'const t=require(process.env.TAGMASK_ADDON); console.log(JSON.stringify(t.runtime()))' 2>&1 | tee -a "$OUT/device.txt"
# Exit codes through files: a pipe into tee would report tee's (dash has no pipefail).
{ node build-device/node_modules/vitest/vitest.mjs run test/cuda test/mask/mask-refs.test.ts; echo $? > "$OUT/tests.rc"; } 2>&1 | tee "$OUT/gpu-tests.log"
{ node dist/bench/gpu/kernels.bench.js "$@"; echo $? > "$OUT/bench.rc"; } 2>&1 | tee "$OUT/gpu-bench.log"
tests=$(cat "$OUT/tests.rc")
bench=$(cat "$OUT/bench.rc")
[ -f bench/results/gpu-kernels.json ] && [ "$OUT" != bench/results ] && cp bench/results/gpu-kernels.json "$OUT/"
echo "tests exit $tests, benchmark exit $bench"
[ "$tests" -eq 0 ] && [ "$bench" -eq 0 ]
