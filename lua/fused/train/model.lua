-- The model of a sequence task (fused.data.adding, copy, text): an Embedding for token inputs,
-- a recurrent layer, dropout (if asked) on what the head reads, a Linear head on the last step
-- or on every step (as the task's output says), and the task's loss. A Module whose
-- state_dict is 'embed.weight' (token tasks), 'rnn.weight', 'rnn.bias', 'head.weight',
-- 'head.bias'.
--
--   local model = SequenceModel(task, {cell = 'lltm', num_layers = 1, hidden_size = 64,
--                                      embedding_dim = 32, dropout = 0, dtype =, device =,
--                                      compute =})
--
-- cell: 'lltm', 'lstm' or 'gru' (nn.LLTM, nn.LSTM, nn.GRU, whose parameters are then
-- 'rnn.weight_ih_l0', ...), or a cell of fused.cell.define (nn.RNN over it, its per-unit
-- parameters 'rnn.w_ci_l0', ...); the head reads the last layer's h. heads: the recurrent
-- matrix's (lstm, gru and defined cells that are not linear; default 1). compute: the
-- recurrent layer's (nil, or 'bfloat16': docs/cells.md).
--   local loss = model:loss(xs, ys, true)      -- true: and add the gradients (backward); dropout
--                                              -- (fused.manual_seed's masks) only then
--   local heldout = model:evaluate(task)       -- the mean loss over the held-out set
--   local text = model:sample(task, 200, 1.0, seed, 'The ')  -- text task: 200 characters
--                                                            -- after 'The ' (default '\n'),
--                                                            -- or nil and why not
local Module = require 'fused.nn.Module'
local nn = require 'fused.nn'
local stream = require 'fused.data.stream'
local factory = require 'fused.factory'
local recurrent_args = require 'fused.nn.recurrent_args'

local SequenceModel = Module:extend('SequenceModel')

function SequenceModel:__init(task, opts)
  local topts = { dtype = opts.dtype, device = opts.device }
  local H, input_size = opts.hidden_size, task.input.size
  self.output_kind = task.output.kind
  if task.input.kind == 'tokens' then
    self.embed = nn.Embedding(task.input.vocab, opts.embedding_dim, topts)
    input_size = opts.embedding_dim
  end
  local defined = type(opts.cell) == 'table'
  local class = defined and 'RNN' or ({ lltm = 'LLTM', lstm = 'LSTM', gru = 'GRU' })[opts.cell]
  self.rnn = nn[class](input_size, H, { num_layers = opts.num_layers, dtype = opts.dtype,
                                        device = opts.device, compute = opts.compute,
                                        cell = defined and opts.cell or nil,
                                        heads = SequenceModel.has_heads(opts.cell) and opts.heads
                                                or nil })
  if opts.cell == 'lltm' then
    -- Input gates start mostly shut (bias -3): the LLTM has no forget gate, so its cell state
    -- only adds up; shut gates keep it from drifting over long sequences until the gates learn
    -- what to store. Without this the adding problem sits at the baseline ten times longer
    -- (about 2,500 steps instead of 250).
    self.rnn.bias:narrow(1, 1, H):add_(-3)
  end
  if (opts.dropout or 0) > 0 then self.drop = nn.Dropout(opts.dropout) end
  self.head = nn.Linear(H, task.output.size or task.output.classes, topts)
  self.criterion = nn[task.output.loss]()
end

-- Whether the cell (opts.cell) has a recurrent matrix to cut into heads: not the LLTM's (one
-- joint matrix) nor a linear cell (none).
function SequenceModel.has_heads(cell)
  return cell ~= 'lltm' and not (type(cell) == 'table' and cell.linear)
end

-- The state_dict shapes of SequenceModel(task, opts), {name = {sizes...}}, worked out without
-- building it: what a checkpoint's tensors are checked against before its options allocate
-- anything (a checkpoint of a small model claiming a large one would allocate the large one).
-- spec/train_model_spec.lua holds them to the built model's for every cell.
function SequenceModel.shapes(task, opts)
  local H, L, input_size = opts.hidden_size, opts.num_layers or 1, task.input.size
  local shapes = {}
  if task.input.kind == 'tokens' then
    shapes['embed.weight'] = { task.input.vocab, opts.embedding_dim }
    input_size = opts.embedding_dim
  end
  for l = 0, L - 1 do
    local I = l == 0 and input_size or H
    if opts.cell == 'lltm' then
      local suffix = l == 0 and '' or '_l' .. l
      shapes['rnn.weight' .. suffix], shapes['rnn.bias' .. suffix] = { 3 * H, H + I }, { 3 * H }
    else
      local defined = type(opts.cell) == 'table'
      local GH = (defined and opts.cell.gates or nn[opts.cell == 'lstm' and 'LSTM' or 'GRU'].gates) * H
      shapes['rnn.weight_ih_l' .. l], shapes['rnn.bias_ih_l' .. l] = { GH, I }, { GH }
      if not (defined and opts.cell.linear) then -- a linear cell has no recurrent weights
        shapes['rnn.weight_hh_l' .. l] = { GH, H / (opts.heads or 1) }
        shapes['rnn.bias_hh_l' .. l] = { GH }
      end
      for _, p in ipairs(defined and opts.cell.params or {}) do shapes['rnn.' .. p .. '_l' .. l] = { H } end
    end
  end
  local out = task.output.size or task.output.classes
  shapes['head.weight'], shapes['head.bias'] = { out, H }, { out }
  return shapes
end

-- A lower bound on the bytes one training step of SequenceModel(task, opts) holds at once, at
-- batch sequences, worked out without building anything: {total =, device =} (device: what lives
-- where the model runs; the rest is the batch drawn on the host). The parameters and their
-- gradients, each layer's outputs over the steps, the logits, the batch's and the held-out set's
-- values (drawn as doubles). Counted low so that a refusal is certain (optimizer state, gates
-- and workspaces come on top).
function SequenceModel.step_bytes(task, opts, batch)
  local size = opts.dtype == 'float64' and 8 or 4
  local T, B, H, L = task.steps or task.seq_len, batch, opts.hidden_size, opts.num_layers or 1
  local params = 0
  for _, shape in pairs(SequenceModel.shapes(task, opts)) do
    local n = 1
    for _, d in ipairs(shape) do n = n * d end
    params = params + n
  end
  local classes = task.output.size or task.output.classes
  local device = 2 * params * size + L * T * B * H * size
    + (task.output.kind == 'every' and T * B or B) * classes * size
  local per_sequence = task.input.kind == 'tokens' and 1 or task.input.size
  local host = (B + (task.heldout_size or 0)) * T * per_sequence * 8
  if task.input.kind == 'tokens' then device = device + T * B * opts.embedding_dim * size end
  return { total = device + host, device = device }
end

-- The loss of one batch, and with backward the gradients added into the parameters.
function SequenceModel:loss(xs, ys, backward)
  -- Evaluation mode without backward: dropout off, and no forward waits for a backward that
  -- never comes (docs/nn.md, "Calls and backward").
  self:train(backward and true or false)
  local inputs = self.embed and self.embed:forward(xs) or xs
  local hs, h_n = self.rnn:forward(inputs)
  local drop = self.drop
  if self.output_kind == 'last' then
    -- The last layer's final state (h_n is layers x B x H, or B x H for a one-layer LLTM).
    local last = h_n.ndim == 3 and h_n:size(1) or nil
    local h_T = last and h_n:select(1, last) or h_n
    local pred = self.head:forward(drop and drop:forward(h_T) or h_T)
    local loss = self.criterion:forward(pred, ys)
    if backward then
      local d_hT = self.head:backward(self.criterion:backward(pred, ys))
      if drop then d_hT = drop:backward(d_hT) end
      -- Only h_T gets a gradient: zeros for the other steps and layers, made once.
      local d_hn = d_hT
      if last then
        d_hn = self:buffer_shaped('d_hn', h_n:shape(), h_n, true)
        d_hn:select(1, last):copy_(d_hT)
      end
      self.rnn:backward(self:buffer_shaped('zero_d_hs', hs:shape(), hs, true), d_hn)
    end
    return loss
  end
  local logits = self.head:forward(drop and drop:forward(hs) or hs)
  local loss = self.criterion:forward(logits, ys)
  if backward then
    local d_hs = self.head:backward(self.criterion:backward(logits, ys))
    local d_inputs = self.rnn:backward(drop and drop:backward(d_hs) or d_hs)
    if self.embed then self.embed:backward(d_inputs) end
  end
  return loss
end

local EVAL_CHUNK = 250 -- held-out sequences per forward: bounds the memory of the activations

function SequenceModel:evaluate(task)
  local xs, ys = task:heldout()
  local n, total = xs:size(2), 0
  for first = 1, n, EVAL_CHUNK do
    local len = math.min(EVAL_CHUNK, n - first + 1)
    local x = xs:narrow(2, first, len):contiguous()
    local y = ys:narrow(self.output_kind == 'last' and 1 or 2, first, len):contiguous()
    total = total + self:loss(x, y, false) * len
  end
  self.rnn:clearState()
  return total / n
end

-- n characters after the text prime (default a newline, if the vocabulary has one), each drawn from the softmax of the
-- logits at the given temperature, from the seed's SAMPLING stream (so that sampling never
-- changes the training batches). The prime's characters must be in task.index. Returns the
-- text, or nil, why none can be drawn and what is to blame: 'logits' (one is not finite) or
-- 'temperature' (it makes a finite logit infinite; the softmax of finite logits / temperature
-- is always defined).
function SequenceModel:sample(task, n, temperature, seed, prime)
  local rng = stream.uniform(seed, stream.SAMPLING, n)
  local index_opts = { dtype = 'int64', device = self.head.weight.device }
  local codes = {}
  -- By default a newline, or the vocabulary's first character for a text without one.
  for i, code in ipairs(task:encode(prime or task.index[10] and '\n' or task.vocab[1])) do
    codes[i] = { code }
  end
  local x = factory.tensor(codes, index_opts) -- the prime in one forward, T × 1
  local generated, states = {}, {}
  local n_states = #recurrent_args.names(self.rnn)
  self:eval()
  for i = 1, n do
    local inputs = self.embed:forward(x)
    -- every state carried to the next character (h, and c, n, m, ... of the cell)
    states = { select(2, self.rnn:forward(inputs, unpack(states, 1, n_states))) }
    local h = states[1]
    local last = h.ndim == 3 and h:select(1, h:size(1)) or h
    local logits, classes = stream.values(self.head:forward(last))
    local scaled, max = {}, -math.huge
    for k = 1, classes do
      local logit = logits[k - 1]
      scaled[k] = logit / temperature
      local not_finite = logit ~= logit or math.abs(logit) == math.huge
      local value = not_finite and tostring(logit)
        or math.abs(scaled[k]) == math.huge and string.format('%.6g / temperature %s = %s', logit,
                                                               tostring(temperature), tostring(scaled[k]))
      if value then
        self.rnn:clearState()
        local char = task.vocab[k]
        return nil, string.format('character %d: the logit of %s is %s', i, char:match('^[%g ]$')
                                  and "'" .. char .. "'" or 'byte ' .. char:byte(), value),
               not_finite and 'logits' or 'temperature'
      end
      max = math.max(max, scaled[k])
    end
    local weights, sum = {}, 0
    for k = 1, classes do
      weights[k] = math.exp(scaled[k] - max)
      sum = sum + weights[k]
    end
    local r, pick = rng[i - 1] * sum, classes
    for k, w in ipairs(weights) do
      r = r - w
      if r < 0 then pick = k; break end
    end
    generated[i] = pick
    x = factory.tensor({ { pick } }, index_opts)
  end
  self.rnn:clearState()
  return task:decode(generated)
end

return SequenceModel
