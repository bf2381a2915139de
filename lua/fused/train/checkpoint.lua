-- A training run in one safetensors file, written whole or not at all (fused.save): the model's
-- state_dict as 'model.<name>', the optimizer's state tensors as 'optim.<name>', and as metadata
-- strings the format, the step, the options and the optimizer's step and hyperparameters (JSON),
-- and the latest held-out loss. PyTorch's safetensors reads it; GPU tensors go through the host
-- and load on a CPU-only machine.
--
--   checkpoint.save(path, model, optimizer, {step = 500, options = opts, heldout = 0.01})
--   local run = checkpoint.load(path)       -- {model =, optim =, step =, options =, heldout =}
--   model:load_state_dict(run.model)
--   optimizer:load_state_dict(run.optim)
local ffi = require 'ffi'
local json = require 'fused.json'
local safetensors = require 'fused.safetensors'

local M = {}

M.FORMAT = 'fused-train/2'

-- run: step, options (a table of strings, numbers and booleans), heldout (nil for none).
function M.save(path, model, optimizer, run)
  local tensors = {}
  for name, t in pairs(model:state_dict()) do tensors['model.' .. name] = t end
  local optim = optimizer:state_dict()
  for name, t in pairs(optim.tensors) do tensors['optim.' .. name] = t end
  safetensors.save(path, tensors, {
    format = M.FORMAT, step = tostring(run.step), options = json.encode(run.options),
    optim = json.encode({ step = optim.step, hyper = optim.hyper, params = optim.params }),
    heldout = run.heldout and string.format('%.17g', run.heldout) or '',
  })
end

-- The run saved at path; an error names the file and what is wrong with it.
function M.load(path)
  local tensors, meta = safetensors.load(path)
  if meta.format ~= M.FORMAT then
    error(string.format("checkpoint.load: %s is not a training checkpoint of format '%s' "
                        .. "(format '%s')", path, M.FORMAT, tostring(meta.format)), 0)
  end
  local optim = json.decode(meta.optim)
  optim.tensors = {}
  local run = { model = {}, optim = optim, step = tonumber(meta.step),
                options = json.decode(meta.options), heldout = tonumber(meta.heldout) }
  for name, t in pairs(tensors) do
    local prefix, rest = name:match('^(%a+)%.(.*)$')
    if prefix == 'model' then
      run.model[rest] = t
    elseif prefix == 'optim' then
      optim.tensors[rest] = t
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
