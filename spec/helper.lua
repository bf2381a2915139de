-- Shared by the specs: load fused from the checkout, compare tensors, find the golden files.
local fused = require 'fused'

local helper = { fused = fused }

-- PyTorch's reference vectors, copied into spec/golden (its README gives the conventions).
helper.golden = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'golden'

function helper.load_golden(case, name, dtype)
  local t = fused.load_npy(helper.golden .. '/' .. case .. '/' .. name .. '.npy')
  return dtype and t:to(dtype) or t
end

-- A golden case's tensors by name, each loaded (in dtype, on device: nil, the CPU) when first
-- read.
function helper.golden_case(case, dtype, device)
  return setmetatable({}, { __index = function(t, name)
    t[name] = helper.load_golden(case, name, dtype):to(device or 'cpu')
    return t[name]
  end })
end

-- A golden case's config.json (the sequence sets': sizes, layers, directions, lengths).
function helper.golden_config(case)
  return require('fused.json').decode(helper.read(helper.golden .. '/' .. case .. '/config.json'))
end

-- The bound for a golden tensor: 1e-10 in float64; in float32, and for compute = 'bfloat16',
-- max(1e-5, 4·e), e being PyTorch's own error in that precision on that case and tensor
-- (pytorch_<precision>_error.json; bfloat16's under CPU autocast), so that a case deep in
-- saturation is held to what the precision can give whatever kernel sums it (golden/README.md
-- gives the rules and the margins measured).
local pytorch_error = {}
function helper.golden_tolerance(case, name, precision)
  if precision == 'float64' then return 1e-10 end
  assert(precision == 'float32' or precision == 'bfloat16',
         'golden_tolerance: precision must be float64, float32 or bfloat16')
  if not pytorch_error[precision] then
    local file = helper.golden .. '/pytorch_' .. precision .. '_error.json'
    pytorch_error[precision] = require('fused.json').decode(helper.read(file))
  end
  local e = assert(pytorch_error[precision][case] and pytorch_error[precision][case][name],
                   'golden_tolerance: no PyTorch ' .. precision .. ' error for ' .. case .. ' '
                   .. name)
  return math.max(1e-5, 4 * e)
end

-- ‖a − b‖ / ‖b‖ over all elements, in float64 on the host (‖a − b‖ when b is all zeros).
function helper.rel_error(a, b)
  local x, y = a:double():cpu():contiguous(), b:double():cpu():contiguous()
  assert(x:numel() == y:numel(), 'rel_error: sizes differ: ' .. x:numel() .. ' vs ' .. y:numel())
  local num, den = 0, 0
  local px, py = require('ffi').cast('double*', x.data), require('ffi').cast('double*', y.data)
  for i = 0, x:numel() - 1 do
    local d = px[i] - py[i]
    num, den = num + d * d, den + py[i] * py[i]
  end
  if num ~= num then return math.huge end
  return den > 0 and math.sqrt(num / den) or math.sqrt(num)
end

-- Asserts rel_error(a, b) <= tol, saying which tensor and by how much when not.
function helper.assert_close(a, b, tol, what)
  local sa, sb = table.concat(a:shape(), 'x'), table.concat(b:shape(), 'x')
  assert(sa == sb, string.format('%s: shape %s, expected %s', what or 'tensor', sa, sb))
  local err = helper.rel_error(a, b)
  assert(err <= tol, string.format('%s: relative error %.3e exceeds %.1e', what or 'tensor', err, tol))
end

-- The keys of t, sorted: the names of a state_dict or of a file's tensors.
function helper.sorted_keys(t)
  local list = {}
  for k in pairs(t) do list[#list + 1] = k end
  table.sort(list)
  return list
end

-- A file's bytes.
function helper.read(path)
  local f = assert(io.open(path, 'rb'))
  local s = f:read('*a')
  f:close()
  return s
end

-- A file-like sink for out and err arguments: keeps what is written; text() returns it.
function helper.sink()
  local parts = {}
  return { write = function(self, ...) for _, s in ipairs({ ... }) do parts[#parts + 1] = tostring(s) end return self end,
           flush = function() end, text = function() return table.concat(parts) end }
end

-- Asserts that f() raises an error whose message contains every given fragment.
function helper.assert_error(f, ...)
  local ok, err = pcall(f)
  assert(not ok, 'expected an error, got none')
  err = tostring(err)
  for _, fragment in ipairs({ ... }) do
    assert(err:find(fragment, 1, true), string.format('error %q lacks %q', err, fragment))
  end
end

-- Runs `code` (Lua, with fused and helper in scope) in a child luajit with env (a string of
-- NAME=value words) before the environment it inherits; returns what it printed, stderr too.
function helper.child(code, env)
  local path = os.tmpname()
  local f = assert(io.open(path, 'wb'))
  f:write("local helper = require 'spec.helper'\nlocal fused = helper.fused\n", code, '\n')
  f:close()
  local p = io.popen(string.format("%s LUA_PATH='lua/?.lua;lua/?/init.lua;;' luajit %s 2>&1",
                                   env or '', path))
  local out = p:read('*a')
  p:close()
  os.remove(path)
  return out
end

-- Runs `code` as helper.child does where CUDA is off (FUSED_NO_CUDA=1), so that what a
-- machine without a device does is checked on every machine; asserts that it ran to its end,
-- and returns what it printed.
function helper.without_cuda(code)
  local out = helper.child(code .. "\nprint('without_cuda: done')", 'FUSED_NO_CUDA=1')
  assert(out:find('without_cuda: done', 1, true), out)
  return out
end

-- The dtype names, in the order of their numbers.
helper.dtypes = {}
for id = 0, fused.C.FUSED_NUM_DTYPES - 1 do helper.dtypes[id + 1] = require('fused.dtype').dtype_names[id] end

-- A tensor of the given shape and dtype whose values show a wrong byte: floats of many
-- magnitudes, int64 past 2^53 of both signs and its minimum, bools of both values.
function helper.sample(shape, dtype)
  local values, n = {}, 1
  for _, size in ipairs(shape) do n = n * size end
  for i = 1, n do
    if dtype == 'bool' then values[i] = i % 3 ~= 1
    elseif dtype == 'int64' then values[i] = (i % 2 == 0 and -1 or 1) * (2 ^ 53 + 0LL + i)
    else values[i] = math.sin(i) * 10 ^ (i % 7 - 3) end
  end
  if dtype == 'int64' then values[1] = -9223372036854775807LL - 1 end
  return fused.tensor(values, { dtype = dtype }):view(shape)
end

-- Every byte of t's elements, in order: equal for tensors equal to the bit.
function helper.bytes(t)
  local host = t:cpu():contiguous()
  return require('ffi').string(host.data, host:numel() * require('fused.dtype').sizes[host.scalar_type])
end

-- Whether cuda tensors work here: a GPU answers, or the CUDA emulator runs (make test).
function helper.has_cuda() return fused.cuda.is_available() or fused.cuda.is_emulated() end

-- it() for a test of the CUDA backend: pending, with the reason, where neither a GPU nor the
-- CUDA emulator answers (make test loads the emulator, so it runs everywhere there).
-- busted binds it and pending in each spec's environment (pending differs inside a test), so
-- they are looked up there, when used: helper.gpu_it('name', function() ... end).
function helper.gpu_it(name, f)
  local spec = getfenv(f)
  spec.it(name, function()
    if not helper.has_cuda() then spec.pending('no CUDA device: ' .. fused.cuda.why()) end
    f()
  end)
end

-- A copy of t (a CPU float tensor) with its k-th element (from 0, row-major) set to v.
function helper.with_element(t, k, v)
  local u = t:clone()
  require('ffi').cast(u.dtype == 'float64' and 'double*' or 'float*', u.data)[k] = v
  return u
end

-- "1" where t is NaN, "." elsewhere, row-major: where NaN went, comparable as a string.
function helper.nan_mask(t)
  local m = {}
  for i, v in ipairs(t:contiguous():view(-1):totable()) do m[i] = v ~= v and '1' or '.' end
  return table.concat(m)
end

-- Writes value into t's field (a name of c/fused.h's struct, an array field's element 0 unless
-- index says), past the read-only cdef: how a spec builds a corrupted or relabelled tensor.
function helper.poke(t, field, value, index)
  local ffi = require 'ffi'
  local ctype = (field == 'sizes' or field == 'strides') and 'int64_t*'
    or (field == 'data' or field == 'storage') and 'void**' or 'int32_t*'
  local at = ffi.cast('char*', ffi.cast('fused_tensor*', t)) + ffi.offsetof('fused_tensor', field)
  ffi.cast(ctype, at)[index or 0] = value
end

-- What the shell command cmd prints to stdout, trailing white space dropped.
function helper.shell(cmd)
  local p = io.popen(cmd)
  local out = p:read('*a')
  p:close()
  return (out:gsub('%s+$', ''))
end

-- Whether the specs run under valgrind (make test-valgrind), which puts its own libraries first
-- in LD_PRELOAD.
helper.valgrind = (os.getenv('LD_PRELOAD') or ''):find('vgpreload', 1, true) ~= nil

-- The CPU vector paths (c/cpu/capability.c), best first, and those this CPU runs (the others
-- are refused with a reason).
helper.cpu_paths = { 'avx512', 'avx2', 'default' }
function helper.runnable_cpu_paths()
  local before, ok = fused.config().cpu_capability, {}
  for _, name in ipairs(helper.cpu_paths) do
    if pcall(fused.set_cpu_capability, name) then ok[#ok + 1] = name end
  end
  fused.set_cpu_capability(before)
  return ok
end

-- f() run with the process setting `name` of fused.config() at value (through fused['set_' ..
-- name]), the value in force before restored whatever happens; returns f's results.
local function under(name, value, f)
  local before = fused.config()[name]
  fused['set_' .. name](value)
  local results = { pcall(f) }
  fused['set_' .. name](before)
  assert(results[1], results[2])
  return unpack(results, 2)
end

-- f() run under the vector path `path` (fused.set_cpu_capability).
function helper.under_cpu_capability(path, f) return under('cpu_capability', path, f) end

-- f() run under the GEMM setting `setting` (fused.set_gemm).
function helper.under_gemm(setting, f) return under('gemm', setting, f) end

-- forward and backward of m (a recurrent layer) on xs with states h0 and c0 (nil: zeros):
-- every output, input gradient and parameter gradient, copied to the CPU.
function helper.rnn_results(m, xs, h0, c0, lengths, d_hs)
  local outs = m.has_c and { m:forward(xs, h0, c0, { lengths = lengths }) }
               or { m:forward(xs, h0, { lengths = lengths }) }
  local got = {}
  for _, t in ipairs(outs) do got[#got + 1] = t:cpu():clone() end
  for _, t in ipairs({ m:backward(d_hs) }) do got[#got + 1] = t:cpu():clone() end
  for _, _, g in m:named_parameters() do got[#got + 1] = g:cpu():clone() end
  return got
end

-- The names of the fused.nn modules a user builds (every class file of lua/fused/nn with a
-- forward, but the base classes and the recurrent modules' argument checks), sorted: specs that
-- walk every module find a new one without a list to update.
local NN_BASES = { Module = true, RNNBase = true, RNNCellBase = true, recurrent_args = true }
function helper.nn_module_names()
  local dir = package.searchpath('fused.nn', package.path):match('^(.*)/init%.lua$')
  local names, ls = {}, io.popen("ls '" .. dir .. "'")
  for file in ls:lines() do
    local name = file:match('^([%a_][%w_]*)%.lua$')
    local class = name and name ~= 'init' and fused.nn[name]
    if type(class) == 'table' and class.forward and not NN_BASES[name] then names[#names + 1] = name end
  end
  ls:close()
  table.sort(names)
  return names
end

-- A line of Lua without its comment and its strings (one-line ones: '...' and "..."), for the
-- specs that read the library's sources (layers_spec, th_library_forms_spec).
function helper.code_only(line)
  local out, quote, i = {}, nil, 1
  while i <= #line do
    local c = line:sub(i, i)
    if quote then
      if c == '\\' then i = i + 1 elseif c == quote then quote = nil end
    elseif c == "'" or c == '"' then
      quote = c
    elseif line:sub(i, i + 1) == '--' then
      break
    else
      out[#out + 1] = c
    end
    i = i + 1
  end
  return table.concat(out)
end

-- The .lua files under lua/fused/ (paths relative to it), sorted.
function helper.lua_files()
  local files, ls = {}, io.popen("cd lua/fused/ && find . -name '*.lua' | sort")
  for f in ls:lines() do files[#files + 1] = f:gsub('^%./', '') end
  ls:close()
  return files
end

-- s as one shell word.
function helper.shell_quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- Shell words naming the libraries a sanitizer run gives by paths relative to the checkout
-- root, made absolute for a child that runs in another folder ('' where none is relative).
function helper.library_env(root)
  local words = ''
  for _, var in ipairs({ 'FUSED_LIB', 'FUSED_CUDA_LIB', 'FUSED_MPI_LIB' }) do
    local path = os.getenv(var)
    if path and path ~= '' and path:sub(1, 1) ~= '/' then
      words = words .. var .. '=' .. helper.shell_quote(root .. '/' .. path) .. ' '
    end
  end
  return words
end

return helper
