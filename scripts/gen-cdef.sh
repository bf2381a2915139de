#!/bin/sh
# Prints a cdef module (lua/fused/cdef.lua from c/fused.h, lua/fused/cuda_cdef.lua from
# cuda/fused_cuda.h, ...): the part of the header between its ffi markers, run through the C
# preprocessor, so that the lists' X-macros reach LuaJIT expanded. Comments stay (-C); nothing
# is included (-nostdinc, -undef). FUSED_READONLY is const there: Lua reads a tensor's fields
# and cannot write them (C trusts them).
set -e
echo "-- Generated from $1 by scripts/gen-cdef.sh; edit the header, then run make."
echo "return [["
sed -n '/\/\* ffi-begin \*\//,/\/\* ffi-end \*\//p' "$1" | sed '1d;$d' |
  ${CC:-cc} -E -P -C -undef -nostdinc -DFUSED_READONLY=const -x c -
echo "]]"
