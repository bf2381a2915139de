#!/bin/sh
# Times this checkout against another revision (default: main's first parent... any rev given)
# in the same run: builds REV's library in a scratch worktree, then alternates
# bench/compare.lua between the two trees ROUNDS times, so that load on the machine
# falls on both alike. Prints each round and the best of each tree.
# Usage: scripts/bench-compare.sh REV [ROUNDS]; THREADS=2 in the environment times two threads,
# DTYPE=float64 double.
set -eu
rev=${1:?usage: scripts/bench-compare.sh REV [ROUNDS]}
rounds=${2:-5}
here=$(pwd)
base=build/bench-base
rm -rf "$base"; git worktree prune
git worktree add --detach -q "$base" "$rev"
trap 'git worktree remove --force "$base"' EXIT
make -s -C "$base" build/libfused.so lua/fused/cdef.lua >/dev/null
make -s build/libfused.so lua/fused/cdef.lua >/dev/null
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "base: $rev ($(git rev-parse --short "$rev")); head: $(git rev-parse --short HEAD)$(git diff --quiet || echo ' + uncommitted')"
# FUSED_NO_CUDA: REV's tree has no libfused_cuda.so; loading CUDA's libraries into one side only
# made it 2-4% slower (default path, float64).
run() { # tree
  (cd "$1" && LUA_PATH="lua/?.lua;lua/?/init.lua;$here/?.lua;;" FUSED_LIB="$1/build/libfused.so" FUSED_NO_CUDA=1 \
     luajit "$here/bench/compare.lua")
}
for i in $(seq "$rounds"); do
  echo "base $(run "$here/$base")"
  echo "head $(run "$here")"
done | tee build/bench-compare.out
# Best (min) of each column per tree, and head / base.
awk '{ for (i = 2; i < NF; i += 2) { k = $i; v = $(i + 1);
         if (!(($1, k) in best) || v < best[$1, k]) best[$1, k] = v; keys[k] = 1 } }
     END { printf "%-22s %10s %10s %8s\n", "min us", "base", "head", "head/base";
           for (k in keys) printf "%-22s %10.1f %10.1f %8.3f\n", k, best["base", k], best["head", k],
                                  best["head", k] / best["base", k] }' build/bench-compare.out
