-- Trains a recurrent model on a sequence task: the adding problem (default), copy memory, or
-- a character-level language model on any text file. `luajit examples/train.lua --help`.
--
-- Runs from a checkout after `make` (from any directory), or anywhere once fused is
-- installed. Loaded with dofile() instead, it returns
-- { run = function(argv, opts) } for the specs, which run short trainings in-process.
-- In a checkout, lua/ beside examples/ is searched after LUA_PATH, so that the script runs
-- from any directory.
local here = debug.getinfo(1, 'S').source:match('^@(.*/)') or './'
package.path = package.path .. ';' .. here .. '../lua/?.lua;' .. here .. '../lua/?/init.lua'

local ffi = require 'ffi'
local fused = require 'fused'
local json = require 'fused.json'
local stream = require 'fused.data.stream'

local M = {}

-- Options -----------------------------------------------------------------------------------

-- Each: name, default, kind ('int', 'number', 'string' or a list of choices), help. A default
-- of false means none; 'auto' defaults are resolved after parsing.
local OPTIONS = {
  { 'task', 'adding', { 'adding', 'copy', 'text' }, 'the task' },
  { 'data', false, 'string', 'text file for --task text' },
  { 'cell', 'lltm', { 'lltm', 'lstm' }, 'recurrent cell' },
  { 'hidden', 64, 'int', 'hidden units' },
  { 'embed', 32, 'int', 'embedding size (copy and text tasks)' },
  { 'seq-len', 100, 'int', 'sequence length T (copy: blanks between the symbols and the recall)' },
  { 'batch', 64, 'int', 'sequences per step' },
  { 'steps', 1000, 'int', 'training steps' },
  { 'lr', 1e-2, 'number', 'learning rate' },
  { 'optim', 'adam', { 'adam', 'rmsprop', 'sgd' }, 'optimizer' },
  { 'clip', 1, 'number', 'clip the gradient norm to this (0: no clipping)' },
  { 'seed', 1, 'int', 'random seed (0 to 1048575): same seed, same losses' },
  { 'device', 'auto', { 'auto', 'cpu', 'cuda' }, 'device (auto: cuda when available)' },
  { 'dtype', 'float32', { 'float32', 'float64' }, 'floating-point type' },
  { 'threads', 1, 'int', 'CPU threads (0: all cores; one is fastest at small sizes)' },
  { 'eval-every', 100, 'int', 'steps between held-out evaluations' },
  { 'checkpoint', false, 'string', 'save a checkpoint (safetensors) here at every evaluation and at the end' },
  { 'resume', false, 'string', 'continue the run saved in this checkpoint' },
  { 'log', false, 'string', 'write the losses to this CSV file' },
  { 'plot', false, 'string', 'plot the losses to this PNG file (needs gnuplot)' },
  { 'sample-every', 200, 'int', 'text task: steps between printed samples' },
  { 'sample-len', 200, 'int', 'text task: characters per sample' },
  { 'temperature', 1, 'number', 'text task: sampling temperature (> 0)' },
}

-- Options that define the model and its data: a resumed run takes them from the checkpoint.
local MODEL_OPTIONS = { 'task', 'data', 'cell', 'hidden', 'embed', 'seq-len', 'batch', 'lr',
                        'optim', 'clip', 'seed', 'dtype' }

local function usage()
  local lines = { 'usage: luajit examples/train.lua [options]', '',
                  'Trains an LLTM on the adding problem by default; options:' }
  for _, o in ipairs(OPTIONS) do
    local kind = type(o[3]) == 'table' and table.concat(o[3], '|') or o[3]:upper()
    local default = o[2] and ('  (default ' .. tostring(o[2]) .. ')') or ''
    lines[#lines + 1] = string.format('  --%-13s %-22s %s%s', o[1], kind, o[4], default)
  end
  lines[#lines + 1] = '  --help                               this text'
  return table.concat(lines, '\n')
end

local UsageError = {}

local function usage_error(fmt, ...)
  error(setmetatable({ message = string.format(fmt, ...) }, UsageError), 0)
end

local function find_option(name)
  for _, o in ipairs(OPTIONS) do if o[1] == name then return o end end
end

-- argv: a list of strings. Returns the options (keys as spelled on the command line) and the
-- set of those given explicitly; raises a UsageError for anything malformed.
function M.parse(argv)
  local opts, given, i = {}, {}, 1
  for _, o in ipairs(OPTIONS) do opts[o[1]] = o[2] end
  while i <= #argv do
    local a = argv[i]
    if a == '--help' or a == '-h' then return nil, 'help' end
    local name, value = a:match('^%-%-([%w-]+)=(.*)$')
    if not name then
      name = a:match('^%-%-([%w-]+)$')
      if not name then usage_error("unexpected argument '%s' (options start with --)", a) end
      if not find_option(name) then usage_error("unknown option '--%s'", name) end
      i = i + 1
      value = argv[i]
      if value == nil then usage_error("option '--%s' needs a value", name) end
    end
    local o = find_option(name)
    if not o then usage_error("unknown option '--%s'", name) end
    local kind = o[3]
    if type(kind) == 'table' then
      local ok = false
      for _, choice in ipairs(kind) do ok = ok or choice == value end
      if not ok then
        usage_error("option '--%s' expected one of %s, got '%s'", name, table.concat(kind, ', '), value)
      end
    elseif kind == 'int' or kind == 'number' then
      local n = tonumber(value)
      if not n or n ~= n or (kind == 'int' and n ~= math.floor(n)) then
        usage_error("option '--%s' expected %s, got '%s'", name, kind == 'int' and 'an integer' or 'a number', value)
      end
      value = n
    end
    opts[name], given[name] = value, true
    i = i + 1
  end
  return opts, given
end

-- Range checks and the options that depend on others.
local function validate(opts)
  local function positive(name)
    if opts[name] < 1 then usage_error("option '--%s' expected >= 1, got %s", name, opts[name]) end
  end
  for _, name in ipairs({ 'hidden', 'embed', 'seq-len', 'batch', 'steps', 'eval-every', 'sample-every', 'sample-len' }) do
    positive(name)
  end
  if opts.threads < 0 then usage_error("option '--threads' expected >= 0, got %d", opts.threads) end
  if opts.steps > stream.MAX_STEPS then usage_error("option '--steps' expected at most %d", stream.MAX_STEPS) end
  if opts.seed < 0 or opts.seed > stream.MAX_SEED then
    usage_error("option '--seed' expected 0 to %d, got %d", stream.MAX_SEED, opts.seed)
  end
  if not (opts.lr > 0) then usage_error("option '--lr' expected > 0, got %s", opts.lr) end
  if not (opts.clip >= 0) then usage_error("option '--clip' expected >= 0, got %s", opts.clip) end
  if not (opts.temperature > 0) then usage_error("option '--temperature' expected > 0, got %s", opts.temperature) end
  if opts.task == 'adding' and opts['seq-len'] < 2 then usage_error("option '--seq-len' expected >= 2 for the adding task") end
  if opts.task == 'text' and not opts.data then usage_error("--task text needs --data FILE (any text file)") end
  if opts.task ~= 'text' and opts.data then usage_error("--data is for --task text") end
  if opts.cell == 'lstm' then
    local ok = pcall(function() return fused.nn.LSTM end)
    if not ok then usage_error("--cell lstm is not available yet (fused.nn.LSTM does not exist); use --cell lltm") end
  end
  if opts.device == 'auto' then
    opts.device = fused.cuda.is_available() and 'cuda' or 'cpu'
  elseif opts.device == 'cuda' and not fused.cuda.is_available() then
    usage_error("--device cuda: no CUDA device: %s", fused.cuda.why())
  end
  if opts.plot and os.execute('command -v gnuplot >/dev/null 2>&1') ~= 0 then
    usage_error("--plot needs gnuplot, which is not installed (Debian: apt-get install gnuplot-nox)")
  end
end

-- The task and the model -----------------------------------------------------------------------

local function make_task(opts)
  local common = { seq_len = opts['seq-len'], batch = opts.batch, seed = opts.seed,
                   dtype = opts.dtype, device = opts.device }
  if opts.task == 'text' then
    common.path = opts.data
    local ok, task = pcall(require('fused.data.text').new, common)
    if not ok then usage_error('%s', task) end
    return task
  end
  return require('fused.data.' .. opts.task).new(common)
end

-- embed (token tasks) -> rnn -> head (a Linear on the last step, or on every step).
local function make_model(task, opts)
  local topts = { dtype = opts.dtype, device = opts.device }
  local H, model = opts.hidden, {}
  local input_size = task.input.size
  if task.input.kind == 'tokens' then
    model.embed = fused.nn.Embedding(task.input.vocab, opts.embed, topts)
    input_size = opts.embed
  end
  model.rnn = opts.cell == 'lstm' and fused.nn.LSTM(input_size, H, topts)
    or fused.nn.LLTM(input_size, H, topts)
  if opts.cell == 'lltm' then
    -- Input gates start mostly shut (bias -3): the LLTM has no forget gate, so its cell state
    -- only adds up; shut gates keep it from drifting over long sequences until the gates learn
    -- what to store. Without this the adding problem at T = 100 stays at the baseline.
    local input_gate = model.rnn.bias:narrow(1, 1, H)
    input_gate:copy(input_gate - 3)
  end
  model.head = fused.nn.Linear(H, task.output.size or task.output.classes, topts)
  model.criterion = fused.nn[task.output.loss]()
  return model
end

-- Modules in a fixed order, with the names their tensors have in a checkpoint.
local function named_modules(model)
  local list = {}
  for _, name in ipairs({ 'embed', 'rnn', 'head' }) do
    if model[name] then list[#list + 1] = { name, model[name] } end
  end
  return list
end

local function parameters(model)
  local params, grads = {}, {}
  for _, entry in ipairs(named_modules(model)) do
    local p, g = entry[2]:parameters()
    for i = 1, #p do params[#params + 1], grads[#grads + 1] = p[i], g[i] end
  end
  return params, grads
end

-- The loss of one batch, and (with backward) the gradients added into the modules.
local function forward_backward(model, task, xs, ys, backward)
  local inputs = model.embed and model.embed:forward(xs) or xs
  local hs, h_T = model.rnn:forward(inputs)
  if task.output.kind == 'last' then
    local pred = model.head:forward(h_T)
    local loss = model.criterion:forward(pred, ys)
    if backward then
      local d_hT = model.head:backward(model.criterion:backward(pred, ys))
      -- Only h_T gets a gradient; the zeros for the other steps are made once.
      if not model.zero_d_hs or model.zero_d_hs:numel() ~= hs:numel() then
        model.zero_d_hs = fused.zeros(hs:shape(), { dtype = hs.dtype, device = hs.device })
      end
      model.rnn:backward(model.zero_d_hs, d_hT)
    end
    return loss
  end
  local logits = model.head:forward(hs)
  local loss = model.criterion:forward(logits, ys)
  if backward then
    local d_inputs = model.rnn:backward(model.head:backward(model.criterion:backward(logits, ys)))
    if model.embed then model.embed:backward(d_inputs) end
  end
  return loss
end

local EVAL_CHUNK = 250 -- held-out sequences per forward: bounds the memory of the activations

-- The held-out metric: the mean loss over the held-out set.
local function evaluate(model, task)
  local xs, ys = task:heldout()
  local n = xs:size(2)
  local total = 0
  for first = 1, n, EVAL_CHUNK do
    local len = math.min(EVAL_CHUNK, n - first + 1)
    local x = xs:narrow(2, first, len):contiguous()
    local y = ys:narrow(task.output.kind == 'last' and 1 or 2, first, len):contiguous()
    total = total + forward_backward(model, task, x, y, false) * len
  end
  model.rnn:clearState()
  return total / n
end

-- Text: a sample of n characters after a newline, drawn at the given temperature (from the
-- seed's SAMPLING stream, so sampling never changes the training batches).
local function sample_text(model, task, n, temperature, seed)
  local rng = stream.uniform(seed, stream.SAMPLING, n)
  local topts = { dtype = model.head.weight.dtype, device = model.head.weight.device }
  local codes = { task.index[('\n'):byte()] or 1 }
  local h, c
  for i = 1, n do
    local x = fused.tensor({ { codes[#codes] } }, topts)
    local _, h_T, c_T = model.rnn:forward(model.embed:forward(x), h, c)
    h, c = h_T, c_T
    local logits = model.head:forward(h):double():totable()[1]
    local max = -math.huge
    for _, v in ipairs(logits) do max = math.max(max, v / temperature) end
    local weights, sum = {}, 0
    for k, v in ipairs(logits) do
      weights[k] = math.exp(v / temperature - max)
      sum = sum + weights[k]
    end
    local r, pick = rng[i - 1] * sum, #weights
    for k, w in ipairs(weights) do
      r = r - w
      if r < 0 then pick = k; break end
    end
    codes[#codes + 1] = pick
  end
  model.rnn:clearState()
  return task:decode(codes):sub(2)
end

-- Checkpoints ----------------------------------------------------------------------------------

local FORMAT = 'fused-train/1'

local function save_checkpoint(path, model, optimizer, opts, step, heldout)
  local tensors = {}
  for _, entry in ipairs(named_modules(model)) do
    local name, module = entry[1], entry[2]
    local p = module:parameters()
    tensors['model.' .. name .. '.weight'] = p[1]
    if module.bias then tensors['model.' .. name .. '.bias'] = p[2] end
  end
  local state = optimizer:state_dict()
  for name, t in pairs(state.tensors) do tensors['optim.' .. name] = t end
  local config = {}
  for _, name in ipairs(MODEL_OPTIONS) do config[name] = opts[name] end
  fused.save(path, tensors, {
    format = FORMAT, config = json.encode(config), step = tostring(step),
    optimizer = json.encode({ step = state.step, hyper = state.hyper }),
    heldout = heldout and string.format('%.17g', heldout) or '',
  })
end

-- The checkpoint's tensors and metadata, with its config checked against what was given.
local function read_checkpoint(path, opts, given)
  local ok, tensors, meta = pcall(fused.load, path)
  if not ok then usage_error('--resume: %s', tensors) end
  if meta.format ~= FORMAT then
    usage_error("--resume: %s is not a checkpoint of examples/train.lua (format '%s')", path, tostring(meta.format))
  end
  local config = json.decode(meta.config)
  for _, name in ipairs(MODEL_OPTIONS) do
    local saved = config[name]
    if saved == json.null then saved = false end
    if given[name] and opts[name] ~= saved then
      usage_error("--%s %s differs from the checkpoint's %s: a resumed run keeps the model, data and optimizer options",
                  name, tostring(opts[name]), tostring(saved))
    end
    opts[name] = saved
  end
  return tensors, meta
end

local function restore(model, optimizer, tensors, meta)
  for _, entry in ipairs(named_modules(model)) do
    local name, module = entry[1], entry[2]
    module.weight:copy(tensors['model.' .. name .. '.weight']:to(module.weight.dtype))
    if module.bias then module.bias:copy(tensors['model.' .. name .. '.bias']:to(module.bias.dtype)) end
  end
  local state = json.decode(meta.optimizer)
  state.tensors = {}
  for name, t in pairs(tensors) do
    local buffer = name:match('^optim%.(.*)$')
    if buffer then state.tensors[buffer] = t end
  end
  optimizer:load_state_dict(state)
  return tonumber(meta.step), tonumber(meta.heldout)
end

-- Output ---------------------------------------------------------------------------------------

local function duration(s)
  if s ~= s or s == math.huge then return '?' end
  if s < 60 then return string.format('%.0fs', s) end
  if s < 3600 then return string.format('%dm%02ds', math.floor(s / 60), math.floor(s % 60)) end
  return string.format('%dh%02dm', math.floor(s / 3600), math.floor(s % 3600 / 60))
end

pcall(ffi.cdef, [[
int isatty(int fd);
typedef struct { long tv_sec; long tv_nsec; } train_timespec;
int clock_gettime(int clock_id, train_timespec *ts);
]])

local now_ts = ffi.new('train_timespec')
local function now() -- seconds, monotonic wall time
  ffi.C.clock_gettime(1, now_ts) -- CLOCK_MONOTONIC
  return tonumber(now_ts.tv_sec) + tonumber(now_ts.tv_nsec) * 1e-9
end

-- A progress line that redraws in place on a terminal; elsewhere, plain lines at evaluations.
local function progress(out, is_tty)
  local last_len = 0
  return function(line, final)
    if is_tty then
      out:write('\r', line, string.rep(' ', math.max(0, last_len - #line)), final and '\n' or '')
      last_len = final and 0 or #line
      out:flush()
    elseif final then
      out:write(line, '\n')
      out:flush()
    end
  end
end

local function plot(log_path, png_path, task, out)
  local script = table.concat({
    "set terminal pngcairo size 900,520",
    string.format("set output '%s'", png_path:gsub("'", "''")),
    "set datafile separator ','",
    "set key top right", "set logscale y", "set grid",
    "set xlabel 'step'", string.format("set ylabel '%s'", task.metric),
    string.format("set title 'fused: %s task'", task.name),
    string.format("plot '%s' using 1:2 with lines lc rgb '#9ab' title 'training loss', "
                  .. "'' using 1:($3 > 0 ? $3 : NaN) with linespoints lc rgb '#c33' pt 7 title 'held-out', "
                  .. "%.17g with lines dt 2 lc rgb '#333' title 'baseline (%s)'",
                  log_path:gsub("'", "''"), task.baseline, task.baseline_text),
  }, '\n')
  local f = io.popen('gnuplot 2>&1', 'w')
  f:write(script, '\n')
  local ok = f:close()
  if ok ~= true and ok ~= 0 then out:write('warning: gnuplot could not write ', png_path, '\n') end
end

-- Training -------------------------------------------------------------------------------------

-- Runs a training. argv: the command-line arguments. run_opts (for the specs): out and err
-- (files to print to, default io.stdout and io.stderr), on_step (called with the step number
-- after each step).
-- Returns an exit status (0 done, 1 stopped by a NaN loss, 2 usage error, 130 interrupted)
-- and a result { losses = {[step] = loss}, heldout =, step =, checkpoint = }.
function M.run(argv, run_opts)
  run_opts = run_opts or {}
  local out = run_opts.out or io.stdout
  local ok, status, result = xpcall(function()
    local opts, given = M.parse(argv)
    if given == 'help' then
      out:write(usage(), '\n')
      return 0, {}
    end
    local meta_tensors, meta
    if opts.resume then meta_tensors, meta = read_checkpoint(opts.resume, opts, given) end
    validate(opts)
    return M.train(opts, meta_tensors, meta, out, run_opts.on_step)
  end, function(err)
    if getmetatable(err) == UsageError then return err end
    return debug.traceback(err, 2)
  end)
  if ok then return status, result end
  if getmetatable(status) == UsageError then
    (run_opts.err or io.stderr):write('train.lua: ', status.message, '\n(--help lists the options)\n')
    return 2, { error = status.message }
  end
  error(status, 0)
end

function M.train(opts, ckpt_tensors, ckpt_meta, out, on_step)
  fused.set_num_threads(opts.threads)
  local task = make_task(opts)
  fused.manual_seed(opts.seed)
  local model = make_model(task, opts)
  local params, grads = parameters(model)
  local optimizer = fused.optim[({ adam = 'Adam', rmsprop = 'RMSprop', sgd = 'SGD' })[opts.optim]](
    params, grads, { lr = opts.lr })
  local first, heldout = 1, nil
  if ckpt_tensors then
    local done
    done, heldout = restore(model, optimizer, ckpt_tensors, ckpt_meta)
    first = done + 1
  end

  local log
  local log_path = opts.log or (opts.plot and os.tmpname())
  if log_path then
    local append = opts.resume and opts.log and io.open(log_path, 'r')
    if append then append:close() end
    log = assert(io.open(log_path, append and 'a' or 'w'))
    if not append then log:write('step,loss,heldout,seconds,tokens_per_s\n') end
  end

  local steps_per_seq = task.steps or task.seq_len
  local tokens_per_step = steps_per_seq * opts.batch
  local n_params = 0
  for _, p in ipairs(params) do n_params = n_params + p:numel() end
  out:write(string.format('%s task, %s cell (%d parameters), hidden %d, T %d, batch %d, %s %s on %s; %s lr %g, clip %g, seed %d\n',
                          task.name, opts.cell, n_params, opts.hidden, steps_per_seq, opts.batch,
                          opts.dtype, 'tensors', opts.device, opts.optim, opts.lr, opts.clip, opts.seed))
  out:write(string.format('baseline (%s): %.4f %s\n', task.baseline_text, task.baseline, task.metric))
  if first > 1 then out:write(string.format('resumed from %s at step %d\n', opts.resume, first - 1)) end

  local show = progress(out, out == io.stdout and ffi.C.isatty(1) == 1)
  local losses, status, last_step = {}, 0, first - 1
  local t0 = now()
  fused.C.fused_sigint_install()
  local function finish()
    fused.C.fused_sigint_restore()
    if log then log:close() end
  end

  local ok, err = pcall(function()
    for step = first, opts.steps do
      for _, g in ipairs(grads) do g:zero() end
      local xs, ys = task:batch(step)
      local loss = forward_backward(model, task, xs, ys, true)
      if loss ~= loss or loss == math.huge or loss == -math.huge then
        show(string.format('step %d/%d  loss %s', step, opts.steps, tostring(loss)), true)
        out:write(string.format('stopped: the loss became %s at step %d (the last finite loss was %s). '
                                .. 'Try a lower --lr, or --clip.\n', tostring(loss), step,
                                losses[step - 1] and string.format('%.6g', losses[step - 1]) or 'none'))
        status = 1
        return
      end
      if opts.clip > 0 then fused.optim.clip_grad_norm(grads, opts.clip) end
      optimizer:step()
      losses[step], last_step = loss, step

      local elapsed = now() - t0
      local rate = (step - first + 1) * tokens_per_step / elapsed
      local eval_now = step % opts['eval-every'] == 0 or step == opts.steps
      if eval_now then heldout = evaluate(model, task) end
      if log then
        log:write(string.format('%d,%.9g,%s,%.3f,%.0f\n', step, loss,
                                eval_now and string.format('%.9g', heldout) or '', elapsed, rate))
      end
      local eta = (opts.steps - step) * tokens_per_step / rate
      show(string.format('step %d/%d  loss %.4f  held-out %s  %.0f tok/s  ETA %s', step, opts.steps,
                         loss, heldout and string.format('%.4f', heldout) or '-', rate, duration(eta)),
           eval_now)
      if task.name == 'text' and step % opts['sample-every'] == 0 then
        out:write('--- sample at step ', step, ' (temperature ', opts.temperature, ')\n',
                  sample_text(model, task, opts['sample-len'], opts.temperature, opts.seed), '\n---\n')
      end
      if opts.checkpoint and eval_now then save_checkpoint(opts.checkpoint, model, optimizer, opts, step, heldout) end
      if on_step then on_step(step) end
      if fused.C.fused_sigint_received() ~= 0 then
        local path = opts.checkpoint or 'interrupted.safetensors'
        save_checkpoint(path, model, optimizer, opts, step, heldout)
        show('', true)
        out:write(string.format('interrupted at step %d: checkpoint saved to %s (continue with --resume %s)\n',
                                step, path, path))
        status = 130
        return
      end
    end
  end)
  finish()
  if not ok then error(err, 0) end

  local result = { losses = losses, heldout = heldout, step = last_step, checkpoint = opts.checkpoint }
  if status == 0 then
    local elapsed = now() - t0
    out:write(string.format('done: %d steps in %s. Held-out %s %.4f against the baseline %.4f (%s): %s.\n',
                            last_step - first + 1, duration(elapsed), task.metric, heldout or 0 / 0,
                            task.baseline, task.baseline_text,
                            heldout and heldout < task.baseline and string.format('%.1fx lower', task.baseline / heldout)
                              or 'no better'))
    if opts.checkpoint then out:write('checkpoint: ', opts.checkpoint, '\n') end
    if opts.log then out:write('log: ', opts.log, '\n') end
    result.seconds = elapsed
  end
  if opts.plot and log_path then
    plot(log_path, opts.plot, task, out)
    out:write('plot: ', opts.plot, '\n')
  end
  return status, result
end

if arg and arg[0] and arg[0]:match('train%.lua$') then
  local ok, status = pcall(M.run, arg)
  if not ok then
    io.stderr:write('train.lua: ', tostring(status), '\n')
    os.exit(1)
  end
  os.exit(status)
end

return M
