#!/bin/sh
# Packs what the GPU machine lacks into build-gpu-kit/kit.tar.xz (about 7 MB), for
# scripts/gpu-check.sh: that machine has nvcc, gcc and PyTorch but no LuaJIT, busted or
# OpenBLAS, and can fetch nothing. Run it here, on Debian 12 with `make deps` done; then
# carry build-gpu-kit in the device call (build-*/ is ignored by git, so it travels only if carried).
set -e
cd "$(dirname "$0")/.."
kit=$(mktemp -d)
trap 'rm -rf "$kit"' EXIT
mkdir -p "$kit/bin" "$kit/lib" "$kit/include" "$kit/lua" "$kit/clua"

cp "$(readlink -f "$(command -v luajit)")" "$kit/bin/luajit"
cp /usr/bin/busted "$kit/bin/busted"
# busted and the modules it loads (found by listing package.loaded after a run).
for m in busted busted.lua cliargs cliargs.lua luassert say pl mediator.lua term system dkjson.lua; do
  cp -rL "/usr/share/lua/5.1/$m" "$kit/lua/"
done
for m in lfs.so term system; do cp -rL "/usr/lib/x86_64-linux-gnu/lua/5.1/$m" "$kit/clua/"; done

# OpenBLAS (the library and its Fortran runtime) and the headers libfused compiles against.
cp "$(readlink -f /usr/lib/x86_64-linux-gnu/libopenblas.so.0)" "$kit/lib/libopenblas.so.0"
ln -s libopenblas.so.0 "$kit/lib/libopenblas.so"
cp "$(readlink -f /lib/x86_64-linux-gnu/libgfortran.so.5)" "$kit/lib/libgfortran.so.5"
cp "$(readlink -f /lib/x86_64-linux-gnu/libquadmath.so.0)" "$kit/lib/libquadmath.so.0"
cp /usr/include/x86_64-linux-gnu/openblas-pthread/cblas.h \
   /usr/include/x86_64-linux-gnu/openblas-pthread/openblas_config.h "$kit/include/"

mkdir -p build-gpu-kit
tar -C "$kit" -cJf build-gpu-kit/kit.tar.xz .
ls -l build-gpu-kit/kit.tar.xz
