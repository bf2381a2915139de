#!/bin/sh
# Installs what building and testing fused needs on Debian 12, by package name; where it
# cannot (not root, no apt), prints the command to run.
set -e
# libreadline8: bin/fused's line editing; tmux: spec/repl_terminal_spec.lua types into bin/fused.
PACKAGES="build-essential luajit libluajit-5.1-dev luarocks lua-busted libopenblas-dev libreadline8 tmux"
# Distributed training: Open MPI (libfused_mpi.so, the MPI specs); make finds it with pkg-config.
PACKAGES="$PACKAGES openmpi-bin libopenmpi-dev pkg-config"
# libopenblas0-openmp: the OpenBLAS build that shares OpenMP's thread pool (the Makefile links it).
PACKAGES="$PACKAGES libopenblas0-openmp"
# libdnnl-dev: oneDNN, the bfloat16 products of compute = 'bfloat16' on AVX512_BF16 CPUs.
PACKAGES="$PACKAGES libdnnl-dev"
missing=""
for p in $PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
cmd="apt-get update && apt-get install -y$missing"
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
  echo "fused needs:$missing. Run as root: $cmd" >&2
  exit 1
fi
echo "installing:$missing" >&2
# Another apt may hold the dpkg lock for a while: wait for it rather than fail.
for try in 1 2 3 4 5 6 7 8 9 10; do
  if apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing; then
    exit 0
  fi
  echo "apt-get failed (try $try), retrying in 15 s" >&2
  sleep 15
done
echo "could not install:$missing. Run: $cmd" >&2
exit 1
