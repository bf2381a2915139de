#!/bin/sh
# Prints lua/fused/cdef.lua: the declarations between the ffi markers of c/fused.h.
set -e
echo "-- Generated from c/fused.h by scripts/gen-cdef.sh; edit the header, then run make."
echo "return [["
sed -n '/\/\* ffi-begin \*\//,/\/\* ffi-end \*\//p' "$1" | sed '1d;$d'
echo "]]"
