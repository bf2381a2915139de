rockspec_format = "1.1" -- for deploy
package = "fused"
version = "scm-1"
source = {
  url = "git+file:///dev/null", -- built from a checkout: `luarocks make rockspec/fused-scm-1.rockspec`
}
description = {
  summary = "Tensors and fused neural-network kernels in C and CUDA, driven from LuaJIT's FFI",
  detailed = [[
    A C library (OpenBLAS on the CPU, cuBLAS and fused kernels on NVIDIA GPUs) with a LuaJIT
    binding: tensors, nn modules in the Torch7 spirit, optimizers, and fused recurrent cells.
  ]],
  license = "MIT",
}
dependencies = {
  "lua ~> 5.1", -- LuaJIT
}
-- bin/fused runs under luajit (its #! line); luarocks' wrapper would run it with lua5.1.
deploy = { wrap_bin_scripts = false }
build = {
  type = "make",
  build_target = "all",
  install_target = "install",
  build_variables = {
    CFLAGS = "$(CFLAGS)",
    LUA_INCDIR = "$(LUA_INCDIR)",
    LUA = "$(LUA)",
  },
  install_variables = {
    PREFIX = "$(PREFIX)",
    LIBDIR = "$(LIBDIR)",
    LUADIR = "$(LUADIR)",
    BINDIR = "$(BINDIR)",
    INCLUDEDIR = "$(PREFIX)/include/fused", -- fused_ext.h, for extensions (docs/extending.md)
  },
}
