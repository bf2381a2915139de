-- The one 16-bit rule of fused.nn and fused.functional (docs/nn.md): they compute in float32 and
-- float64 only, so a bfloat16 or float16 input, a 16-bit module dtype and a 16-bit tensor to a
-- function are each an error naming the public function, the argument as the user wrote it and
-- the conversion to make, at the user's line; never a result in another dtype. Every fused.nn
-- module, found at run time, is walked, on the CPU and the emulated CUDA device.
local helper = require 'spec.helper'
local fused = helper.fused
local nn, F = fused.nn, fused.functional

local HERE = '^spec/nn_dtype16_spec.lua:%d+: '
local janet = fused.cell.define(dofile('examples/cells/janet.lua')(fused.cell))

-- Each module: its constructor arguments (o: {dtype =, device =}), the names of forward's
-- arguments as documented, and a function that makes them (T(shape) a float64 tensor on the
-- device, I(list) int64 indices). Floating arguments are made 16-bit, and index ones, which
-- are refused as not int64. A Sequential's error is its first module's, as Torch7's.
local B, I_, H = 2, 3, 2
local function cell_args(has_c)
  return function(T) return T({ B, I_ }), T({ B, H }), has_c and T({ B, H }) or nil end
end
local function seq_args(T) return T({ 4, B, I_ }), T({ 1, B, H }), T({ 1, B, H }) end
local MODULES = {
  Linear = { function(o) return I_, H, o end, { 'input' }, function(T) return T({ B, I_ }) end },
  LayerNorm = { function(o) return I_, o end, { 'input' }, function(T) return T({ B, I_ }) end },
  Embedding = { function(o) return 5, H, o end, { 'indices' }, function(_, I) return I({ 1, 2 }) end },
  GraphConv = { function(o) return I_, H, o end, { 'A', 'X' }, function(T) return T({ B, B }), T({ B, I_ }) end },
  Tanh = { function() end, { 'input' }, function(T) return T({ B, I_ }) end },
  Sigmoid = { function() end, { 'input' }, function(T) return T({ B, I_ }) end },
  ReLU = { function() end, { 'input' }, function(T) return T({ B, I_ }) end },
  Dropout = { function() return 0.5 end, { 'input' }, function(T) return T({ B, I_ }) end },
  Softmax = { function() return 2 end, { 'input' }, function(T) return T({ B, I_ }) end },
  LogSoftmax = { function() return 2 end, { 'input' }, function(T) return T({ B, I_ }) end },
  MSELoss = { function() end, { 'input', 'target' }, function(T) return T({ B, I_ }), T({ B, I_ }) end },
  CrossEntropyLoss = { function() end, { 'logits', 'targets' }, function(T, I) return T({ B, I_ }), I({ 1, 3 }) end },
  NLLLoss = { function() end, { 'input', 'targets' }, function(T, I) return T({ B, I_ }), I({ 1, 3 }) end },
  Sequential = { function(o) return nn.Linear(I_, H, o), nn.Tanh() end, { 'input' }, function(T) return T({ B, I_ }) end,
                 'Linear:forward' },
  LLTMCell = { function(o) return I_, H, o end, { 'x', 'h', 'c' }, cell_args(true) },
  LLTMCellComposed = { function(o) return I_, H, o end, { 'x', 'h', 'c' }, cell_args(true) },
  LSTMCell = { function(o) return I_, H, o end, { 'x', 'h', 'c' }, cell_args(true) },
  GRUCell = { function(o) return I_, H, o end, { 'x', 'h' }, cell_args(false) },
  RNNCell = { function(o) return I_, H, { cell = janet, dtype = o.dtype, device = o.device } end,
              { 'x', 'h' }, cell_args(false) },
  LSTM = { function(o) return I_, H, o end, { 'xs', 'h0', 'c0' }, seq_args },
  GRU = { function(o) return I_, H, o end, { 'xs', 'h0' }, seq_args },
  LLTM = { function(o) return I_, H, o end, { 'xs', 'h0', 'c0' }, seq_args },
  RNN = { function(o) return I_, H, { cell = janet, dtype = o.dtype, device = o.device } end,
          { 'xs', 'h0' }, seq_args },
  Scan = { function() end, { 'a', 'b', 'h0' }, function(T) return T({ 4, B, H }), T({ 4, B, H }), T({ B, H }) end },
  Recurrent = { function(o) return nn.LSTMCell(I_, H, o) end, { 'xs', 'h0', 'c0' },
                function(T) return T({ 4, B, I_ }), T({ B, H }), T({ B, H }) end },
}

local function refused(f, fn, arg, dtype, index)
  local ok, msg = pcall(f)
  assert(not ok, fn .. ' took a ' .. dtype .. ' ' .. arg .. ' without an error')
  assert.truthy(msg:find(HERE), 'not at the caller: ' .. msg)
  local parts = index and { fn .. ': ', "'" .. arg .. "'", 'expected dtype int64, got ' .. dtype }
    or { fn .. ': ', "'" .. arg .. "'", 'float32 or float64', 'got ' .. dtype, ':float()' }
  for _, part in ipairs(parts) do
    assert.truthy(msg:find(part, 1, true), string.format('%q lacks %q', msg, part))
  end
end

for _, device in ipairs({ 'cpu', 'cuda' }) do
  local run = device == 'cpu' and it or helper.gpu_it
  local o = { dtype = 'float64', device = device }
  local function T(shape) return fused.randn(shape, o) end
  local function I(list) return fused.tensor(list, { dtype = 'int64', device = device }) end

  describe('every fused.nn module on ' .. device, function()
    for _, name in ipairs(helper.nn_module_names()) do
      run(name .. ' refuses bfloat16 and float16 in each floating argument of forward', function()
        local entry = MODULES[name]
        assert(entry, name .. ': a module this spec does not know: add it to MODULES')
        local make, argnames, inputs, fn = entry[1], entry[2], entry[3], entry[4] or name .. ':forward'
        local m = nn[name](make(o))
        local good = { inputs(T, I) }
        m:forward(unpack(good, 1, #argnames)) -- the float64 call works
        local tried = 0
        for i, arg in ipairs(argnames) do
          for _, dtype in ipairs({ 'bfloat16', 'float16' }) do
            local args = { inputs(T, I) }
            args[i] = args[i] and args[i]:to(dtype)
            refused(function() m:forward(unpack(args, 1, #argnames)) end, fn, arg, dtype,
                    good[i].dtype == 'int64')
            tried = tried + 1
          end
        end
        assert.is_true(tried > 0, name .. ': no floating argument tried')
      end)

      run(name .. ' cannot be made or moved 16-bit', function()
        local make = MODULES[name][1]
        local m = nn[name](make(o))
        if #m:parameters() == 0 then return end -- its dtype is its input's
        for _, dtype in ipairs({ 'bfloat16', 'float16' }) do
          if name ~= 'Sequential' and name ~= 'Recurrent' then
            local ok, msg = pcall(function() local r = nn[name](make({ dtype = dtype, device = device })); return r end)
            assert.is_false(ok, name .. ' was made ' .. dtype)
            assert.truthy(msg:find(HERE), msg)
            assert.truthy(msg:find(name .. ": option 'dtype' expected float32 or float64", 1, true), msg)
          end
          local ok, msg = pcall(function() local r = m:to(dtype); return r end)
          assert.is_false(ok, name .. ' was moved to ' .. dtype)
          assert.truthy(msg:find(HERE), msg)
          assert.truthy(msg:find(name .. ':to: the dtype expected float32 or float64', 1, true), msg)
          assert.are.equal('float64', m:parameters()[1].dtype) -- left as it was
        end
      end)
    end
  end)

  describe('fused.functional on ' .. device, function()
    -- Each function: its documented argument names and a function giving good arguments.
    local G = 4
    local FUNCTIONS = {
      { 'rnn_forward', { 'cell', 'xs', 'w_ih', 'w_hh', 'b_ih', 'b_hh', 'h0', 'c0' }, function()
        return 'lstm', T({ 3, B, I_ }), T({ G * H, I_ }), T({ G * H, H }), T({ G * H }), T({ G * H }),
               T({ B, H }), T({ B, H }) end },
      { 'lltm_forward', { 'x', 'W', 'b', 'h', 'c' }, function()
        return T({ B, I_ }), T({ 3 * H, H + I_ }), T({ 3 * H }), T({ B, H }), T({ B, H }) end },
      { 'lltm_seq_forward', { 'xs', 'W', 'b', 'h0', 'c0' }, function()
        return T({ 3, B, I_ }), T({ 3 * H, H + I_ }), T({ 3 * H }), T({ B, H }), T({ B, H }) end },
      { 'embedding', { 'indices', 'weight' }, function() return I({ 1, 2 }), T({ 5, H }) end },
      { 'embedding_backward_accumulate', { 'd_out', 'indices', 'gradWeight' }, function()
        return T({ 2, H }), I({ 1, 2 }), T({ 5, H }) end },
      { 'cross_entropy', { 'logits', 'targets' }, function() return T({ B, I_ }), I({ 1, 3 }) end },
      { 'cross_entropy_backward', { 'logits', 'targets' }, function() return T({ B, I_ }), I({ 1, 3 }) end },
      { 'nll_loss', { 'log_probs', 'targets' }, function() return T({ B, I_ }), I({ 1, 3 }) end },
      { 'nll_loss_backward', { 'log_probs', 'targets' }, function() return T({ B, I_ }), I({ 1, 3 }) end },
      { 'sgd_step', { 'param', 'grad', 'momentum_buffer' }, function()
        return T({ 3 }), T({ 3 }), T({ 3 }), 0.1, 0.9, 0, 0, false, true end },
      { 'adam_step', { 'param', 'grad', 'exp_avg', 'exp_avg_sq' }, function()
        return T({ 3 }), T({ 3 }), T({ 3 }), T({ 3 }), 0.1, 0.9, 0.999, 1e-8, 0, false, 1 end },
      { 'rmsprop_step', { 'param', 'grad', 'square_avg', 'momentum_buffer' }, function()
        return T({ 3 }), T({ 3 }), T({ 3 }), T({ 3 }), 0.01, 0.99, 1e-8, 0.9, 0 end },
    }
    for _, f in ipairs(FUNCTIONS) do
      local name, argnames, make = f[1], f[2], f[3]
      run(name .. ' refuses bfloat16 and float16 in each floating argument', function()
        local n = select('#', make())
        for i, arg in ipairs(argnames) do
          for _, dtype in ipairs({ 'bfloat16', 'float16' }) do
            local args = { make() }
            if fused.is_tensor(args[i]) and args[i].dtype == 'float64' then
              args[i] = args[i]:to(dtype)
              refused(function() local r = { F[name](unpack(args, 1, n)) }; return r end, name, arg, dtype)
            elseif fused.is_tensor(args[i]) then
              args[i] = args[i]:to(dtype)
              refused(function() local r = { F[name](unpack(args, 1, n)) }; return r end, name, arg, dtype,
                      true)
            end
          end
        end
      end)
    end
  end)
end
