-- docs/architecture.md's recipe for a new unary op, followed in a scratch copy of this checkout,
-- so that the recipe cannot drift from the code: softsign, z / (1 + |z|), is its row in fused.h's
-- FUSED_UNARY_OPS and its case in c/maths/pointwise.h's apply_unary, nothing else; the copy's
-- libfused (built at -O0, its CUDA left out: seconds, not minutes) then has fused.softsign and
-- t:softsign_() on the CPU, equal to the maths in Lua. A row without its case does not compile.
local helper = require 'spec.helper'

local function sh(command)
  local p = io.popen('(' .. command .. ') 2>&1; echo "exit=$?"')
  local out = p:read('*a')
  p:close()
  return out:match('^(.*)exit=(%d+)%s*$')
end

-- path's text with `after`'s line followed by `line`; the anchor must be there, once.
local function insert_after(path, after, line)
  local text = helper.read(path)
  local at, stop = text:find(after, 1, true)
  assert(at and not text:find(after, stop + 1, true), path .. ': ' .. after .. ' not found once')
  local eol = text:find('\n', stop, true)
  local f = assert(io.open(path, 'wb'))
  f:write(text:sub(1, eol), line, '\n', text:sub(eol + 1))
  f:close()
end

describe('the recipe for a new unary op (docs/architecture.md)', function()
  local root
  setup(function()
    local out, rc = sh('git rev-parse --show-toplevel')
    if rc == '0' then root = out:gsub('%s+$', '') end
  end)

  it('is a list row and its maths: softsign in a copy of the tree', function()
    if not root then pending('not a git checkout') return end
    local tmp = assert(sh('mktemp -d')):gsub('%s+$', '')
    local function clean() sh("rm -rf '" .. tmp .. "'") end
    local ok, err = pcall(function()
      -- The working tree as it is (tracked and new files), without build/.
      local out, rc = sh(string.format("cd '%s' && git ls-files -z -co --exclude-standard | "
                                       .. "tar --null --ignore-failed-read -T - -cf - | tar -xf - -C '%s'",
                                       root, tmp))
      assert(rc == '0', out)

      -- 1. The row: enum, name, integers (0: int64 tensors refuse it), alpha (0: it reads none).
      insert_after(tmp .. '/c/fused.h', 'X(FUSED_TANH, tanh, 0, 0)', '  X(FUSED_SOFTSIGN, softsign, 0, 0) \\')
      -- Without its maths the kernels do not compile: apply_unary's switch has no default.
      out, rc = sh(string.format("cd '%s' && ${CC:-cc} -std=gnu11 -fopenmp -Werror=switch -fsyntax-only "
                                 .. 'c/cpu/kernels_float32.c', tmp))
      assert(rc ~= '0' and out:find('FUSED_SOFTSIGN', 1, true), 'compiled without its case: ' .. out)

      -- 2. Its maths, once for both backends, over a lane type (a scalar, or a vector on the CPU).
      insert_after(tmp .. '/c/maths/pointwise.h', 'case FUSED_TANH: return tanh_of(z);',
                   '    case FUSED_SOFTSIGN: return z / (1 + m_abs(z));')
      out, rc = sh(string.format("cd '%s' && make -s -j2 CFLAGS=-O0 build/libfused.so lua/fused/cdef.lua",
                                 tmp))
      assert(rc == '0', out)

      -- The copy's fused, in a child: the op, its in-place form and its row's checks.
      local code = [[
local fused = require 'fused'
local xs = {}
for i = 1, 37 do xs[i] = (i - 19) * 0.37 end -- vectors and a tail
local worst = 0
for _, dtype in ipairs({ 'float32', 'float64' }) do
  local y = fused.softsign(fused.tensor(xs, { dtype = dtype }))
  local z = fused.tensor(xs, { dtype = dtype }):softsign_()
  for i, x in ipairs(xs) do
    local want = x / (1 + math.abs(x))
    worst = math.max(worst, math.abs(y[i] - want), math.abs(z[i] - want))
  end
end
local ok, err = pcall(fused.softsign, fused.tensor({ 1, 2 }, { dtype = 'int64' }))
print('worst', worst, 'int64', err)
]]
      local f = assert(io.open(tmp .. '/softsign_check.lua', 'wb'))
      f:write(code)
      f:close()
      -- (FUSED_LIB: the copy's, not one that make test-asan names for this process.)
      out = sh(string.format("cd '%s' && FUSED_NO_CUDA=1 FUSED_LIB=build/libfused.so "
                             .. "LUA_PATH='lua/?.lua;lua/?/init.lua;;' luajit softsign_check.lua", tmp))
      local worst = tonumber(out:match('worst%s+(%S+)'))
      assert(worst and worst < 1e-6, out)
      assert(out:find("softsign: argument 'input' expected a floating dtype", 1, true), out)
    end)
    clean()
    assert(ok, err)
  end)
end)
