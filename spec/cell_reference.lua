-- The PyTorch float64 references of defined cells, run through nn.RNN: a set is a folder of
-- cases (spec/data/<set>/<case>/: config.json and the .npy tensors; gen.py beside them).
-- cell_states_spec, slstm_spec and linear_cells_spec read theirs through it.
local helper = require 'spec.helper'
local fused = helper.fused
local json = require 'fused.json'

local M = {}

-- A definition from examples/cells/<file>.lua, built in the cache folder given.
function M.example(file, cache_dir)
  local def = dofile('examples/cells/' .. file .. '.lua')(fused.cell)
  def.cache_dir = cache_dir
  return def
end

function M.config(dir, case) return json.decode(helper.read(dir .. case .. '/config.json')) end

function M.exists(dir, case, name)
  local f = io.open(dir .. case .. '/' .. name .. '.npy')
  if f then f:close() end
  return f ~= nil
end

-- The reference's tensor, in dtype (nil: as stored).
function M.load(dir, case, name, dtype)
  local t = fused.load_npy(dir .. case .. '/' .. name .. '.npy')
  return dtype and t:to(dtype) or t
end

-- get(name) for M.run: the case's tensor name in dtype (resets stay bool), on device (nil: the
-- CPU).
function M.getter(dir, case, dtype, device)
  return function(name)
    local t = M.load(dir, case, name)
    if name ~= 'resets' then t = t:to(dtype) end
    return device and t:cuda() or t
  end
end

-- Every result in got that the case's reference has, against it in dtype: float64 within 1e-10,
-- float32 by the golden rule (max(1e-5, 4 e), e PyTorch's own float32 error on the case and
-- tensor, config c's pytorch_float32_error: ../shared/golden/README.md); a (1, B, H) state is
-- viewed as the reference's (B, H). what names the run in a failure. Returns how many it compared.
function M.compare(dir, case, c, got, dtype, what)
  local n = 0
  for _, name in ipairs(helper.sorted_keys(got)) do
    if M.exists(dir, case, name) then
      local want, t = M.load(dir, case, name, dtype), got[name]:cpu()
      if t.ndim ~= want.ndim then t = t:contiguous():view(want:shape()) end
      helper.assert_close(t, want, dtype == 'float64' and 1e-10
                          or math.max(1e-5, 4 * c.pytorch_float32_error[name]),
                          table.concat({ case, what, dtype, name }, ' '))
      n = n + 1
    end
  end
  return n
end

-- For each case, a test of check(case, dtype, device, what) in float64 and float32 on every CPU
-- vector path, and one on the CUDA device (check takes busted's it from its own spec file).
function M.every_path(cases, check)
  local spec = getfenv(check)
  for _, case in ipairs(cases) do
    spec.it(case .. ': float64 within 1e-10 and float32 by the golden rule on every CPU path', function()
      for _, path in ipairs(helper.runnable_cpu_paths()) do
        helper.under_cpu_capability(path, function()
          check(case, 'float64', false, path)
          check(case, 'float32', false, path)
        end)
      end
    end)
    helper.gpu_it(case .. ': the same on the CUDA device', setfenv(function()
      check(case, 'float64', 'cuda', 'cuda')
      check(case, 'float32', 'cuda', 'cuda')
    end, spec)) -- gpu_it finds it in its function's environment
  end
end

-- Forward and backward of case c through m, the reference's tensors read by get(name) (on the
-- module's device): {name = result}, named as the reference names them. initial(s) gives state
-- s's initial value (default get(s .. '0'); nil: zeros).
function M.run(m, c, get, initial)
  initial = initial or function(s) return get(s .. '0') end
  local inputs, grads = {}, {}
  for i, s in ipairs(c.states) do inputs[i], grads[i] = initial(s), get('s_' .. s) end
  local opts = { lengths = c.lengths }
  if c.resets then opts.resets = get('resets') end
  inputs[#c.states + 1] = opts
  local results = { m:forward(get('xs'), unpack(inputs, 1, #c.states + 1)) }
  m:zeroGradParameters()
  local d = { m:backward(get('r'), unpack(grads)) }
  local got = { hs = results[1], d_xs = d[1] }
  for i, s in ipairs(c.states) do got[s .. '_n'], got['d_' .. s .. '0'] = results[i + 1], d[i + 1] end
  for name, _, g in m:named_parameters() do got['d_' .. name] = g end
  return got
end

-- fused.gradcheck of m over its forward's tensor inputs (forward(inputs..., opts) where opts is
-- given) and every parameter: ok, worst.
function M.gradcheck(m, inputs, opts)
  local n = #inputs
  local all = { unpack(inputs, 1, n) }
  for _, p in m:named_parameters() do all[#all + 1] = p:clone() end
  return fused.gradcheck({
    forward = function(...)
      local args, i = { ... }, n
      for _, p in m:named_parameters() do i = i + 1; p:copy(args[i]) end
      args[n + 1] = opts
      return m:forward(unpack(args, 1, opts and n + 1 or n))
    end,
    backward = function(_, ...)
      m:zeroGradParameters()
      local g = { unpack({ m:backward(...) }, 1, n) }
      for _, _, grad in m:named_parameters() do g[#g + 1] = grad end
      return unpack(g)
    end,
  }, all)
end

return M
