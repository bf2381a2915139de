-- A character-level language model's data: any file, read as bytes. The vocabulary is the
-- bytes that occur, numbered from 1 in byte order. The first 90% trains (batch k: B windows
-- at offsets drawn from stream k), the last 10% is held out (fixed windows spread evenly).
-- Inputs are T × B int64 indices, targets the next characters. The baseline is the entropy of
-- the training text's character frequencies (a model that ignores context), in nats/char.
--
--   local task = require('fused.data.text').new{ path =, seq_len =, batch =, seed =, ... }
--   task:encode('abc'), task:decode({ 1, 2 })
local stream = require 'fused.data.stream'

local M = {}
local Task = {}
Task.__index = Task

local HELDOUT_WINDOWS = 64

function M.new(opts)
  local f, err = io.open(opts.path, 'rb')
  if not f then error('text: ' .. err, 0) end
  local text = f:read('*a')
  f:close()
  local T = opts.seq_len
  local split = math.floor(#text * 0.9)
  if split < T + 1 or #text - split < T + 1 then
    error(string.format('text: %s has %d bytes; with --seq-len %d it needs at least %d (90%% to train, 10%% held out, each at least seq-len + 1)',
                        opts.path, #text, T, math.ceil((T + 1) / 0.1)), 0)
  end
  local count, vocab, index = {}, {}, {}
  for i = 1, #text do
    local c = text:byte(i)
    count[c] = (count[c] or 0) + 1
  end
  for c = 0, 255 do
    if count[c] then
      vocab[#vocab + 1] = string.char(c)
      index[c] = #vocab
    end
  end
  local entropy = 0
  local train_counts = {}
  for i = 1, split do
    local c = text:byte(i)
    train_counts[c] = (train_counts[c] or 0) + 1
  end
  for _, n in pairs(train_counts) do entropy = entropy - n / split * math.log(n / split) end
  local codes = {}
  for i = 1, #text do codes[i] = index[text:byte(i)] end
  return setmetatable({
    name = 'text', path = opts.path, seq_len = T, steps = T, batch_size = opts.batch,
    seed = opts.seed, codes = codes, split = split, vocab = vocab, index = index,
    tensor_opts = { dtype = 'int64', device = opts.device },
    input = { kind = 'tokens', vocab = #vocab },
    output = { kind = 'every', classes = #vocab, loss = 'CrossEntropyLoss' },
    metric = 'cross-entropy (nats/char)', baseline = entropy,
    baseline_text = 'character frequencies alone',
  }, Task)
end

-- Windows starting at the given 0-based offsets into codes.
function Task:windows(offsets)
  local T, n = self.seq_len, #offsets
  local xs, ys = stream.host({ T, n }), stream.host({ T, n })
  local x, y = xs.values, ys.values
  for b = 1, n do
    local o = offsets[b]
    for t = 0, T - 1 do
      x[t * n + b - 1] = self.codes[o + t + 1]
      y[t * n + b - 1] = self.codes[o + t + 2]
    end
  end
  return xs:tensor(self.tensor_opts), ys:tensor(self.tensor_opts)
end

function Task:batch(k)
  local u = stream.uniform(self.seed, k, self.batch_size)
  local offsets, span = {}, self.split - self.seq_len -- windows of T + 1 inside the training part
  for b = 1, self.batch_size do offsets[b] = math.floor(u[b - 1] * span) end
  return self:windows(offsets)
end

function Task:heldout()
  if not self.heldout_set then
    local first, span = self.split, #self.codes - self.split - self.seq_len
    local n = math.max(1, math.min(HELDOUT_WINDOWS, math.floor(span / self.seq_len) + 1))
    local offsets = {}
    for b = 1, n do offsets[b] = first + math.floor((b - 1) * span / n) end
    self.heldout_set = { self:windows(offsets) }
  end
  return self.heldout_set[1], self.heldout_set[2]
end

function Task:encode(s)
  local codes = {}
  for i = 1, #s do codes[i] = self.index[s:byte(i)] or 1 end
  return codes
end

function Task:decode(codes)
  local chars = {}
  for i, c in ipairs(codes) do chars[i] = self.vocab[c] end
  return table.concat(chars)
end

return M
