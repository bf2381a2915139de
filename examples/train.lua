-- Trains a recurrent model on a sequence task: the adding problem (default), copy memory, or
-- a character-level language model on any text file. `luajit examples/train.lua --help`.
--
-- It runs from a checkout after `make` (lua/ beside examples/ is searched after LUA_PATH, so
-- from any directory), or anywhere once fused is installed. Loaded with dofile() instead, it
-- returns { run = function(argv, opts), ... } for the specs, which train tiny models in-process.
--
-- Reproducible: batch k is drawn from its own stream of the seed (fused.data.stream), so the
-- same seed gives the same losses, and a run resumed from a checkpoint (the parameters, the
-- optimizer's buffers and the step) continues with exactly the losses of the uninterrupted one.
local here = debug.getinfo(1, 'S').source:match('^@(.*/)') or './'
package.path = package.path .. ';' .. here .. '../lua/?.lua;' .. here .. '../lua/?/init.lua'

local ffi = require 'ffi'
local fused = require 'fused'
local file = require 'fused.file'
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
  { 'checkpoint', false, 'string', 'save a checkpoint (safetensors) here at each evaluation' },
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
    name = name or a:match('^%-%-([%w-]+)$')
    if not name then usage_error("unexpected argument '%s' (options start with --)", a) end
    local o = find_option(name)
    if not o then usage_error("unknown option '--%s'", name) end
    if not value then
      i = i + 1
      value = argv[i]
      if value == nil then usage_error("option '--%s' needs a value", name) end
    end
    local kind = o[3]
    if type(kind) == 'table' then
      local ok = false
      for _, choice in ipairs(kind) do ok = ok or choice == value end
      if not ok then
        usage_error("option '--%s' expected one of %s, got '%s'", name, table.concat(kind, ', '),
                    value)
      end
    elseif kind == 'int' or kind == 'number' then
      local n = tonumber(value)
      if not n or n ~= n or (kind == 'int' and n ~= math.floor(n)) then
        usage_error("option '--%s' expected %s, got '%s'", name,
                    kind == 'int' and 'an integer' or 'a number', value)
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
  local function expect(name, ok, what)
    if not ok then usage_error("option '--%s' expected %s, got %s", name, what, opts[name]) end
  end
  for _, name in ipairs({ 'hidden', 'embed', 'seq-len', 'batch', 'steps', 'eval-every',
                          'sample-every', 'sample-len' }) do
    expect(name, opts[name] >= 1, '>= 1')
  end
  expect('threads', opts.threads >= 0, '>= 0')
  expect('steps', opts.steps <= stream.MAX_STEPS, 'at most ' .. stream.MAX_STEPS)
  expect('seed', opts.seed >= 0 and opts.seed <= stream.MAX_SEED, '0 to ' .. stream.MAX_SEED)
  expect('lr', opts.lr > 0, '> 0')
  expect('clip', opts.clip >= 0, '>= 0')
  expect('temperature', opts.temperature > 0, '> 0')
  expect('seq-len', opts.task ~= 'adding' or opts['seq-len'] >= 2, '>= 2 for the adding task')
  if opts.task == 'text' and not opts.data then
    usage_error('--task text needs --data FILE (any text file)')
  end
  if opts.task ~= 'text' and opts.data then usage_error('--data is for --task text') end
  if opts.cell == 'lstm' and not pcall(function() return fused.nn.LSTM end) then
    usage_error('--cell lstm is not available yet (fused.nn.LSTM does not exist); use --cell lltm')
  end
  if opts.device == 'auto' then
    opts.device = fused.cuda.is_available() and 'cuda' or 'cpu'
  elseif opts.device == 'cuda' and not fused.cuda.is_available() then
    usage_error("--device cuda: no CUDA device: %s", fused.cuda.why())
  end
  for _, name in ipairs({ 'checkpoint', 'plot' }) do
    if opts[name] then
      local ok, why = file.can_create(opts[name])
      if not ok then usage_error('--%s %s: cannot write there (%s)', name, opts[name], why) end
    end
  end
  if opts.plot and os.execute('command -v gnuplot >/dev/null 2>&1') ~= 0 then
    usage_error('--plot needs gnuplot, which is not installed (on Debian: apt-get install '
                .. 'gnuplot-nox)')
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
    -- what to store. Without this the default run sits at the baseline ten times longer
    -- (about 2,500 steps instead of 250).
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
    local logits, classes = stream.values(model.head:forward(h))
    local max = -math.huge
    for k = 0, classes - 1 do max = math.max(max, logits[k] / temperature) end
    local weights, sum = {}, 0
    for k = 1, classes do
      weights[k] = math.exp(logits[k - 1] / temperature - max)
      sum = sum + weights[k]
    end
    local r, pick = rng[i - 1] * sum, classes
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

-- Saves a checkpoint to path and returns path. A failure is a warning that returns nil, so that
-- training goes on; at the end of a run (last), where nothing else would keep it, the
-- checkpoint goes to a temporary file instead, whose name is returned.
local function save(r, path, step, heldout, out, last)
  local ok, err = pcall(save_checkpoint, path, r.model, r.optimizer, r.opts, step, heldout)
  if ok then return path end
  local why = string.format('warning: step %d: checkpoint not saved: %s', step,
                            (tostring(err):gsub('^.-:%d+: ', ''))) -- without train.lua's line
  if not last then
    out:write(why, '; training goes on\n')
    return nil
  end
  local fallback = os.tmpname()
  if pcall(save_checkpoint, fallback, r.model, r.optimizer, r.opts, step, heldout) then
    out:write(why, '; saved to ', fallback, ' instead\n')
    return fallback
  end
  os.remove(fallback)
  out:write(why, '\n')
end

-- The checkpoint's tensors and metadata, with its config checked against what was given.
local function read_checkpoint(path, opts, given)
  local ok, tensors, meta = pcall(fused.load, path)
  if not ok then usage_error('--resume: %s', tensors) end
  if meta.format ~= FORMAT then
    usage_error("--resume: %s is not a checkpoint of examples/train.lua (format '%s')", path,
                tostring(meta.format))
  end
  local config = json.decode(meta.config)
  for _, name in ipairs(MODEL_OPTIONS) do
    local saved = config[name]
    if saved == json.null then saved = false end
    if given[name] and opts[name] ~= saved then
      usage_error("--%s %s differs from the checkpoint's %s: a resumed run keeps the model, data "
                  .. 'and optimizer options', name, tostring(opts[name]), tostring(saved))
    end
    opts[name] = saved
  end
  return tensors, meta
end

local function restore(model, optimizer, tensors, meta)
  for _, entry in ipairs(named_modules(model)) do
    local name, module = entry[1], entry[2]
    for _, field in ipairs({ 'weight', 'bias' }) do
      local t = module[field] and tensors['model.' .. name .. '.' .. field]
      if t then module[field]:copy(t:to(module[field].dtype)) end
    end
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

-- One declaration per cdef: another module may have declared one of them already.
pcall(ffi.cdef, 'int isatty(int fd);')
pcall(ffi.cdef, 'char *getcwd(char *buf, size_t size);')
pcall(ffi.cdef, 'typedef struct { long tv_sec; long tv_nsec; } train_timespec;')
pcall(ffi.cdef, 'int clock_gettime(int clock_id, train_timespec *ts);')

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
    elseif final and line ~= '' then
      out:write(line, '\n')
      out:flush()
    end
  end
end

-- Where Ctrl-C saves without --checkpoint: interrupted.safetensors in the current directory,
-- named in full so that the message says where it is.
local function interrupted_path()
  local buf = ffi.new('char[?]', 4096)
  local dir = ffi.C.getcwd(buf, 4096) ~= nil and ffi.string(buf) or '.'
  return dir .. '/interrupted.safetensors'
end

local function plot(log_path, png_path, task, out)
  local script = table.concat({
    "set terminal pngcairo size 900,520",
    string.format("set output '%s'", png_path:gsub("'", "''")),
    "set datafile separator ','",
    "set key top right", "set logscale y", "set grid",
    "set xlabel 'step'", string.format("set ylabel '%s'", task.metric),
    string.format("set title 'fused: %s task'", task.name),
    string.format("plot '%s' using 1:2 with lines lc rgb '#7090c0' title 'training loss', "
                  .. "'' using 1:($3 > 0 ? $3 : NaN) with linespoints lc rgb '#c03030' pt 7 "
                  .. "title 'held-out', "
                  .. "%.17g with lines dt 2 lc rgb '#404040' title 'baseline (%s)'",
                  log_path:gsub("'", "''"), task.baseline, task.baseline_text),
  }, '\n')
  os.remove(png_path)
  local f = io.popen('gnuplot >/dev/null 2>&1', 'w') -- its messages would break the output
  f:write(script, '\n')
  f:close()
  local png = io.open(png_path, 'rb')
  if png then png:close() else out:write('warning: gnuplot did not write ', png_path, '\n') end
  return png ~= nil
end

-- Training -------------------------------------------------------------------------------------

-- Runs a training. argv: the command-line arguments. run_opts (for the specs): out and err
-- (files to print to, default io.stdout and io.stderr), on_step (called with the step number
-- after each step).
-- Returns an exit status (0 done, 1 stopped by a NaN loss, 2 usage error, 130 interrupted)
-- and a result { losses = {[step] = loss}, heldout =, step =, seconds =, checkpoint = (the path
-- of the latest checkpoint saved, if any) } ({ error = } for a usage error).
function M.run(argv, run_opts)
  run_opts = run_opts or {}
  local out = run_opts.out or io.stdout
  local threads = fused.get_num_threads() -- train() sets --threads; the caller gets its own back
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
  fused.set_num_threads(threads)
  if ok then return status, result end
  if getmetatable(status) == UsageError then
    local err = run_opts.err or io.stderr
    err:write('train.lua: ', status.message, '\n(--help lists the options)\n')
    return 2, { error = status.message }
  end
  error(status, 0)
end

-- One training step: the gradients of batch `step`, clipped, and the optimizer's update.
-- Returns the batch's loss; a loss that is not finite is returned before any update.
local function train_step(r, step)
  for _, g in ipairs(r.grads) do g:zero() end
  local xs, ys = r.task:batch(step)
  local loss = forward_backward(r.model, r.task, xs, ys, true)
  if loss ~= loss or loss == math.huge or loss == -math.huge then return loss end
  if r.opts.clip > 0 then fused.optim.clip_grad_norm(r.grads, r.opts.clip) end
  r.optimizer:step()
  return loss
end

-- The task, the model and its optimizer, from the seed or from a checkpoint.
local function setup(opts, ckpt_tensors, ckpt_meta)
  local r = { opts = opts, task = make_task(opts), first = 1 }
  fused.manual_seed(opts.seed)
  r.model = make_model(r.task, opts)
  r.params, r.grads = parameters(r.model)
  local class = ({ adam = 'Adam', rmsprop = 'RMSprop', sgd = 'SGD' })[opts.optim]
  r.optimizer = fused.optim[class](r.params, r.grads, { lr = opts.lr })
  if ckpt_tensors then
    local done
    done, r.heldout = restore(r.model, r.optimizer, ckpt_tensors, ckpt_meta)
    r.first = done + 1
  end
  r.tokens_per_step = (r.task.steps or r.task.seq_len) * opts.batch
  return r
end

-- The CSV log (appended to when a resumed run names the same file), or nil.
local function open_log(opts)
  local log_path = opts.log or (opts.plot and os.tmpname())
  if not log_path then return nil end
  local existing = opts.resume and opts.log and io.open(log_path, 'r')
  if existing then existing:close() end
  local log, err = io.open(log_path, existing and 'a' or 'w')
  if not log then usage_error('--log: %s', err) end
  if not existing then log:write('step,loss,heldout,seconds,tokens_per_s\n') end
  return log, log_path
end

local function describe_run(r, out)
  local opts, task = r.opts, r.task
  local n = 0
  for _, p in ipairs(r.params) do n = n + p:numel() end
  out:write(string.format('%s task, %s cell (%d parameters), hidden %d, T %d, batch %d, %s on %s; '
                          .. '%s lr %g, clip %g, seed %d\n', task.name, opts.cell, n, opts.hidden,
                          task.steps or task.seq_len, opts.batch, opts.dtype, opts.device,
                          opts.optim, opts.lr, opts.clip, opts.seed))
  out:write(string.format('baseline (%s): %.4f %s\n', task.baseline_text, task.baseline,
                          task.metric))
  if r.first > 1 then
    out:write(string.format('resumed from %s at step %d\n', opts.resume, r.first - 1))
  end
end

function M.train(opts, ckpt_tensors, ckpt_meta, out, on_step)
  fused.set_num_threads(opts.threads)
  local r = setup(opts, ckpt_tensors, ckpt_meta)
  local task, model = r.task, r.model
  local log, log_path = open_log(opts)
  describe_run(r, out)
  local show = progress(out, out == io.stdout and ffi.C.isatty(1) == 1)
  local losses, status, last_step, heldout = {}, 0, r.first - 1, r.heldout
  local checkpoint -- where the latest checkpoint went
  local t0, train_seconds = now(), 0 -- all the time, and the training steps' alone

  fused.C.fused_sigint_install()
  local ok, err = pcall(function()
    for step = r.first, opts.steps do
      local t = now()
      local loss = train_step(r, step)
      train_seconds = train_seconds + (now() - t)
      if loss ~= loss or loss == math.huge or loss == -math.huge then
        show(string.format('step %d/%d  loss %s', step, opts.steps, tostring(loss)), true)
        local last = losses[step - 1] and string.format('%.6g', losses[step - 1]) or 'none'
        out:write(string.format('stopped: the loss became %s at step %d (the last finite loss was '
                                .. '%s). Try a lower --lr, or --clip.\n', tostring(loss), step, last))
        status = 1
        return
      end
      losses[step], last_step = loss, step

      local eval_now = step % opts['eval-every'] == 0 or step == opts.steps
      if eval_now then heldout = evaluate(model, task) end
      local done = step - r.first + 1
      local elapsed, rate = now() - t0, done * r.tokens_per_step / train_seconds
      if log then
        log:write(string.format('%d,%.9g,%s,%.3f,%.0f\n', step, loss,
                                eval_now and string.format('%.9g', heldout) or '', elapsed, rate))
      end
      show(string.format('step %d/%d  loss %.4f  held-out %s  %.0f tok/s  ETA %s', step, opts.steps,
                         loss, heldout and string.format('%.4f', heldout) or '-', rate,
                         duration((opts.steps - step) * elapsed / done)), eval_now)
      if task.name == 'text' and step % opts['sample-every'] == 0 then
        local sample = sample_text(model, task, opts['sample-len'], opts.temperature, opts.seed)
        out:write('--- sample at step ', step, ' (temperature ', opts.temperature, ')\n', sample,
                  '\n---\n')
      end
      if opts.checkpoint and eval_now then
        checkpoint = save(r, opts.checkpoint, step, heldout, out, step == opts.steps)
      end
      if on_step then on_step(step) end
      if fused.C.fused_sigint_received() ~= 0 then
        show('', true)
        checkpoint = save(r, opts.checkpoint or interrupted_path(), step, heldout, out, true)
        out:write(string.format('interrupted at step %d: ', step), checkpoint
                  and string.format('checkpoint saved to %s (continue with --resume %s)\n', checkpoint,
                                    checkpoint)
                  or 'no checkpoint saved\n')
        status = 130
        return
      end
    end
  end)
  fused.C.fused_sigint_restore()
  if log then log:close() end
  if not ok then error(err, 0) end

  local result = { losses = losses, heldout = heldout, step = last_step, seconds = now() - t0,
                   checkpoint = checkpoint }
  if status == 0 then
    local verdict = heldout and heldout < task.baseline
      and string.format('%.1fx lower', task.baseline / heldout) or 'no better'
    out:write(string.format('done: %d steps in %s. Held-out %s %.4f against the baseline %.4f '
                            .. '(%s): %s.\n', last_step - r.first + 1, duration(result.seconds),
                            task.metric, heldout or 0 / 0, task.baseline, task.baseline_text,
                            verdict))
    if checkpoint then out:write('checkpoint: ', checkpoint, '\n') end
    if opts.log then out:write('log: ', opts.log, '\n') end
  end
  if opts.plot then
    local plotted = plot(log_path, opts.plot, task, out)
    if not opts.log then os.remove(log_path) end
    if plotted then out:write('plot: ', opts.plot, '\n') end
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
