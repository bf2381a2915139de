-- Bad calls to fused.nn and fused.functional, as an attacker's probe made them (issue 33): each
-- error names the public function the user called and the argument as the user wrote it, at
-- the user's line; never an internal function (rnn_forward inside LSTM:forward, the removed
-- lltm_forward inside LLTMCell), an argument the user did not pass ('out', 'w_ih', 'W',
-- 'grad_out'), a Lua runtime error or an FFI conversion error. The same on the CPU and the
-- emulated CUDA device.
local helper = require 'spec.helper'
local fused = helper.fused
local nn, F = fused.nn, fused.functional

local HERE = '^spec/nn_errors_spec.lua:%d+: '
local janet = fused.cell.define(dofile('examples/cells/janet.lua')(fused.cell))

-- Raises unless f() fails with an error at this file's line that holds every fragment and none
-- of the words in `never` (names that are not the user's).
local NEVER = { 'rnn_forward', 'rnn_backward', 'lltm_forward', 'lltm_seq', "'out'", "'w_ih'",
                "'W'", "'grad_out'", "'grad_weight'", 'attempt to', 'cannot convert', 'lua/fused/' }
local function refused(f, ...)
  local ok, msg = pcall(function() local r = { f() }; return r end)
  assert(not ok, 'expected an error, got none (' .. table.concat({ ... }, ' ') .. ')')
  msg = tostring(msg)
  assert.truthy(msg:find(HERE), 'not at the caller: ' .. msg)
  for _, part in ipairs({ ... }) do
    assert.truthy(msg:find(part, 1, true), string.format('%q lacks %q', msg, part))
  end
  return msg
end
local function refused_as_user(f, ...)
  local msg = refused(f, ...)
  local fn = msg:gsub(HERE, ''):match('^[%w_:]+')
  for _, word in ipairs(NEVER) do
    if not fn:find(word, 1, true) then -- a function's own name
      assert.falsy(msg:find(word, 1, true), string.format('%q names %q', msg, word))
    end
  end
end

for _, device in ipairs({ 'cpu', 'cuda' }) do
  local run = device == 'cpu' and it or helper.gpu_it
  local o = { dtype = 'float64', device = device }
  local function T(shape, dtype) return fused.randn(shape, o):to(dtype or 'float64') end

  describe('the loud bugs of issue 33 on ' .. device, function()
    run("an h0 of the wrong shape to nn.RNN and nn.LSTM is h0's error, not 'out''s", function()
      local rnn = nn.RNN(3, 2, { cell = janet, dtype = 'float64', device = device })
      refused_as_user(function() return rnn:forward(T({ 4, 2, 3 }), T({ 2, 5 })) end,
        "RNN:forward: argument 'h0' expected shape [1, 2, 2]", 'or [2, 2], got [2, 5]')
      local lstm = nn.LSTM(3, 2, o)
      refused_as_user(function() return lstm:forward(T({ 4, 2, 3 }), T({ 2, 5 })) end,
        "LSTM:forward: argument 'h0' expected shape [1, 2, 2]", 'got [2, 5]')
      refused_as_user(function() return lstm:forward(T({ 4, 2, 3 }), nil, T({ 3, 2 })) end,
        "LSTM:forward: argument 'c0' expected shape [1, 2, 2]", 'got [3, 2]')
    end)

    run("an input of the wrong width to GRUCell and LSTMCell is 'x''s error, not 'w_ih''s", function()
      refused_as_user(function() return nn.GRUCell(3, 2, o):forward(T({ 2, 4 }), T({ 2, 2 })) end,
        "GRUCell:forward: argument 'x' expected B x 3", 'input_size 3', 'got [2, 4]')
      refused_as_user(function() return nn.LSTMCell(3, 2, o):forward(T({ 2, 4 }), T({ 2, 2 }), T({ 2, 2 })) end,
        "LSTMCell:forward: argument 'x' expected B x 3", 'got [2, 4]')
    end)

    run("LLTMCell and LLTM name themselves and 'x', 'h', 'xs', never lltm_forward or 'W'", function()
      local cell = nn.LLTMCell(3, 2, o)
      refused_as_user(function() return cell:forward(T({ 2, 4 }), T({ 2, 2 }), T({ 2, 2 })) end,
        "LLTMCell:forward: argument 'x' expected B x 3", 'input_features 3', 'got [2, 4]')
      refused_as_user(function() return cell:forward(T({ 2, 3 }), T({ 2, 5 }), T({ 2, 2 })) end,
        "LLTMCell:forward: argument 'h' expected shape [2, 2]", 'got [2, 5]')
      refused_as_user(function() return nn.LLTM(3, 2, o):forward(T({ 4, 2, 5 })) end,
        "LLTM:forward: argument 'xs' expected T x B x 3", 'got [4, 2, 5]')
    end)
  end)

  describe('probed bad calls on ' .. device, function()
    local B = 2
    -- {what, function, fragments...}: each found by the probe with a wrong name, a wrong line,
    -- a runtime error or no error at all. forward_names: the message names the forward functions
    -- the user called to make the ctx, or their arguments ('W'), which NEVER holds otherwise.
    local CASES = {
      { 'Linear: an input of the module\'s other float dtype', function()
        return nn.Linear(3, 2, o):forward(T({ B, 3 }, 'float32')) end,
        "Linear:forward: argument 'input' expected float64 on " .. device .. " (the module's), got float32" },
      { 'Linear: an int64 input', function()
        return nn.Linear(3, 2, o):forward(fused.ones({ B, 3 }, { dtype = 'int64', device = device })) end,
        "Linear:forward: argument 'input' expected float32 or float64, got int64" },
      { 'Linear: an extra argument to forward', function()
        return nn.Linear(3, 2, o):forward(T({ B, 3 }), T({ B, 3 })) end,
        'Linear:forward: expected at most 1 arguments, got 2' },
      { 'Linear: an extra argument to the constructor', function() return nn.Linear(3, 2, o, 5) end,
        'Linear: expected at most 3 arguments, got 4' },
      { 'Linear: an infinite size', function() return nn.Linear(math.huge, 2, o) end,
        "Linear: argument 'in_features' expected a positive integer, got inf" },
      { 'Linear: an int64 module', function() return nn.Linear(3, 2, { dtype = 'int64', device = device }) end,
        "Linear: option 'dtype' expected float32 or float64", 'got int64' },
      { 'LayerNorm: a 0-d input', function() return nn.LayerNorm(3, o):forward(T({})) end,
        "LayerNorm:forward: argument 'input' expected a last dim of 3", 'got shape []' },
      { 'Softmax: a dim the input lacks', function() return nn.Softmax(2):forward(T({ 3 })) end,
        "Softmax:forward: argument 'input' expected at least 2 dims (the module's dim 2), got shape [3]" },
      { 'Tanh: an extra argument', function() return nn.Tanh():forward(T({ 3 }), T({ 3 })) end,
        'Tanh:forward: expected at most 1 arguments, got 2' },
      { 'Tanh: a d_output of another dtype than its input', function()
        local m = nn.Tanh(); m:forward(T({ 3 })); return m:backward(T({ 3 }, 'float32')) end,
        "Tanh:backward: argument 'd_output' expected float64 on " .. device, 'got float32' },
      { 'Embedding: an index out of range names the module', function()
        return nn.Embedding(5, 2, o):forward({ 1, 6 }) end,
        "Embedding:forward: argument 'indices' expected integers 1 to 5, got 6 at position 2" },
      { 'Embedding: a d_output of another shape', function()
        local m = nn.Embedding(5, 2, o); m:forward({ 1, 2 }); return m:backward(T({ 3, 2 })) end,
        "Embedding:backward: argument 'd_output' expected shape [2, 2] (the output's), got [3, 2]" },
      { 'CrossEntropyLoss: a target out of range names the module', function()
        return nn.CrossEntropyLoss():forward(T({ B, 3 }), { 1, 4 }) end,
        "CrossEntropyLoss:forward: argument 'targets' expected class indices 1 to 3, got 4" },
      { 'CrossEntropyLoss: no classes', function() return nn.CrossEntropyLoss():forward(T({ B, 0 }), { 1, 1 }) end,
        "CrossEntropyLoss:forward: argument 'logits' expected at least one class", 'got shape [2, 0]' },
      { 'CrossEntropyLoss: a tensor d_loss for a mean', function()
        return nn.CrossEntropyLoss():backward(T({ B, 3 }), { 1, 2 }, T({ 1 })) end,
        "CrossEntropyLoss:backward: argument 'd_loss' expected a number (reduction 'mean'), got tensor" },
      { 'NLLLoss: an extra argument', function() return nn.NLLLoss():forward(T({ B, 3 }), { 1, 2 }, 3) end,
        'NLLLoss:forward: expected at most 2 arguments, got 3' },
      { 'GraphConv: a float32 adjacency', function()
        return nn.GraphConv(3, 2, o):forward(T({ B, B }, 'float32'), T({ B, 3 })) end,
        "GraphConv:forward: argument 'A' expected float64" },
      { 'LSTM: an empty batch', function() return nn.LSTM(3, 2, o):forward(T({ 4, 0, 3 })) end,
        "LSTM:forward: argument 'xs' expected T x B x 3 (T, B >= 1", 'got [4, 0, 3]' },
      { 'LSTM: a number for d_hn', function()
        local m = nn.LSTM(3, 2, o); m:forward(T({ 4, B, 3 })); return m:backward(T({ 4, B, 2 }), 1) end,
        "LSTM:backward: argument 'd_hn' expected a tensor, got number" },
      { 'LSTM: a d_cn of another batch', function()
        local m = nn.LSTM(3, 2, o); m:forward(T({ 4, B, 3 })); return m:backward(T({ 4, B, 2 }), nil, T({ 1, 3, 2 })) end,
        "LSTM:backward: argument 'd_cn' expected shape [1, 2, 2] (forward's cn), got [1, 3, 2]" },
      { 'GRUCell: a grad_c for a cell without one', function()
        local m = nn.GRUCell(3, 2, o); m:forward(T({ B, 3 }), T({ B, 2 })); return m:backward(T({ B, 2 }), T({ B, 2 })) end,
        "GRUCell:backward: argument 'input' is not the input of a forward waiting for its backward" },
      { 'Recurrent: an h0 of another batch', function()
        return nn.Recurrent(nn.LSTMCell(3, 2, o)):forward(T({ 4, B, 3 }), T({ 3, 2 })) end,
        "Recurrent:forward: argument 'h0' expected shape [2, 2]", 'got [3, 2]' },
      { 'Recurrent: xs of the wrong width', function()
        return nn.Recurrent(nn.GRUCell(3, 2, o)):forward(T({ 4, B, 5 })) end,
        "Recurrent:forward: argument 'xs' expected T x B x 3", 'got [4, 2, 5]' },
      { 'Embedding: a list that is not of integers', function() return nn.Embedding(5, 2, o):forward({ 1, 2.5 }) end,
        "Embedding:forward: argument 'indices' expected an integer", 'at indices[2]', 'got 2.5' },
      { 'CrossEntropyLoss: targets that are not a regular list', function()
        return nn.CrossEntropyLoss():forward(T({ B, 3 }), { { 1 }, 2 }) end,
        "CrossEntropyLoss:forward: argument 'targets' is not regular", 'at targets[2]' },
      { 'LayerNorm: a bfloat16 dtype without parameters', function()
        return nn.LayerNorm(3, { elementwise_affine = false, dtype = 'bfloat16', device = device }) end,
        "LayerNorm: option 'dtype' expected float32 or float64", 'got bfloat16' },
      { 'rnn_forward: reverse = 0 (true in Lua: reversed before)', function()
        return F.rnn_forward('gru', T({ 3, B, 3 }), T({ 6, 3 }), T({ 6, 2 }), T({ 6 }), T({ 6 }), T({ B, 2 }), nil, { reverse = 0 }) end,
        "rnn_forward: option 'reverse' expected a boolean, got number" },
      { 'lltm_seq_backward: the ctx of rnn_forward', function()
        local _, _, _, ctx = F.rnn_forward('gru', T({ 3, B, 3 }), T({ 6, 3 }), T({ 6, 2 }), T({ 6 }), T({ 6 }), T({ B, 2 }))
        return F.lltm_seq_backward(ctx, T({ 3, B, 2 })) end,
        "lltm_seq_backward: argument 'ctx' expected the ctx returned by lltm_seq_forward, got the ctx of rnn_forward",
        forward_names = true },
      { 'rnn_backward: the ctx of lltm_forward', function()
        local _, _, ctx = F.lltm_forward(T({ B, 3 }), T({ 6, 5 }), T({ 6 }), T({ B, 2 }), T({ B, 2 }))
        return F.rnn_backward(ctx, T({ 1, B, 2 })) end,
        "rnn_backward: argument 'ctx' expected the ctx returned by rnn_forward, got the ctx of lltm_forward",
        forward_names = true },
      { 'rnn_forward: a cell table whose id is no cell (sized saved from -1 blocks before)', function()
        return F.rnn_forward({ id = 99 }, T({ 3, B, 3 }), T({ 6, 3 }), T({ 6, 2 }), T({ 6 }), T({ 6 }), T({ B, 2 })) end,
        "rnn_forward: argument 'cell' expected 'lltm', 'lstm', 'gru' or a fused.ext.cell, got table" },
      { 'rnn_forward: a cell id of 1.5 (ran the LSTM before)', function()
        return F.rnn_forward({ id = 1.5 }, T({ 3, B, 3 }), T({ 6, 3 }), T({ 6, 2 }), T({ 6 }), T({ 6 }), T({ B, 2 })) end,
        "rnn_forward: argument 'cell' expected", 'got table' },
      { 'lltm_forward: a number where out holds the ctx', function()
        return F.lltm_forward(T({ B, 3 }), T({ 6, 5 }), T({ 6 }), T({ B, 2 }), T({ B, 2 }), { out = { nil, nil, 5 } }) end,
        "lltm_forward: option 'out' expected a ctx of lltm_forward at position 3, got number", forward_names = true },
      { 'Recurrent: an empty sequence (backward returned no d_xs before)', function()
        return nn.Recurrent(nn.GRUCell(3, 2, o)):forward(T({ 0, B, 3 })) end,
        "Recurrent:forward: argument 'xs' expected T x B x 3 (T, B >= 1", 'got [0, 2, 3]' },
      { 'embedding: a 0-d weight (read sizes[-1] and asked for petabytes)', function()
        return F.embedding(fused.tensor({ 1 }, { dtype = 'int64', device = device }), T({})) end,
        "embedding: argument 'weight' expected 2 dims (rows x embedding_dim), got shape []" },
      { 'embedding_backward_accumulate: d_out of another shape', function()
        return F.embedding_backward_accumulate(T({ 3, 2 }), fused.tensor({ 1, 2 }, { dtype = 'int64', device = device }), T({ 5, 2 })) end,
        "embedding_backward_accumulate: argument 'd_out' expected shape [2, 2], got [3, 2]" },
      { 'embedding: an extra argument', function()
        return F.embedding(fused.tensor({ 1 }, { dtype = 'int64', device = device }), T({ 5, 2 }), nil, 1) end,
        'embedding: expected at most 3 arguments, got 4' },
      { 'rnn_backward_accumulate: a gradient of another shape', function()
        local _, _, _, ctx = F.rnn_forward('gru', T({ 3, B, 3 }), T({ 6, 3 }), T({ 6, 2 }), T({ 6 }), T({ 6 }), T({ B, 2 }))
        return F.rnn_backward_accumulate(ctx, T({ 3, B, 2 }), nil, nil, { T({ 6, 3 }), T({ 6, 2 }), T({ 5 }), T({ 6 }) }) end,
        "rnn_backward_accumulate: argument 'grads[3]' expected shape [6]", 'got [5]' },
      { 'lltm_backward_accumulate: a gradWeight of another shape', function()
        local _, _, ctx = F.lltm_forward(T({ B, 3 }), T({ 6, 5 }), T({ 6 }), T({ B, 2 }), T({ B, 2 }))
        return F.lltm_backward_accumulate(ctx, T({ B, 2 }), T({ B, 2 }), T({ 6, 4 }), T({ 6 })) end,
        "lltm_backward_accumulate: argument 'gradWeight' expected shape [6, 5] (as 'W')", 'got [6, 4]',
        forward_names = true },
      { 'lltm_seq_backward: a d_hT of another batch', function()
        local _, _, ctx = F.lltm_seq_forward(T({ 3, B, 3 }), T({ 6, 5 }), T({ 6 }), T({ B, 2 }), T({ B, 2 }))
        return F.lltm_seq_backward(ctx, T({ 3, B, 2 }), T({ 3, 2 })) end,
        "lltm_seq_backward: argument 'd_hT' expected shape [2, 2] (B x H), got [3, 2]" },
      { 'rnn_forward: an extra argument after the options', function()
        return F.rnn_forward('gru', T({ 3, B, 3 }), T({ 6, 3 }), T({ 6, 2 }), T({ 6 }), T({ 6 }), T({ B, 2 }), nil, nil, 1) end,
        'rnn_forward: expected at most 9 arguments, got 10' },
      { 'sgd_step: a table for param', function() return F.sgd_step({}, T({ 3 }), nil, 0.1, 0, 0, 0, false, true) end,
        "sgd_step: argument 'param' expected a tensor, got table" },
      { 'sgd_step: a number for nesterov (taken as true before)', function()
        return F.sgd_step(T({ 3 }), T({ 3 }), T({ 3 }), 0.1, 0.9, 0, 0, 0, true) end,
        "sgd_step: argument 'nesterov' expected a boolean, got number" },
      { 'adam_step: a fractional step', function()
        return F.adam_step(T({ 3 }), T({ 3 }), T({ 3 }), T({ 3 }), 0.1, 0.9, 0.999, 1e-8, 0, false, 1.5) end,
        "adam_step: argument 'step' expected an integer, got 1.5" },
      { 'adam_step: an extra argument', function()
        return F.adam_step(T({ 3 }), T({ 3 }), T({ 3 }), T({ 3 }), 0.1, 0.9, 0.999, 1e-8, 0, false, 1, 2) end,
        'adam_step: expected at most 11 arguments, got 12' },
    }
    for _, case in ipairs(CASES) do
      run(case[1], function()
        if case.forward_names then refused(case[2], unpack(case, 3)) else refused_as_user(case[2], unpack(case, 3)) end
      end)
    end
  end)
end
