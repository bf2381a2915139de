#!/bin/sh
# Installs the rock into a scratch tree with `luarocks make` (offline) and requires it from
# another directory, as a user would.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
cd "$top"
luarocks make --tree="$tree" rockspec/fused-scm-1.rockspec >"$tree/build.log" 2>&1 \
  || { cat "$tree/build.log"; exit 1; }
cd /
LUA_PATH="$tree/share/lua/5.1/?.lua;$tree/share/lua/5.1/?/init.lua;;" \
LUA_CPATH="$tree/lib/lua/5.1/?.so;;" \
  luajit -e "
    local fused = require 'fused'
    assert(require('fused.lib').path:find('$tree', 1, true), 'loaded ' .. require('fused.lib').path)
    local t = fused.ones({2, 2}) + 1
    assert(t:sum() == 8)
    print('rock-check: luarocks make installed fused into $tree and require works from /')"
# An extension builds against the rock's fused_ext.h (docs/extending.md).
printf '#include <fused_ext.h>\nint rock_ext(void) { return fused_check_tensor("rock_ext", "t", 0); }\n' \
  > "$tree/rock_ext.c"
LUA_PATH="$tree/share/lua/5.1/?.lua;$tree/share/lua/5.1/?/init.lua;;" \
LUA_CPATH="$tree/lib/lua/5.1/?.so;;" \
  luajit -e "
    local fused = require 'fused'
    local inc = require('fused.ext.toolchain').include_dir()
    assert(inc:find('$tree', 1, true), 'fused_ext.h from ' .. inc)
    local ext = fused.ext.load{name = 'rock_ext', sources = {'$tree/rock_ext.c'},
                               cache_dir = '$tree/cache', cdef = 'int rock_ext(void);'}
    assert(ext.rock_ext() == -1)
    print('rock-check: an extension built against ' .. inc .. '/fused_ext.h')"
# bin/fused finds the tree's Lua files and library from its own path, with no LUA_PATH.
out=$("$tree/bin/fused" -e 'print(require("fused.lib").path)')
case "$out" in "$tree"/*) echo "rock-check: $tree/bin/fused runs and loads $out";;
  *) echo "rock-check: $tree/bin/fused loaded '$out', not the tree's library"; exit 1;; esac
