-- Trains a recurrent model on a sequence task: the adding problem (default), copy memory, or
-- a character-level language model on any text file. `luajit examples/train.lua --help`.
--
-- This is the training loop, for reading; what a script like it reuses is in lua/fused/train/
-- (options, checkpoint, progress, log, the model). It runs from a checkout after `make` (lua/
-- beside examples/ is searched after LUA_PATH, so from any directory), or anywhere once fused
-- is installed. Loaded with dofile() it returns { run = function(argv, opts) } for the specs.
--
-- Reproducible: batch k is drawn from its own stream of the seed (fused.data.stream), so the
-- same seed gives the same losses, and a run resumed from a checkpoint (the model's and the
-- optimizer's state_dict, and the step) continues with exactly the uninterrupted run's losses.
-- `--resume CK` alone goes on with the options the checkpoint recorded, saving to CK (and a log
-- beside it), never where its options say; `--sample CK --prime 'The '` prints what the text
-- model in CK writes after 'The ', in the vocabulary CK keeps, and trains nothing. Everything
-- read from CK is checked before it is used: the tensors against the options before the model
-- is built.
--
-- Under `mpirun -np N` it trains data-parallel (lua/fused/train/parallel.lua): --batch stays the
-- global batch, split evenly, so N processes give one process's losses (with --dropout, up to
-- the masks); rank 0 alone prints.
dofile(debug.getinfo(1, 'S').source:match('^@(.-)[^/]*$') .. 'checkout.lua')

local fused = require 'fused'
local stream = require 'fused.data.stream'
local SequenceModel = require 'fused.train.model'
local checkpoint = require 'fused.train.checkpoint'
local file = require 'fused.file'
local text_data = require 'fused.data.text'
local interrupt = require 'fused.train.interrupt'
local Log = require 'fused.train.log'
local memory = require 'fused.train.memory'
local options = require 'fused.train.options'
local Parallel = require 'fused.train.parallel'
local Progress = require 'fused.train.progress'

local M = {}

local cmd = options.new('luajit examples/train.lua [options]',
                        'Trains an LLTM on the adding problem by default; options:', {
  { 'task', 'adding', { 'adding', 'copy', 'text' }, 'the task' },
  { 'data', false, 'string', 'text file for --task text' },
  { 'cell', 'lltm', 'string',
    'recurrent cell: lltm, lstm, gru, or a file of fused.cell.define (examples/cells/*.lua)' },
  { 'heads', 1, 'int',
    'heads of the recurrent matrix (block-diagonal; lstm, gru and cell files not linear)', min = 1 },
  { 'layers', 1, 'int', 'stacked recurrent layers', min = 1 },
  { 'hidden', 64, 'int', 'hidden units', min = 1 },
  { 'embed', 32, 'int', 'embedding size (copy and text tasks)', min = 1 },
  { 'seq-len', 100, 'int', 'sequence length T (copy: blanks before the recall)', min = 1 },
  { 'batch', 64, 'int', 'sequences per step', min = 1 },
  { 'steps', 1000, 'int', 'training steps', min = 1, max = stream.MAX_STEPS },
  { 'lr', 1e-2, 'number', 'learning rate', above = 0 },
  { 'lr-decay', 'none', { 'none', 'cosine' },
    "cosine: the learning rate falls from --lr to 0 over --steps (PyTorch's CosineAnnealingLR)" },
  { 'optim', 'adam', { 'adam', 'adamw', 'rmsprop', 'sgd' }, 'optimizer' },
  { 'clip', 1, 'number', 'clip the gradient norm to this (0: no clipping)', min = 0 },
  { 'dropout', 0, 'number', 'dropout probability on what the head reads', min = 0, below = 1 },
  { 'seed', 1, 'int', 'random seed (0 to 1048575): same seed, same losses', min = 0,
    max = stream.MAX_SEED },
  { 'device', 'auto', { 'auto', 'cpu', 'cuda' }, 'device (auto: cuda when available)' },
  { 'dtype', 'float32', { 'float32', 'float64' }, 'floating-point type' },
  { 'precision', 'float32', { 'float32', 'bf16' },
    "the recurrent layer's products (bf16: bfloat16 operands, float32 sums; float32)" },
  { 'threads', 1, 'int', 'CPU threads (0: all cores; one is fastest at small sizes)', min = 0,
    max = 1024 },
  { 'eval-every', 100, 'int', 'steps between held-out evaluations', min = 1 },
  { 'checkpoint', false, 'output', 'save a checkpoint (safetensors) here at each evaluation' },
  { 'resume', false, 'string', 'continue the run saved in this checkpoint, with its options' },
  { 'log', false, 'output', 'write the losses to this CSV file' },
  { 'plot', false, 'output', 'plot the losses to this PNG file (needs gnuplot)' },
  { 'sample-every', 200, 'int', 'text task: steps between printed samples', min = 1 },
  { 'sample-len', 200, 'int', 'text task: characters per sample', min = 1, max = 1000000 },
  { 'temperature', 1, 'number', 'text task: sampling temperature', above = 0 },
  { 'sample', false, 'string', 'print a sample of the text model in this checkpoint; no training' },
  { 'prime', false, 'string', 'with --sample: the text it goes on from (default: a newline)' },
})

-- Options that define the model and its data: given with --resume or --sample, they must agree
-- with the checkpoint's.
local MODEL_OPTIONS = { 'task', 'data', 'cell', 'heads', 'layers', 'hidden', 'embed', 'seq-len', 'batch', 'lr',
                        'lr-decay', 'optim', 'clip', 'dropout', 'seed', 'dtype', 'precision' }
-- Options about this machine or this command, not the run: never taken from a checkpoint. The
-- files a run writes are among them: a checkpoint's options may have been edited to name any
-- file, so a resumed run writes only beside the checkpoint it resumes (resumed_outputs).
local NOT_RESUMED = { resume = true, sample = true, prime = true, device = true, threads = true,
                      checkpoint = true, log = true, plot = true }
-- Options of training alone: --sample, which trains nothing, refuses them.
local TRAINING_ONLY = { 'steps', 'eval-every', 'checkpoint', 'log', 'plot', 'sample-every' }
local OPTIMIZERS = { adam = 'Adam', adamw = 'AdamW', rmsprop = 'RMSprop', sgd = 'SGD' }
local usage_error = options.usage_error

-- The run saved in the checkpoint opts[flag] ('resume' or 'sample'): its model options must
-- agree with those given, and its other options not given replace the defaults (run.taken:
-- those that changed something, as '--name value').
local function read_checkpoint(opts, given, flag)
  local ok, run = pcall(checkpoint.load, opts[flag])
  if not ok then usage_error('--%s: %s', flag, (tostring(run):gsub('^.-:%d+: ', ''))) end
  for _, name in ipairs(MODEL_OPTIONS) do
    local saved = run.options[name]
    if given[name] and opts[name] ~= saved then
      usage_error("--%s %s differs from the checkpoint's %s: a run from a checkpoint keeps its "
                  .. 'model, data and optimizer options', name, tostring(opts[name]), tostring(saved))
    end
  end
  local ok_take, taken = pcall(cmd.take, cmd, opts, given, run.options, NOT_RESUMED)
  if not ok_take then
    if not options.is_usage_error(taken) then error(taken, 0) end
    usage_error("--%s %s: the checkpoint's %s", flag, opts[flag], taken.message)
  end
  run.taken = taken
  return run
end

-- Where a resumed run writes, unless the command line says: to the checkpoint it resumes, and,
-- if the run kept a log, to a log of that file name beside it (appended to only if it is one:
-- Log.open). Adds them to run.taken.
local function resumed_outputs(opts, given, run)
  if not given.checkpoint then
    local ok, why = file.can_create(opts.resume)
    if not ok then
      usage_error('--resume %s: cannot save the resumed run there (%s); name another file with '
                  .. '--checkpoint', opts.resume, why)
    end
    opts.checkpoint = opts.resume
    run.taken[#run.taken + 1] = '--checkpoint ' .. opts.resume
  end
  local saved_log = run.options.log
  if not given.log and saved_log then
    local name = saved_log:match('[^/]*$')
    if name == '' or name == '.' or name == '..' then
      usage_error("--resume %s: the checkpoint's option '--log' %s is not a file name; name the log "
                  .. 'with --log', opts.resume, saved_log)
    end
    local dir = opts.resume:match('^(.*)/')
    opts.log = dir and dir .. '/' .. name or name
    run.taken[#run.taken + 1] = '--log ' .. opts.log
  end
end

-- The checkpoint's parameters (and optimizer state) into model (and optimizer): names or
-- shapes that do not fit are the checkpoint's fault, a usage error naming it.
local function load_states(opts, run, model, optimizer)
  local flag = opts.resume and 'resume' or 'sample'
  local ok, err = pcall(function()
    model:load_state_dict(run.model)
    if optimizer then optimizer:load_state_dict(run.optim) end
  end)
  if not ok then usage_error('--%s %s: %s', flag, opts[flag], (tostring(err):gsub('^.-:%d+: ', ''))) end
end

-- The learning rate of step (1 to --steps): --lr, or with --lr-decay cosine PyTorch's
-- CosineAnnealingLR(T_max = --steps, eta_min = 0) stepped once per step; a function of the step
-- alone, so a resumed run continues it.
local function learning_rate(opts, step)
  if opts['lr-decay'] == 'none' then return opts.lr end
  return opts.lr * (1 + math.cos(math.pi * (step - 1) / opts.steps)) / 2
end

local BUILT_IN = { lltm = true, lstm = true, gru = true }
local defined = {} -- --cell FILE's cell, by the file's name: defined once per process

-- The cell --cell names: a built-in one's name, or the cell of fused.cell.define of the
-- definition the file returns given fused.cell (as examples/cells/*.lua do), checked once.
local function cell_of(opts)
  local name = opts.cell
  if BUILT_IN[name] or defined[name] then return defined[name] or name end
  local chunk, why = loadfile(name)
  if not chunk then
    usage_error("option '--cell' expected lltm, lstm, gru or a Lua file of a cell definition, "
                .. 'got %s (%s)', name, (tostring(why):gsub('^cannot open ', '')))
  end
  local ok, cell = pcall(function()
    local def = chunk()
    if type(def) ~= 'function' then
      error(string.format('the file returns %s, not a function of fused.cell returning a cell '
                          .. 'definition (examples/cells/*.lua)', type(def)), 0)
    end
    return fused.cell.define(def(fused.cell))
  end)
  if not ok then usage_error('--cell %s: %s', name, (tostring(cell):gsub('^.-:%d+: ', ''))) end
  if cell.outputs ~= 1 then
    usage_error('--cell %s: its output is %d states side by side; the model\'s head reads one',
                name, cell.outputs)
  end
  defined[name] = cell
  return cell
end

-- The checks that involve more than one option, or the machine (given: the names on the
-- command line).
local function validate(opts, given)
  if opts.task == 'adding' and opts['seq-len'] < 2 then
    usage_error("option '--seq-len' expected >= 2 for the adding task, got %d", opts['seq-len'])
  end
  if opts.task == 'text' and not opts.data then
    usage_error('--task text needs --data FILE (any text file)')
  end
  if opts.task ~= 'text' and opts.data then usage_error('--data is for --task text') end
  if opts.sample and opts.resume then usage_error('--sample and --resume: one or the other') end
  if opts.prime and not opts.sample then usage_error('--prime is for --sample') end
  for _, name in ipairs(TRAINING_ONLY) do
    if opts.sample and given[name] then
      usage_error('--%s is for training: --sample trains nothing and writes no file', name)
    end
  end
  if opts.sample and opts.task ~= 'text' then
    usage_error('--sample %s: a model of the %s task cannot be sampled (only one of --task text)',
                opts.sample, opts.task)
  end
  if opts.device == 'auto' then
    opts.device = fused.cuda.is_available() and 'cuda' or 'cpu'
  elseif opts.device == 'cuda' and not fused.cuda.is_available() then
    usage_error('--device cuda: no CUDA device: %s', fused.cuda.why())
  end
  -- A checkpoint names a cell file only as a record: the code run is the one named here.
  if not BUILT_IN[opts.cell] and not given.cell then
    local flag = opts.resume and 'resume' or 'sample'
    usage_error("--%s %s: the checkpoint's cell is the file %s: name it again with --cell %s (a "
                .. 'checkpoint runs no code it names)', flag, opts[flag], opts.cell, opts.cell)
  end
  local cell = cell_of(opts)
  if opts.heads > 1 and cell == 'lltm' then
    usage_error('--heads %d: the LLTM has no heads (lstm, gru or a --cell file have)', opts.heads)
  elseif opts.heads > 1 and not SequenceModel.has_heads(cell) then
    usage_error('--heads %d: the linear cell of %s has no recurrent weights to cut into heads',
                opts.heads, opts.cell)
  end
  -- a cell whose step reads x needs the layer's input as wide as the state: the embedding
  -- (copy and text tasks), or the adding task's 2 inputs
  if type(cell) == 'table' and cell.reads_x then
    local width = opts.task == 'adding' and 2 or opts.embed
    if width ~= opts.hidden then
      usage_error('--cell %s: its step reads x, the layer\'s input at its unit, so the input '
                  .. 'size must equal --hidden %d; got %s', opts.cell, opts.hidden,
                  opts.task == 'adding' and "the adding task's 2 inputs (use --task copy or text "
                  .. 'with --embed equal to --hidden)' or '--embed ' .. opts.embed)
    end
  end
  if opts.hidden % opts.heads ~= 0 then
    usage_error('--heads %d does not divide --hidden %d: each head has --hidden / --heads units',
                opts.heads, opts.hidden)
  end
  if opts.precision == 'bf16' and opts.dtype ~= 'float32' then
    usage_error('--precision bf16 needs --dtype float32, got %s', opts.dtype)
  end
  -- No file is two of them: a log over the data, a plot over the checkpoint (a resumed run
  -- saves over the checkpoint it resumes, as it should).
  local seen = {}
  for _, name in ipairs({ 'data', 'resume', 'checkpoint', 'log', 'plot' }) do
    local path = opts[name] and (file.canonical(opts[name]) or opts[name])
    local other = path and seen[path]
    if other and not (other == 'resume' and name == 'checkpoint') then
      usage_error('--%s %s: the same file as --%s %s', name, opts[name], other, opts[other])
    end
    if path then seen[path] = seen[path] or name end
  end
  if opts.plot and not Log.have_gnuplot() then
    usage_error('--plot needs gnuplot, which is not installed (on Debian: apt-get install '
                .. 'gnuplot-nox)')
  end
end

-- The SequenceModel options that --cell, --layers, ... say.
local function model_options(opts)
  return { cell = cell_of(opts), heads = opts.heads, num_layers = opts.layers,
           hidden_size = opts.hidden,
           embedding_dim = opts.embed, dropout = opts.dropout, dtype = opts.dtype,
           device = opts.device, compute = opts.precision == 'bf16' and 'bfloat16' or nil }
end

-- The checkpoint's model tensors against the shapes and dtype that its options give the model
-- of task, before the model is built: an edited checkpoint of a small model whose options
-- claim a large one is refused, not allocated.
local function check_tensors(opts, run, task)
  local flag = opts.resume and 'resume' or 'sample'
  local want, problems = SequenceModel.shapes(task, model_options(opts)), {}
  local function text(shape) return #shape == 0 and 'a 0-d tensor' or table.concat(shape, 'x') end
  for name, shape in pairs(want) do
    local t = run.model[name]
    if not t then
      problems[#problems + 1] = string.format("'model.%s' is missing (expected %s)", name, text(shape))
    elseif text(t:shape()) ~= text(shape) or t.dtype ~= opts.dtype then
      problems[#problems + 1] = string.format("'model.%s' is %s %s where the options make %s %s", name,
                                              text(t:shape()), t.dtype, text(shape), opts.dtype)
    end
  end
  for name, t in pairs(run.model) do
    if not want[name] then
      problems[#problems + 1] = string.format("'model.%s' (%s) is not a parameter of the model",
                                              name, text(t:shape()))
    end
  end
  if #problems > 0 then
    table.sort(problems) -- pairs' order is not stable
    usage_error("--%s %s: the tensors do not fit the checkpoint's options (--task %s --cell %s "
                .. '--layers %d --hidden %d --embed %d --dtype %s): %s', flag, opts[flag], opts.task,
                opts.cell, opts.layers, opts.hidden, opts.embed, opts.dtype,
                table.concat(problems, '; '))
  end
end

-- The task of the options. From a checkpoint (run) of a text task: its recorded data decides.
-- --sample uses the recorded vocabulary and reads no file; --resume trains only on the file the
-- run trained on (the same size and digest). A checkpoint from before the data was recorded
-- takes the file as it is now, with a warning (warn(text)).
local function make_task(opts, run, warn)
  local flag = opts.resume and 'resume' or 'sample'
  if run and run.data and opts.sample then return text_data.vocabulary(run.data.vocab) end
  local ok, task = pcall(require('fused.data.' .. opts.task).new, {
    seq_len = opts['seq-len'], batch = opts.batch, seed = opts.seed, path = opts.data,
    dtype = opts.dtype, device = opts.device })
  if not ok then
    local why = tostring(task):gsub('^.-:%d+: ', '')
    if run then usage_error('--%s %s: %s', flag, opts[flag], why) end -- the data it names
    usage_error('%s', why)
  end
  if not (run and opts.task == 'text') then return task end
  if run.data then
    local difference = text_data.difference(task, run.data)
    if difference then
      usage_error("--resume %s: --data %s is not the text the run trained on: %s (the checkpoint "
                  .. 'keeps its size and digest)', opts.resume, opts.data, difference)
    end
    return task
  end
  local embed = run.model['embed.weight']
  local rows = embed and embed.ndim == 2 and embed:size(1)
  if rows ~= #task.vocab then
    usage_error('--%s %s: the checkpoint records no vocabulary (saved before checkpoints kept one), '
                .. 'and --data %s has %d characters where its model has %s: the file has changed',
                flag, opts[flag], opts.data, #task.vocab, tostring(rows))
  end
  warn(string.format('warning: %s records no vocabulary (saved before checkpoints kept one): the '
                     .. 'characters of --data %s as it is now are taken for its model\'s; if the '
                     .. 'file has changed since, %s\n', opts[flag], opts.data, opts.sample
                     and 'the sample is in the wrong characters' or 'the run goes on with other data'))
  return task
end

-- A run whose step cannot fit in this machine's memory (RAM and swap; on CUDA the host's part)
-- is refused before anything is allocated, naming the options that size it.
local function check_memory(opts, task)
  local have = memory.host_bytes()
  local need = SequenceModel.step_bytes(task, model_options(opts), opts.batch)
  local host = opts.device == 'cuda' and need.total - need.device or need.total
  if have and host > have then
    local embed = task.input.kind == 'tokens' and ' --embed ' .. opts.embed or ''
    local remedy = opts.resume and 'this machine cannot resume it'
      or 'a smaller --batch, --seq-len, --hidden' .. (embed ~= '' and ', --layers or --embed' or ' or --layers')
      .. ' fits'
    usage_error('%s--batch %d --seq-len %d --hidden %d --layers %d%s: one training step needs at '
                .. 'least %s (the parameters, the activations of a batch and the held-out set) and '
                .. 'this machine has %s of memory (RAM and swap): %s',
                opts.resume and "--resume " .. opts.resume .. ": the checkpoint's " or '', opts.batch,
                opts['seq-len'], opts.hidden, opts.layers, embed, memory.text(host), memory.text(have),
                remedy)
  end
end

-- The task and a fresh model for it, as the options say; from a checkpoint (run), its tensors
-- checked against them first, and a training run's size against the memory.
local function build(opts, run, warn)
  local task = make_task(opts, run, warn)
  if run then check_tensors(opts, run, task) end
  if not opts.sample then check_memory(opts, task) end
  fused.manual_seed(opts.seed)
  return task, SequenceModel(task, model_options(opts))
end

-- Why model:sample drew nothing, by what it blames.
local SAMPLE_BLAME = {
  temperature = 'the logits divided by --temperature must be finite: a larger one keeps them so',
  logits = "the model's logits must be finite",
}

-- --sample: the prime, then what the checkpoint's model writes after it.
local function sample(opts, run, out, err)
  local task, model = build(opts, run, function(text) err:write(text) end)
  load_states(opts, run, model)
  local prime = opts.prime or ''
  for i = 1, #prime do
    if not task.index[prime:byte(i)] then
      local char = prime:sub(i, i)
      usage_error("--prime: '%s' does not occur in %s, the text the model learnt",
                  char:match('^[%g ]$') and char or '\\' .. char:byte(), opts.data)
    end
  end
  local text, why, blame = model:sample(task, opts['sample-len'], opts.temperature, opts.seed,
                                        prime ~= '' and prime or nil)
  if not text then usage_error('--sample %s: no sample: %s (%s)', opts.sample, why, SAMPLE_BLAME[blame]) end
  out:write(prime, text, '\n')
  return 0, {}
end

local function train(opts, resumed, out, on_step, par)
  local task, model = build(opts, resumed, function(text) out:write(text) end)
  local params, grads = model:parameters()
  local dp = par:wrap(model) -- averages the gradients over the processes
  local optimizer = fused.optim[OPTIMIZERS[opts.optim]](params, grads, { lr = opts.lr })
  local first, heldout = 1, nil
  if resumed then
    load_states(opts, resumed, model, optimizer)
    first, heldout = resumed.step + 1, resumed.heldout
  end

  local n, T = 0, task.steps or task.seq_len
  for _, p in ipairs(params) do n = n + p:numel() end
  out:write(string.format('%s task, %s cell (%d parameters), hidden %d, T %d, batch %d, %s%s on '
                          .. '%s; %s lr %g%s, clip %g, dropout %g, seed %d\n', task.name, opts.cell,
                          n, opts.hidden, T, opts.batch, opts.dtype,
                          opts.precision == 'bf16' and ' (bf16 products)' or '', opts.device,
                          opts.optim, opts.lr,
                          opts['lr-decay'] == 'none' and '' or ' (' .. opts['lr-decay'] .. ' decay)',
                          opts.clip, opts.dropout, opts.seed))
  out:write(par:describe() or '')
  out:write(string.format('baseline (%s): %.4f %s\n', task.baseline_text, task.baseline,
                          task.metric))
  if resumed then
    out:write(string.format('resumed from %s at step %d, to step %d; from the checkpoint: %s\n',
                            opts.resume, first - 1, opts.steps,
                            #resumed.taken > 0 and table.concat(resumed.taken, ' ') or 'defaults'))
  end

  local log_path = opts.log or (opts.plot and os.tmpname()) -- the plot is drawn from a log
  local log
  if log_path then
    local ok, opened = pcall(Log.open, log_path, { append = opts.resume and opts.log })
    if not ok then usage_error('--log %s: %s', log_path, (tostring(opened):gsub('^Log%.open: ', ''))) end
    log = opened
  end
  local progress = Progress.new(out, { steps = opts.steps, first = first,
                                       tokens_per_step = T * opts.batch })
  local losses, last_step, saved = {}, first - 1, nil
  local function save(path, step, last) -- returns where it went, or nil
    if not par.main then return nil end
    local run = { step = step, options = opts, heldout = heldout,
                  data = task.record } -- the text task's: its vocabulary and a digest of its file
    local where = checkpoint.save_or_warn(path, model, optimizer, run, out, last)
    saved = where or saved
    return where
  end

  local done, status = interrupt.catching(function()
    for step = first, opts.steps do
      progress:start()
      model:zeroGradParameters()
      -- task:batch(step) reseeds fused's generator for the step's stream, so that dropout's
      -- masks, drawn from it next, depend on the seed and the step alone, as the batch does.
      local xs, ys = par:shard(task, task:batch(step))
      local loss = model:loss(xs, ys, true)
      dp:synchronize()
      loss = par:mean(loss)
      if loss ~= loss or math.abs(loss) == math.huge then
        local last = losses[step - 1] and string.format('%.6g', losses[step - 1]) or 'none'
        progress:line(string.format('step %d/%d  loss %s', step, opts.steps, tostring(loss)), true)
        out:write(string.format('stopped: the loss became %s at step %d (the last finite loss '
                                .. 'was %s). Try a lower --lr, or --clip.\n', tostring(loss), step,
                                last))
        return 1
      end
      if opts.clip > 0 then fused.optim.clip_grad_norm(grads, opts.clip) end
      optimizer.lr = learning_rate(opts, step)
      optimizer:step()
      progress:stop()
      losses[step], last_step = loss, step

      local eval_now = step % opts['eval-every'] == 0 or step == opts.steps
      if eval_now then heldout = model:evaluate(task) end
      if log then
        log:write(step, loss, eval_now and heldout, progress:elapsed(), progress:rate(step))
      end
      progress:show(step, loss, heldout, eval_now)
      if task.name == 'text' and step % opts['sample-every'] == 0 then
        local text, why, blame = model:sample(task, opts['sample-len'], opts.temperature, opts.seed)
        if text then
          out:write('--- sample at step ', step, ' (temperature ', opts.temperature, ')\n', text,
                    '\n---\n')
        else -- a sample is not the run: it goes on (and stops at a loss that is not finite)
          out:write(string.format('warning: step %d: no sample: %s (%s); training goes on\n', step,
                                  why, SAMPLE_BLAME[blame]))
        end
      end
      if opts.checkpoint and eval_now then save(opts.checkpoint, step, step == opts.steps) end
      if on_step then on_step(step) end
      if interrupt.received() then
        progress:line('', true)
        local where = save(opts.checkpoint or checkpoint.interrupted_path(), step, true)
        out:write(string.format('interrupted at step %d: ', step), where and string.format(
                    'checkpoint saved to %s (continue with --resume %s)\n', where, where)
                  or 'no checkpoint saved\n')
        return 130
      end
    end
    return 0
  end)
  if log then log:close() end
  if not done then error(status, 0) end

  local seconds = progress:elapsed()
  if status == 0 then
    local verdict = heldout and heldout < task.baseline
      and string.format('%.1fx lower', task.baseline / heldout) or 'no better'
    out:write(string.format('done: %d steps in %s. Held-out %s %.4f against the baseline %.4f '
                            .. '(%s): %s.\n', last_step - first + 1, Progress.duration(seconds),
                            task.metric, heldout or 0 / 0, task.baseline, task.baseline_text,
                            verdict))
    if saved then out:write('checkpoint: ', saved, '\n') end
    if opts.log then out:write('log: ', opts.log, '\n') end
  end
  if opts.plot then
    local plotted = Log.plot(log_path, opts.plot, { title = 'fused: ' .. task.name .. ' task',
      ylabel = task.metric, baseline = task.baseline, baseline_text = task.baseline_text })
    if not opts.log then os.remove(log_path) end
    out:write(plotted and 'plot: ' or 'warning: gnuplot did not write ', opts.plot, '\n')
  end
  return status, { losses = losses, heldout = heldout, baseline = task.baseline, step = last_step,
                   seconds = seconds, checkpoint = saved }
end

-- The task and a fresh model that argv describes, for scripts that evaluate a checkpoint in
-- other ways (bench/bf16_convergence.lua). Raises a usage error as run reports it.
function M.build(argv)
  local opts, given = cmd:parse(argv)
  validate(opts, given)
  return build(opts)
end

-- Runs a training, or prints a sample (--sample). argv: the command-line arguments. run_opts
-- (for the specs): out and err (files to print to, default io.stdout and io.stderr), on_step
-- (called with the step number after each step). Returns an exit status (0 done, 1 stopped by
-- a NaN loss, 2 usage error, 130 interrupted) and { losses = {[step] = loss}, heldout =,
-- baseline = (the task's), step =, seconds =, checkpoint = (the latest saved, if any) }
-- ({ error = } for a usage error).
function M.run(argv, run_opts)
  run_opts = run_opts or {}
  local out = run_opts.out or io.stdout
  local threads = fused.get_num_threads() -- --threads is the run's; the caller gets its own back
  local ok, status, result = xpcall(function()
    local opts, given = cmd:parse(argv)
    if given.help then
      out:write(cmd:usage(), '\n')
      return 0, {}
    end
    local flag = (opts.resume and 'resume') or (opts.sample and 'sample')
    local saved = flag and read_checkpoint(opts, given, flag)
    if opts.resume then resumed_outputs(opts, given, saved) end
    validate(opts, given)
    local par = Parallel.new(opts.batch)
    if not par.main then -- rank 0 alone prints, logs, plots and saves
      out, opts.log, opts.plot, opts.checkpoint = Parallel.null, false, false, false
    end
    fused.set_num_threads(opts.threads)
    if opts.sample then return sample(opts, saved, out, run_opts.err or io.stderr) end
    if opts.resume and saved.step >= opts.steps then
      out:write(string.format('%s: the run is finished (step %d of --steps %d); nothing to '
                              .. 'train, a larger --steps trains on\n', opts.resume, saved.step,
                              opts.steps))
      return 0, { losses = {}, step = saved.step }
    end
    return train(opts, saved, out, run_opts.on_step, par)
  end, function(e) return options.is_usage_error(e) and e or debug.traceback(e, 2) end)
  fused.set_num_threads(threads)
  if ok then return status, result end
  if not options.is_usage_error(status) then error(status, 0) end
  local err = run_opts.err or io.stderr
  err:write('train.lua: ', status.message, '\n(--help lists the options)\n')
  return 2, { error = status.message }
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
