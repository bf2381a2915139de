-- A training run in one safetensors file, written whole or not at all (fused.save): the model's
-- state_dict as 'model.<name>', the optimizer's state tensors as 'optim.<name>', and as metadata
-- strings the format, the step, the options and the optimizer's step and hyperparameters (JSON),
-- the latest held-out loss and, for a text task, its data's record (JSON: size, digest and
-- vocabulary, fused.data.text). PyTorch's safetensors reads it; GPU tensors go through the host
-- and load on a CPU-only machine.
--
--   checkpoint.save(path, model, optimizer, {step = 500, options = opts, heldout = 0.01,
--                                            data = task.record})  -- data: text tasks only
--   local run = checkpoint.load(path)  -- {model =, optim =, step =, options =, heldout =, data =}
--   model:load_state_dict(run.model)
--   optimizer:load_state_dict(run.optim)
local ffi = require 'ffi'
require 'fused' -- the tensors' methods, for a script that loads a checkpoint before anything else
local json = require 'fused.json'
local safetensors = require 'fused.safetensors'
local dtype = require 'fused.dtype'
local stream = require 'fused.data.stream'

local M = {}

M.FORMAT = 'fused-train/2'

-- run: step, options (a table of strings, numbers and booleans), heldout (nil for none), data
-- (nil, or a text task's record: {bytes =, digest =, vocab = {byte values}}).
function M.save(path, model, optimizer, run)
  local tensors = {}
  for name, t in pairs(model:state_dict()) do tensors['model.' .. name] = t end
  local optim = optimizer:state_dict()
  for name, t in pairs(optim.tensors) do tensors['optim.' .. name] = t end
  local data = run.data and json.encode({ bytes = run.data.bytes, digest = run.data.digest,
                                          vocab = setmetatable({ unpack(run.data.vocab) }, json.array) })
  safetensors.save(path, tensors, {
    format = M.FORMAT, step = tostring(run.step), options = json.encode(run.options),
    optim = json.encode({ step = optim.step, hyper = optim.hyper, params = optim.params }),
    heldout = run.heldout and string.format('%.17g', run.heldout) or '', data = data,
  })
end

-- What a checkpoint's metadata field must be: fails with "checkpoint.load: <path>: <what>
-- ..." naming the field.
local function invalid(path, fmt, ...)
  error(string.format('checkpoint.load: %s: ' .. fmt, path, ...), 0)
end

local function is_count(v) return type(v) == 'number' and v >= 0 and v == math.floor(v) and v < math.huge end

-- The first element of t (counted from 1, in C order) that is NaN or infinite, and its value;
-- nil if there is none.
local function first_non_finite(t)
  local values, n = stream.values(t)
  for i = 0, n - 1 do
    local v = values[i]
    if v ~= v or v == math.huge or v == -math.huge then return i + 1, v end
  end
end

-- A metadata field holding JSON of an object, decoded.
local function json_object(path, meta, field)
  local ok, v = pcall(json.decode, meta[field] or 'null')
  if not ok or type(v) ~= 'table' then
    invalid(path, "metadata '%s' expected a JSON object, got %s", field,
            meta[field] and string.format('%q', meta[field]) or 'none')
  end
  return v
end

-- The run saved at path; an error names the file and what is wrong with it: every field is
-- checked here, so that an edited checkpoint is a clear error, not a failure later in training.
-- What only the model can check (its parameters' names and shapes) is load_state_dict's.
function M.load(path)
  local tensors, meta = safetensors.load(path)
  if meta.format ~= M.FORMAT then
    error(string.format("checkpoint.load: %s is not a training checkpoint of format '%s' "
                        .. "(format '%s')", path, M.FORMAT, tostring(meta.format)), 0)
  end
  local step = tonumber(meta.step)
  if not (meta.step or ''):match('^%d+$') or not is_count(step) or step > stream.MAX_STEPS then
    invalid(path, "metadata 'step' expected an integer 0 to %d, got %s", stream.MAX_STEPS,
            meta.step and string.format('%q', meta.step) or 'none')
  end
  local heldout = tonumber(meta.heldout)
  -- A loss: tonumber also reads 'nan', 'inf' and '-1'.
  if meta.heldout ~= '' and not (heldout and heldout >= 0 and heldout < math.huge) then
    invalid(path, "metadata 'heldout' expected a finite number >= 0 or '', got %s",
            meta.heldout and string.format('%q', meta.heldout) or 'none')
  end
  local options = json_object(path, meta, 'options')
  for k, v in pairs(options) do
    local kind = type(v)
    if type(k) ~= 'string' or (kind ~= 'string' and kind ~= 'number' and kind ~= 'boolean') then
      invalid(path, "metadata 'options' expected names with strings, numbers or booleans, got %s = %s",
              tostring(k), kind)
    end
  end
  local optim = json_object(path, meta, 'optim')
  for _, field in ipairs({ 'step', 'params' }) do
    if not is_count(optim[field]) then
      invalid(path, "metadata 'optim' field '%s' expected an integer >= 0, got %s", field,
              tostring(optim[field]))
    end
  end
  if type(optim.hyper) ~= 'table' then
    invalid(path, "metadata 'optim' field 'hyper' expected an object, got %s", type(optim.hyper))
  end
  local data = meta.data and json_object(path, meta, 'data')
  if data then
    if not is_count(data.bytes) or type(data.digest) ~= 'string' or not data.digest:match('^%x+$') then
      invalid(path, "metadata 'data' expected {\"bytes\": a count, \"digest\": hex digits, \"vocab\": "
              .. '[...]}, got bytes %s, digest %s', tostring(data.bytes), tostring(data.digest))
    end
    local vocab = json.is_array(data.vocab) and data.vocab or {}
    for i, c in ipairs(vocab) do
      if not is_count(c) or c > 255 or (i > 1 and c <= vocab[i - 1]) then
        invalid(path, "metadata 'data' field 'vocab' expected increasing byte values (0 to 255), got %s "
                .. 'at %d', tostring(c), i)
      end
    end
    if #vocab == 0 then
      invalid(path, "metadata 'data' field 'vocab' expected a list of byte values, got %s", type(data.vocab))
    end
  end
  optim.tensors = {}
  local run = { model = {}, optim = optim, step = step, options = options, heldout = heldout,
                data = data or nil }
  local names = {}
  for name in pairs(tensors) do names[#names + 1] = name end
  table.sort(names) -- the first bad one in a stable order
  for _, name in ipairs(names) do
    local t = tensors[name]
    local at, v
    if dtype.is_floating[t.scalar_type] then at, v = first_non_finite(t) end
    if at then
      invalid(path, "tensor '%s' holds %s at element %d: a run that diverged (or an edited file), "
              .. 'from which nothing can be resumed or sampled', name, tostring(v), at)
    end
    local prefix, rest = name:match('^(%a+)%.(.+)$')
    if prefix == 'model' then
      run.model[rest] = t
    elseif prefix == 'optim' then
      optim.tensors[rest] = t
    else
      invalid(path, "tensor '%s' expected a name 'model.<parameter>' or 'optim.<buffer>'", name)
    end
  end
  return run
end

-- Saves as save does and returns path. A failure is a warning written to out, and nil is
-- returned, so that training goes on; for the last checkpoint of a run (last), which nothing
-- else would keep, the checkpoint then goes to a temporary file, whose name is returned.
function M.save_or_warn(path, model, optimizer, run, out, last)
  local ok, err = pcall(M.save, path, model, optimizer, run)
  if ok then return path end
  local why = string.format('warning: step %d: checkpoint not saved: %s', run.step,
                            (tostring(err):gsub('^.-:%d+: ', ''))) -- without this file's line
  if not last then
    out:write(why, '; training goes on\n')
    return nil
  end
  local fallback = os.tmpname()
  if pcall(M.save, fallback, model, optimizer, run) then
    out:write(why, '; saved to ', fallback, ' instead\n')
    return fallback
  end
  os.remove(fallback)
  out:write(why, '\n')
end

pcall(ffi.cdef, 'char *getcwd(char *buf, size_t size);')

-- interrupted.safetensors in the current directory, named in full so that a message can say
-- where it is: where a run without a checkpoint path saves on Ctrl-C.
function M.interrupted_path()
  local buf = ffi.new('char[?]', 4096)
  local dir = ffi.C.getcwd(buf, 4096) ~= nil and ffi.string(buf) or '.'
  return dir .. '/interrupted.safetensors'
end

return M
