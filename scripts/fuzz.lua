-- Mutation fuzzing of fused.load_npy, fused.load (safetensors) and the th package's torch.load
-- (.t7, lua/fused/th/t7/): `make fuzz N=...` runs it
-- against the ASan build of libfused. Every input must load or fail as spec/fuzz/property.lua
-- says; a crash or a sanitizer report ends the run, leaving its input in the file it names.
--   luajit scripts/fuzz.lua [N [SEED [SAVE_DIR]]]
-- N inputs (as many per reader), the same ones for the same SEED and corpus. Seeds: files fused
-- writes, a few golden files and spec/fuzz/corpus, then every input that gave an error class
-- not seen yet (the pool grows toward new checks). SAVE_DIR/<kind>/ receives the first input
-- of each new class, to pick the corpus kept in spec/fuzz/corpus from.
local ffi = require 'ffi'
local fused = require 'fused'
local dt = require 'fused.dtype'
local property = require 'spec.fuzz.property'

local N = tonumber(arg[1]) or 1000000
local SEED = tonumber(arg[2]) or 1
local SAVE_DIR = arg[3]
local WORK = 'build/fuzz'
ffi.cdef('int getpid(void);')
-- Each input is written to a file, since the readers take a path: in memory where /dev/shm is.
local shm = io.open('/dev/shm', 'rb')
local INPUT = (shm and '/dev/shm' or WORK) .. '/fused-fuzz-' .. ffi.C.getpid() .. '.'
if shm then shm:close() end
local MAX_POOL = 400

local function read(path)
  local f = assert(io.open(path, 'rb'))
  local s = f:read('*a')
  f:close()
  return s
end

local function write(path, bytes)
  local f = assert(io.open(path, 'wb'))
  f:write(bytes)
  f:close()
end

assert(os.execute('mkdir -p ' .. WORK) == 0)

-- Seeds ----------------------------------------------------------------------------------

-- A tensor of random values: normal floats, integers in [-1000, 1000], bools.
local function sample(shape, dtype)
  if dt.is_floating[dt.dtypes[dtype]] then return fused.randn(shape, { dtype = dtype }) end
  local values, n = {}, 1
  for _, size in ipairs(shape) do n = n * size end
  for i = 1, n do
    if dtype == 'bool' then values[i] = math.random() < 0.5
    else values[i] = math.random(-1000, 1000) end
  end
  return fused.tensor(values, { dtype = dtype }):view(shape)
end

-- Small tensors of each dtype and of 0 (a 0-d tensor), 1, 2, 4 and 8 dims, and an empty one,
-- as fused saves them.
local function seeds_npy()
  local seeds, tmp = {}, WORK .. '/seed.npy'
  for id = 0, #dt.dtype_names do
    for _, shape in ipairs({ {}, { 3 }, { 2, 3 }, { 0, 3 }, { 1, 2, 1, 2 }, { 1, 1, 1, 1, 1, 1, 1, 2 } }) do
      if dt.npy_descrs[id] then -- a dtype .npy has (bfloat16 has none)
        fused.save_npy(tmp, sample(shape, dt.dtype_names[id]))
        seeds[#seeds + 1] = read(tmp)
      end
    end
  end
  -- The same header in a version 2.0 and a 3.0 file (4-byte length field).
  local v1 = seeds[1]
  local len = v1:byte(9) + 256 * v1:byte(10)
  for _, major in ipairs({ 2, 3 }) do
    seeds[#seeds + 1] = v1:sub(1, 6)
      .. string.char(major, 0, len % 256, math.floor(len / 256), 0, 0) .. v1:sub(11)
  end
  local golden = io.popen('ls spec/golden/gru_cell/tiny/*.npy spec/golden/lltm_cell/odd/b.npy')
  for path in golden:lines() do seeds[#seeds + 1] = read(path) end
  golden:close()
  return seeds
end

local function seeds_safetensors()
  local seeds, tmp = {}, WORK .. '/seed.safetensors'
  local sets = {
    { { a = fused.randn({ 2, 3 }) } },
    { { w = fused.randn({ 3 }, { dtype = 'float64' }), b = fused.randn({ 2 }),
        s = fused.ones({ 1 }) }, { format = 'pt', step = '12' } },
    { {}, { note = 'empty' } },
    { { s = fused.tensor(2.5), z = fused.zeros({ 0, 3 }), n = sample({}, 'int64') } },
    { { deep = fused.randn({ 1, 1, 1, 1, 1, 1, 1, 2 }, { dtype = 'float64' }) } },
    { { i = sample({ 2, 2 }, 'int64'), m = sample({ 3 }, 'bool'), f = fused.randn({ 2 }) } },
  }
  for _, set in ipairs(sets) do
    fused.save(tmp, set[1], set[2])
    seeds[#seeds + 1] = read(tmp)
  end
  return seeds
end

-- Lua values of each kind .t7 files hold, in the format given.
local function seeds_t7(format)
  local t7 = require 'fused.th.t7'
  local x = fused.randn({ 3, 4 }, { dtype = 'float64' })
  local shared = { 1, 'two' }
  local values = {
    { n = 1.5, s = 'text', yes = true, list = { 1, 2, { 3 } } },
    { x = x, row = x[2], xt = x:t(), f = fused.randn({ 2 }), i = sample({ 3 }, 'int64') },
    { shared, shared, h = fused.randn({ 2 }):half(), m = sample({ 2 }, 'bool'), z = fused.zeros({ 0, 2 }) },
  }
  values[1].self = values[1]
  local seeds = {}
  for _, v in ipairs(values) do seeds[#seeds + 1] = t7.serialize(v, format) end
  return seeds
end

-- Mutations ------------------------------------------------------------------------------

local random = math.random

local function pick(list) return list[random(#list)] end

-- Tokens of both header languages, and bytes that break UTF-8.
local tokens = { ',', '(', ')', '{', '}', '[', ']', "'", '"', ':', ' ', '\n', '\t', '\\', '-',
                 'L', '.', 'e', 'True', 'False', 'true', 'false', 'null', '()', '(,)', '[]',
                 '{}', '""', "''", '0', '-0', '1.0', '\255', '\192\128', '\237\160\128',
                 '\244\144\128\128', '\226\130', '\0' }
-- What a number in a header becomes: other numbers, and values of other types.
local numbers = { '0', '1', '2', '-1', '-0', '0.0', '1.0', '1e0', '1e400', '01', '2L', '8', '16',
                  '9007199254740993', '4294967296', '18446744073709551616', '100000001',
                  '99999999999999999999999999999999', '', '0, null', 'null', '"1"', "'1'", '[]',
                  '()', '{}', 'true', 'True', '1, 1, 1, 1, 1, 1, 1, 1' }
local keys = { 'descr', 'fortran_order', 'shape', 'dtype', 'data_offsets', '__metadata__', 'x',
               '', '<i4', 'BF16', 'f32' }
for id = 0, #dt.dtype_names do -- and each dtype's codes, big-endian too (bfloat16 has no npy code)
  local descr = dt.npy_descrs[id]
  if descr then keys[#keys + 1], keys[#keys + 2] = descr, '>' .. descr:sub(2) end
  keys[#keys + 1] = dt.safetensors_codes[id]
end

-- A position, most often inside the header (where the checks are).
local function position(s)
  if #s == 0 then return 1 end
  if random() < 0.8 then return random(math.min(#s, 200)) end
  return random(#s)
end

local function splice_at(s, i, j, text) return s:sub(1, i - 1) .. text .. s:sub(j) end

-- Each takes the input and the pool of its kind, returns the mutated input.
local mutations = {
  function(s) -- flip a bit
    if #s == 0 then return s end
    local i = position(s)
    return splice_at(s, i, i + 1, string.char(bit.bxor(s:byte(i), bit.lshift(1, random(0, 7)))))
  end,
  function(s) -- set a byte
    if #s == 0 then return s end
    local i = position(s)
    return splice_at(s, i, i + 1, string.char(pick({ 0, 1, 0x7f, 0x80, 0xff, random(0, 255) })))
  end,
  function(s) -- insert a token or random bytes
    local text = random() < 0.7 and pick(tokens) or string.char(random(0, 255), random(0, 255))
    local i = position(s)
    return splice_at(s, i, i, text)
  end,
  function(s) -- delete a range
    local i = position(s)
    return splice_at(s, i, i + random(1, 16), '')
  end,
  function(s) -- duplicate a range
    local i = position(s)
    return splice_at(s, i, i, s:sub(i, i + random(1, 32)))
  end,
  function(s) -- truncate
    return s:sub(1, random(0, #s))
  end,
  function(s, pool) -- splice with another input of the pool
    local other = pick(pool)
    return s:sub(1, random(0, #s)) .. other:sub(random(1, #other + 1))
  end,
  function(s) -- rewrite a number
    local starts = {}
    for i in s:sub(1, 400):gmatch('()%-?%d+') do starts[#starts + 1] = i end
    if #starts == 0 then return s end
    local i = pick(starts)
    local _, j = s:find('^%-?%d+', i)
    return splice_at(s, i, j + 1, pick(numbers))
  end,
  function(s) -- rewrite a quoted string (a key or a dtype)
    local spans = {}
    for i, j in s:sub(1, 400):gmatch("()['\"][%w_<>|]*['\"]()") do spans[#spans + 1] = { i, j } end
    if #spans == 0 then return s end
    local span = pick(spans)
    local quote = s:sub(span[1], span[1])
    return splice_at(s, span[1], span[2], quote .. pick(keys) .. quote)
  end,
  function(s) -- rewrite the header length field: npy bytes 9-10 (or 9-12), safetensors 1-8
    local npy = s:sub(1, 6) == '\147NUMPY'
    local first, width = npy and 9 or 1, npy and (s:byte(7) == 1 and 2 or 4) or 8
    local n = 0
    for k = first + width - 1, first, -1 do n = n * 256 + (s:byte(k) or 0) end
    n = pick({ n + random(-8, 8), n - 1, n + 1, 0, random(0, 2 ^ 16), 10001, 100000001, 2 ^ 32 - 1,
               2 ^ 53 })
    n = math.max(0, n)
    local field = {}
    for k = 1, width do
      field[k] = string.char(n % 256)
      n = math.floor(n / 256)
    end
    return splice_at(s, first, first + width, table.concat(field))
  end,
}

-- The run ----------------------------------------------------------------------------------

-- An error's class: its message without the path, what came, the numbers and the quoted
-- excerpts.
local function class_of(kind, err, path)
  local text = err:sub(#property.readers[kind].name + #path + 5):gsub(',? got .*', '')
    :gsub('^tensor ".-[^\\]": ', '')
  return (text:gsub("'[^']*'", 'Q'):gsub('"[^"]*"', 'Q'):gsub('%d+', '#'))
end

-- The kept corpus (spec/fuzz_corpus_spec.lua replays it) seeds the run too.
local function with_corpus(seeds, kind)
  local list = io.popen('ls spec/fuzz/corpus/' .. kind)
  for name in list:lines() do
    seeds[#seeds + 1] = read('spec/fuzz/corpus/' .. kind .. '/' .. name)
  end
  list:close()
  return seeds
end

local kinds = { 'npy', 'safetensors', 't7', 't7-ascii' }
fused.manual_seed(SEED)
math.randomseed(SEED)
local pools = { npy = with_corpus(seeds_npy(), 'npy'),
                safetensors = with_corpus(seeds_safetensors(), 'safetensors'),
                t7 = with_corpus(seeds_t7('binary'), 't7'),
                ['t7-ascii'] = with_corpus(seeds_t7('ascii'), 't7-ascii') }
local stats, classes, failed, failures = {}, {}, {}, 0
for _, kind in ipairs(kinds) do
  stats[kind] = { inputs = 0, loaded = 0, classes = 0 }
  classes[kind] = {}
  if SAVE_DIR then assert(os.execute('mkdir -p ' .. SAVE_DIR .. '/' .. kind) == 0) end
end
io.stderr:write(string.format('fuzz: %d inputs, seed %d; a crash leaves its input at %s*\n', N,
                              SEED, INPUT))

local start, wall = os.clock(), os.time()
for n = 1, N do
  local kind = kinds[n % #kinds + 1]
  local pool = pools[kind]
  local s = pick(pool)
  for _ = 1, random(1, 3) do s = pick(mutations)(s, pool) end
  local path = INPUT .. kind
  write(path, s)
  local ok, err, problem = property.check(kind, path)
  local st = stats[kind]
  st.inputs = st.inputs + 1
  if problem then
    -- Each kind of failure once: its first input is kept and shown.
    failures = failures + 1
    local class = problem:gsub(path:gsub('%p', '%%%0'), 'PATH'):gsub('%d+', '#'):sub(1, 100)
    if not failed[class] then
      failed[class] = true
      local kept = string.format('%s/failure-%d.%s', WORK, n, kind)
      write(kept, s)
      io.stderr:write(string.format('FAIL %s (input %d, kept at %s): %s\n', kind, n, kept, problem))
    end
  elseif ok then
    st.loaded = st.loaded + 1
  else
    local class = class_of(kind, err, path)
    if not classes[kind][class] then
      classes[kind][class] = true
      st.classes = st.classes + 1
      if #pool < MAX_POOL then pool[#pool + 1] = s end
      if SAVE_DIR then write(string.format('%s/%s/%03d', SAVE_DIR, kind, st.classes), s) end
    end
  end
  if n % 100000 == 0 then
    io.stderr:write(string.format('fuzz: %d inputs, %d s\n', n, os.time() - wall))
  end
end

for _, kind in ipairs(kinds) do os.remove(INPUT .. kind) end
for _, kind in ipairs(kinds) do
  local st = stats[kind]
  print(string.format('%s: %d inputs, %d loaded, %d error classes', kind, st.inputs, st.loaded,
                      st.classes))
end
print(string.format('fuzz: %d inputs in %d s (%.1f s of CPU), %d failures', N, os.time() - wall,
                    os.clock() - start, failures))
os.exit(failures == 0 and 0 or 1)
