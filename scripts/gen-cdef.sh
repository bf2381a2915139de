#!/bin/sh
# Prints a cdef module (lua/fused/cdef.lua from c/fused.h, lua/fused/cuda_cdef.lua from
# cuda/fused_cuda.h): the declarations between the header's ffi markers. The fields of
# fused_tensor become const, so that Lua reads them and cannot write them (C trusts them).
set -e
echo "-- Generated from $1 by scripts/gen-cdef.sh; edit the header, then run make."
echo "return [["
sed -n '/\/\* ffi-begin \*\//,/\/\* ffi-end \*\//p' "$1" | sed '1d;$d' | sed \
  -e '/^typedef struct fused_tensor {$/,/^} fused_tensor;$/{' \
  -e 's/^\(  [a-z_]* \*\)\([a-z_]*;\)/\1const \2/' -e t \
  -e 's/^  \([a-z_0-9]* [a-z_]*[[;]\)/  const \1/' -e '}'
echo "]]"
