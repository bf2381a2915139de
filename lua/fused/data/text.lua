-- A character-level language model's data: any file, read as bytes. The vocabulary is the
-- bytes that occur, numbered from 1 in byte order. The first 90% trains (batch k: B windows
-- at offsets drawn from stream k), the last 10% is held out (fixed windows spread evenly).
-- Inputs are T × B int64 indices, targets the next characters. The baseline is the entropy of
-- the training text's character frequencies (a model that ignores context), in nats/char.
--
--   local task = require('fused.data.text').new{ path =, seq_len =, batch =, seed =, ... }
--   task:encode('abc'), task:decode({ 1, 2 })
--   task.record  -- {bytes =, digest =, vocab = {byte values}}: what a checkpoint keeps of the file
--   text.difference(task, record)  -- how the file differs from a record, in words (nil: it does not)
--   text.vocabulary(record.vocab)  -- encode and decode alone, without the file (for sampling)
local ffi = require 'ffi'
local stream = require 'fused.data.stream'
local hash = require 'fused.ext.hash'
local file = require 'fused.file'

local M = {}
local Task = {}
Task.__index = Task

local HELDOUT_WINDOWS = 64
-- The largest file read: it is held as a Lua string and a code per byte (a larger one failed
-- on 'size of C type is unknown or too large', or ran out of memory minutes in).
local MAX_BYTES = 2 ^ 30

-- A task's vocabulary part: the byte values of vocab (increasing) as characters 1 to n.
local function with_vocabulary(task, bytes)
  local vocab, index = {}, {}
  for i, c in ipairs(bytes) do
    vocab[i], index[c] = string.char(c), i
  end
  task.name, task.vocab, task.index = 'text', vocab, index
  task.input = { kind = 'tokens', vocab = #vocab }
  task.output = { kind = 'every', classes = #vocab, loss = 'CrossEntropyLoss' }
  return setmetatable(task, Task)
end

-- A task that only encodes and decodes, with the vocabulary a checkpoint recorded (a list of
-- increasing byte values, checked by the checkpoint's loader).
function M.vocabulary(bytes) return with_vocabulary({}, bytes) end

function M.new(opts)
  local reader = file.open('text', opts.path) -- refuses a directory, a FIFO or a device (/dev/zero)
  if reader.size > MAX_BYTES then
    reader:close()
    error(string.format('text: %s has %d bytes: a text task reads at most %d (1 GiB)', opts.path,
                        reader.size, MAX_BYTES), 0)
  end
  local text = reader:read(0, reader.size)
  reader:close()
  local T = opts.seq_len
  local split = math.floor(#text * 0.9)
  if split < T + 1 or #text - split < T + 1 then
    error(string.format('text: %s has %d bytes; with --seq-len %d it needs at least %d (90%% to train, 10%% held out, each at least seq-len + 1)',
                        opts.path, #text, T, math.ceil((T + 1) / 0.1)), 0)
  end
  local count, bytes = {}, {}
  for i = 1, #text do
    local c = text:byte(i)
    count[c] = (count[c] or 0) + 1
  end
  for c = 0, 255 do
    if count[c] then bytes[#bytes + 1] = c end
  end
  local entropy = 0
  local train_counts = {}
  for i = 1, split do
    local c = text:byte(i)
    train_counts[c] = (train_counts[c] or 0) + 1
  end
  for _, n in pairs(train_counts) do entropy = entropy - n / split * math.log(n / split) end
  local task = with_vocabulary({
    path = opts.path, seq_len = T, steps = T, batch_size = opts.batch, seed = opts.seed,
    split = split, tensor_opts = { dtype = 'int64', device = opts.device },
    record = { bytes = #text, digest = hash.hex(hash.add(nil, text)), vocab = bytes },
    metric = 'cross-entropy (nats/char)', baseline = entropy,
    baseline_text = 'character frequencies alone',
  }, bytes)
  -- 1-based, as a table would be, in 2 bytes a character (codes run to 256).
  local codes = ffi.new('uint16_t[?]', #text + 1)
  for i = 1, #text do codes[i] = task.index[text:byte(i)] end
  task.codes, task.length = codes, #text
  return task
end

-- Characters as a message shows them: printable ones as they are, others as Lua escapes.
local function shown(bytes)
  local parts = {}
  for i, c in ipairs(bytes) do
    parts[i] = (c >= 32 and c < 127) and string.char(c) or string.format('\\%d', c)
  end
  return "'" .. table.concat(parts) .. "'"
end

-- How the task's file differs from the data a checkpoint recorded (its record), in words, or
-- nil when it is the same.
function M.difference(task, record)
  local now = task.record
  if now.bytes == record.bytes and now.digest == record.digest then return nil end
  local had, has, gone, new = {}, {}, {}, {}
  for _, c in ipairs(record.vocab) do had[c] = true end
  for _, c in ipairs(now.vocab) do
    has[c] = true
    if not had[c] then new[#new + 1] = c end
  end
  for _, c in ipairs(record.vocab) do
    if not has[c] then gone[#gone + 1] = c end
  end
  local words = { now.bytes == record.bytes and string.format('the same size (%d bytes)', now.bytes)
                  or string.format('%d bytes, %d when the checkpoint was saved', now.bytes, record.bytes) }
  if #new > 0 then words[#words + 1] = 'characters not in its vocabulary: ' .. shown(new) end
  if #gone > 0 then words[#words + 1] = 'characters of its vocabulary gone: ' .. shown(gone) end
  if #new + #gone == 0 then words[#words + 1] = 'the same characters; other contents' end
  return table.concat(words, '; ')
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
    local first, span = self.split, self.length - self.split - self.seq_len
    local n = math.max(1, math.min(HELDOUT_WINDOWS, math.floor(span / self.seq_len) + 1))
    local offsets = {}
    for b = 1, n do offsets[b] = first + math.floor((b - 1) * span / n) end
    self.heldout_set = { self:windows(offsets) }
  end
  return self.heldout_set[1], self.heldout_set[2]
end

-- The characters of s as codes; one not in the vocabulary is an error, not another character.
function Task:encode(s)
  local codes = {}
  for i = 1, #s do
    codes[i] = self.index[s:byte(i)]
    if not codes[i] then
      error(string.format("text: the character %s is not in the vocabulary", shown({ s:byte(i) })), 2)
    end
  end
  return codes
end

function Task:decode(codes)
  local chars = {}
  for i, c in ipairs(codes) do chars[i] = self.vocab[c] end
  return table.concat(chars)
end

return M
