-- PyTorch's examples/word_language_model ported with a forward only (its backward derived by
-- the tape), trained as make.py trains PyTorch's. dofile(this) gives { Model = the class,
-- train = train }: train(dir) runs the 20 steps from dir/reference.safetensors' initial
-- weights and data and returns
-- { model, losses, norms, grads = {[PyTorch's name] = {a clipped gradient per step}} }.
-- spec/autograd_word_lm_spec.lua compares them; make.py check saves the model and loads it
-- into PyTorch.
local fused = require 'fused'
local nn = fused.nn

local NTOKEN, NINP, NHID, NLAYERS, DROPOUT = 13, 8, 8, 2, 0
local BPTT, BATCH, STEPS, LR, CLIP = 5, 3, 20, 0.5, 0.25
local o = { dtype = 'float64' }

local RNNModel = nn.Module:extend('RNNModel')

function RNNModel:__init(ntoken, ninp, nhid, nlayers, dropout)
  self.ntoken = ntoken
  self.drop = nn.Dropout(dropout)
  self.encoder = nn.Embedding(ntoken, ninp, o)
  self.rnn = nn.LSTM(ninp, nhid, { num_layers = nlayers, dropout = dropout, dtype = 'float64' })
  self.decoder = nn.Linear(nhid, ntoken, o)
  self.decoder.weight = self.encoder.weight -- tied
end

-- No backward: the tape derives it (one Dropout called twice, the LSTM's own backward inside).
function RNNModel:forward(input, h0, c0)
  local emb = self.drop(self.encoder(input))
  local output, h_n, c_n = self.rnn:forward(emb, h0, c0)
  output = self.drop(output)
  local decoded = self.decoder(output):view(-1, self.ntoken)
  return decoded:log_softmax(2), h_n, c_n
end

-- The gradient of the parameter PyTorch names `name` (rnn.weight_ih_l0: model.rnn.grad.weight_ih_l0).
local function grad_of(model, name)
  local m, last = model, nil
  for part in name:gmatch('[^.]+') do
    if last then m = m[last] end
    last = part
  end
  return m.grad[last]
end

local function train(dir)
  local ref = fused.load(dir .. 'reference.safetensors')
  fused.manual_seed(0)
  local model = RNNModel(NTOKEN, NINP, NHID, NLAYERS, DROPOUT)
  local init = {}
  for name, t in pairs(ref) do
    if not (name:match('^grad%.') or name:match('^final%.') or name == 'data' or name == 'losses' or name == 'norms') then
      init[name] = t
    end
  end
  model:load_state_dict(init) -- both tied keys, as PyTorch's state_dict has them
  local data = ref.data:add(1) -- PyTorch's tokens count from 0
  local criterion = nn.NLLLoss()
  local h = fused.zeros({ NLAYERS, BATCH, NHID }, o)
  local c = fused.zeros({ NLAYERS, BATCH, NHID }, o)
  local result = { model = model, losses = {}, norms = {}, grads = {} }
  for name in pairs(ref) do
    if name:match('^grad%.') then result.grads[name:sub(6)] = {} end
  end
  local params, grads = model:parameters()
  for step = 1, STEPS do
    local i = (step - 1) * BPTT + 1
    local x = data:narrow(1, i, BPTT):contiguous()
    local targets = data:narrow(1, i + 1, BPTT):contiguous():view(-1)
    model:zero_grad()
    local output, h_n, c_n = model:forward(x, h, c)
    h, c = h_n:clone(), c_n:clone() -- repackage_hidden: the next step starts from these values
    result.losses[step] = criterion:forward(output, targets)
    model:backward(criterion:backward(output, targets))
    result.norms[step] = fused.optim.clip_grad_norm(params, CLIP)
    for name, list in pairs(result.grads) do list[step] = grad_of(model, name):clone() end
    for k, p in ipairs(params) do p:add_(grads[k], { alpha = -LR }) end
  end
  return result
end

return { Model = RNNModel, train = train }
