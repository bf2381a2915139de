#!/bin/sh
# Prints a cdef module (lua/fused/cdef.lua from c/fused.h, lua/fused/cuda_cdef.lua from
# cuda/fused_cuda.h): the declarations between the header's ffi markers.
set -e
echo "-- Generated from $1 by scripts/gen-cdef.sh; edit the header, then run make."
echo "return [["
sed -n '/\/\* ffi-begin \*\//,/\/\* ffi-end \*\//p' "$1" | sed '1d;$d'
echo "]]"
