#!/bin/bash
# The checks that need an NVIDIA GPU, for a session whose task has one (docs/cuda.md says what
# they verify). From the repository root, on the device machine:
#
#   scripts/gpu-check.sh [build] [specs] [sanitizer] [bench]   (no stage named: all four)
#
# Logs go to $OUT (else /tmp/gpu-check-out): build.log, specs.log, sanitizer.log, bench.log and
# summary.txt, one line per step. Exits 1 if a step failed.
#
# That machine has nvcc, gcc and PyTorch but no LuaJIT, busted or OpenBLAS, and fetches
# nothing: run scripts/gpu-kit.sh here first and carry build-gpu-kit. The PyTorch side needs
# ../shared/bench copied to bench-shared/ (with its ext/ folder) and carried too. All four stages can
# outrun one 10-minute call: `build specs sanitizer` in one call and `bench` in the next (the
# warm machine keeps build-gpu; do not carry build-gpu-kit twice into a build you keep).
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gpu-check-out}
mkdir -p "$OUT"
stages=${*:-build specs sanitizer bench}
BUILD=build-gpu

if [ -f build-gpu-kit/kit.tar.xz ]; then
  kit=/tmp/fused-gpu-kit
  rm -rf "$kit" && mkdir -p "$kit" && tar -C "$kit" -xJf build-gpu-kit/kit.tar.xz
  export PATH="$kit/bin:$PATH" LD_LIBRARY_PATH="$kit/lib:${LD_LIBRARY_PATH:-}"
  export CPATH="$kit/include:${CPATH:-}" LIBRARY_PATH="$kit/lib:${LIBRARY_PATH:-}"
  export LUA_PATH="lua/?.lua;lua/?/init.lua;$kit/lua/?.lua;$kit/lua/?/init.lua;;"
  export LUA_CPATH="$kit/clua/?.so;;"
  BUSTED=$kit/bin/busted
else
  export LUA_PATH='lua/?.lua;lua/?/init.lua;;'
  BUSTED=$(command -v busted || echo /usr/bin/busted)
fi
CUDA_HOME=${CUDA_HOME:-$(dirname "$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")}
export PATH="$PATH:$CUDA_HOME/bin" LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$CUDA_HOME/lib64"
export FUSED_LIB=$PWD/$BUILD/libfused.so FUSED_CUDA_LIB=$PWD/$BUILD/libfused_cuda.so
export PYTHONUNBUFFERED=1
CUDA_SPECS="spec/cuda_spec.lua spec/cuda_lltm_spec.lua spec/cuda_graph_spec.lua"
failed=0

# step NAME LOG COMMAND...: runs COMMAND, appending its output to $OUT/LOG, and notes the result.
step() {
  local name=$1 log=$2 start=$SECONDS rc
  shift 2
  echo "=== $name: $*" >>"$OUT/$log"
  "$@" >>"$OUT/$log" 2>&1
  rc=$?
  [ $rc = 0 ] || failed=1
  printf '%-44s %s (%d s), %s\n' "$name" "$([ $rc = 0 ] && echo ok || echo "FAILED, exit $rc")" \
    $((SECONDS - start)) "$log" | tee -a "$OUT/summary.txt"
}

busted() { luajit "$BUSTED" "$@"; }

# The device must answer: without it the CUDA specs are pending and busted still passes.
device_answers() {
  luajit -e "local f = require 'fused'; print(f.cuda.why()); os.exit(f.cuda.is_available() and 0 or 1)"
}

for stage in $stages; do
  case $stage in
    build)
      step 'the GPU and toolkit' build.log sh -c 'nvidia-smi; nvcc --version; gcc --version | head -1'
      step 'make (libfused + libfused_cuda)' build.log make BUILD=$BUILD -j"$(nproc)" all
      step 'a CUDA device answers' build.log device_answers
      ;;
    specs)
      step 'CUDA specs' specs.log busted $CUDA_SPECS
      step 'CUDA specs, FUSED_CUDA_SYNC=1' specs.log env FUSED_CUDA_SYNC=1 luajit "$BUSTED" $CUDA_SPECS
      step 'every spec, the CUDA library loaded' specs.log busted spec
      ;;
    sanitizer)
      # The #oom spec fails a cudaMalloc on purpose, which the sanitizer counts as an error.
      for tool in memcheck racecheck synccheck; do
        step "compute-sanitizer $tool, CUDA specs" sanitizer.log \
          compute-sanitizer --tool $tool --error-exitcode 1 \
          luajit "$BUSTED" --exclude-tags=oom $CUDA_SPECS
      done
      ;;
    bench)
      step 'bench: fused and composed LLTM on the GPU' bench.log luajit bench/lltm_cell_cuda.lua
      if [ -f bench-shared/pytorch_lltm.py ]; then
        step 'bench: PyTorch LLTM, tutorial protocol' bench.log python3 bench-shared/pytorch_lltm.py --device cuda
      else
        echo 'bench-shared/pytorch_lltm.py is missing: copy ../shared/bench to bench-shared/ and carry it' |
          tee -a "$OUT/summary.txt"
        failed=1
      fi
      ;;
    *)
      echo "gpu-check: unknown stage '$stage' (build, specs, sanitizer, bench)" >&2
      exit 2
      ;;
  esac
done
exit $failed
