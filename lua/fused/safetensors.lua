-- Checkpoints in the safetensors format, which PyTorch's `safetensors` reads and writes:
--   8 bytes: N, the header's length (unsigned, little-endian)
--   N bytes: a JSON object {name: {"dtype": "F32"|"F64"|"I64"|"BOOL", "shape": [...],
--            "data_offsets": [begin, end]}, "__metadata__": {string: string}}
--   the data: each tensor's bytes, little-endian, C order, at [begin, end) of this part
--   (a bool is one byte, 0 or 1).
--
-- fused.save(path, {name = tensor, ...}, metadata) writes a new file and renames it over path
-- (fused.file), so a crash never leaves a half-written checkpoint; a symlink at path is
-- followed and an existing file keeps its mode. fused.load reads each tensor's data straight
-- into its storage, so checkpoints over 1 GiB load as well. Device tensors are saved through a host
-- copy, so a checkpoint made on a GPU loads on a CPU-only machine. metadata values must be
-- strings (the format says so): encode anything else yourself (json.encode, tostring).
-- fused.load(path) returns {name = tensor} (CPU tensors) and the metadata table ({} if none).
-- "F16" and "BF16" tensors (PyTorch's half-precision checkpoints) load as float16 and
-- bfloat16, bit for bit. fused.load(path, {dtype = 'float32'}) converts every floating tensor
-- to that dtype; integer and bool tensors stay as they are.
local ffi = require 'ffi'
local json = require 'fused.json'
local tensor = require 'fused.tensor'
local argcheck = require 'fused.check'
local factory = require 'fused.factory'
local dt = require 'fused.dtype'
local file = require 'fused.file'
local options = require 'fused.options'

local M = {}

-- The codes fused reads, for messages: '"F32", "F64", "I64", "BOOL", "BF16" or "F16"'.
local CODES = dt.one_of(dt.safetensors_codes, '"')

-- The file's numbers are little-endian: this code copies bytes as they are.
assert(ffi.abi('le'), 'fused.safetensors: big-endian hosts are not supported')

local function u64le(n)
  local bytes = {}
  for i = 1, 8 do
    bytes[i] = string.char(n % 256)
    n = math.floor(n / 256)
  end
  return table.concat(bytes)
end

function M.save(path, named, metadata)
  if type(path) ~= 'string' then
    error("save: argument 'path' expected a string, got " .. type(path), 2)
  end
  if type(named) ~= 'table' then
    error("save: argument 'tensors' expected a table {name = tensor}, got " .. type(named), 2)
  end
  if metadata ~= nil and type(metadata) ~= 'table' then
    error("save: argument 'metadata' expected a table of strings, got " .. type(metadata), 2)
  end
  for k, v in pairs(metadata or {}) do
    if type(k) ~= 'string' or type(v) ~= 'string' then
      error(string.format("save: argument 'metadata' expected string keys and values, got %s = %s "
                          .. "(%s)", tostring(k), tostring(v), type(v)), 2)
    end
  end
  -- float64 first, then by name: every tensor's data starts aligned to its element size.
  local names = {}
  for name, t in pairs(named) do
    if type(name) ~= 'string' or name == '__metadata__' then
      error("save: argument 'tensors' expected string names other than '__metadata__', got "
            .. tostring(name), 2)
    end
    argcheck.expect(t, 'save', 'tensors.' .. name)
    names[#names + 1] = name
  end
  table.sort(names, function(a, b)
    local sa, sb = dt.sizes[named[a].scalar_type], dt.sizes[named[b].scalar_type]
    if sa ~= sb then return sa > sb end
    return a < b
  end)
  local header, hosts, offset = {}, {}, 0
  for i, name in ipairs(names) do
    local host = named[name]:to('cpu'):contiguous()
    local bytes = host:numel() * dt.sizes[host.scalar_type]
    hosts[i] = host
    header[name] = { dtype = dt.safetensors_codes[host.scalar_type],
                     shape = setmetatable(host:shape(), json.array), -- [] for a 0-d tensor
                     data_offsets = { offset, offset + bytes } }
    offset = offset + bytes
  end
  if metadata and next(metadata) then header.__metadata__ = metadata end
  local text = json.encode(header)
  -- Spaces pad the header so that the data starts on an 8-byte boundary, as the reference
  -- implementation does.
  text = text .. string.rep(' ', (8 - #text % 8) % 8)

  local chunks = { u64le(#text), text }
  for i, host in ipairs(hosts) do
    chunks[i + 2] = { host.data, host:numel() * dt.sizes[host.scalar_type], host }
  end
  file.write_atomic('save', path, chunks)
end

-- Loading ------------------------------------------------------------------------------------
-- The rules are the reference implementation's (huggingface/safetensors, tensor.rs): a header
-- of at most 100 MB of UTF-8 JSON (padding with JSON whitespace allowed), an object whose
-- "__metadata__" is absent, null or an object of strings, every other key a tensor
-- {dtype, shape, data_offsets} (other fields ignored) with sizes and offsets written as
-- non-negative integers, and tensors covering the data after the header exactly, back to back.
-- fused adds its own limits: the dtypes of its table only (fused.h's FUSED_DTYPES), bools as bytes 0
-- and 1, 0 to 8 dims (shape [] a 0-d tensor, a size 0 an empty one), no repeated names.

local MAX_HEADER = 100000000
local known_dtypes = { BOOL = 1, U8 = 1, I8 = 1, F8_E5M2 = 1, F8_E4M3 = 1, I16 = 1, U16 = 1,
                       F16 = 1, BF16 = 1, I32 = 1, U32 = 1, F32 = 1, F64 = 1, I64 = 1, U64 = 1 }

-- Errors about the file are the user's data, not a line of fused: no position (level 0).
local function fail(path, fmt, ...)
  error(string.format('load: %s: ' .. fmt, path, ...), 0)
end

-- A number written with a fraction or an exponent (0.0, 1e3): kept apart from integers.
local Float = {}
local function parse_float(text) return setmetatable({ text = text }, Float) end

-- A size or an offset: an integer literal, not -0, small enough to be exact in a double
-- (a real one is at most the file's length).
local function is_count(x)
  return type(x) == 'number' and x >= 0 and x < 2 ^ 53 and x == math.floor(x) and 1 / x > 0
end

-- A JSON object: arrays, null and floats are tables with a metatable.
local function is_object(x) return type(x) == 'table' and getmetatable(x) == nil end

-- A header value as its JSON text, shortened, for messages.
local function show(x)
  local text
  if getmetatable(x) == Float then text = x.text
  elseif type(x) == 'string' then text = json.encode(x)
  elseif type(x) == 'number' then
    text = x == math.floor(x) and string.format('%.0f', x) or tostring(x)
  elseif json.is_array(x) then
    local parts = {}
    for i, v in ipairs(x) do parts[i] = show(v) end
    text = '[' .. table.concat(parts, ', ') .. ']'
  elseif x == json.null then text = 'null'
  elseif type(x) == 'table' then text = '{...}'
  else text = tostring(x) end
  return #text > 60 and text:sub(1, 60) .. '...' or text
end

-- The entry for one tensor, checked: its dtype, shape and byte range.
local function parse_entry(path, name, entry, data_len)
  -- The name is an argument, not part of the format: it may hold a '%'.
  local function bad(fmt, ...) fail(path, "tensor %s: " .. fmt, show(name), ...) end
  if not is_object(entry) then
    bad('expected an object {dtype, shape, data_offsets}, got %s', show(entry))
  end
  if type(entry.dtype) ~= 'string' or not known_dtypes[entry.dtype] then
    bad("'dtype' expected a safetensors dtype such as \"F32\", got %s", show(entry.dtype))
  end
  local dtype = dt.safetensors_dtypes[entry.dtype]
  if not dtype then bad('unsupported dtype %s (expected %s)', show(entry.dtype), CODES) end
  local shape = entry.shape
  if not json.is_array(shape) then bad("'shape' expected a list of sizes, got %s", show(shape)) end
  for i, n in ipairs(shape) do
    if not is_count(n) then
      bad("'shape' expected non-negative integer sizes, got %s at %d", show(n), i)
    end
  end
  local offsets = entry.data_offsets
  if not (json.is_array(offsets) and #offsets == 2 and is_count(offsets[1])
          and is_count(offsets[2])) then
    bad("'data_offsets' expected [begin, end], two non-negative integers, got %s", show(offsets))
  end
  local first, last = offsets[1], offsets[2]
  if first > last then bad('data_offsets %s begin after they end', show(offsets)) end
  if #shape > 8 then
    bad('shape %s has %d dims: fused tensors have at most 8', show(shape), #shape)
  end
  local numel = 1
  for _, n in ipairs(shape) do
    numel = numel * n
  end
  local bytes = numel * dt.sizes[dtype]
  if last - first ~= bytes then
    bad('data_offsets %s hold %d bytes, but shape %s of %s needs %s', show(offsets),
        last - first, show(shape), entry.dtype,
        bytes < 2 ^ 53 and string.format('%d', bytes) or 'over 2^53')
  end
  if last > data_len then
    bad('data_offsets %s run past the end of the data (%d bytes): truncated file?', show(offsets),
        data_len)
  end
  return { name = name, dtype = dtype, shape = { unpack(shape) }, first = first, last = last }
end

-- The data part is the tensors back to back: no overlap, no gap, nothing after.
local function check_layout(path, entries, data_len)
  table.sort(entries, function(a, b)
    return a.first < b.first or (a.first == b.first and a.last < b.last)
  end)
  local at = 0
  for _, e in ipairs(entries) do
    if e.first < at then
      fail(path, "tensor %s: data_offsets [%d, %d] overlap another tensor's", show(e.name),
           e.first, e.last)
    end
    if e.first > at then
      fail(path, "tensor %s: a gap of %d bytes before its data_offsets [%d, %d]", show(e.name),
           e.first - at, e.first, e.last)
    end
    at = e.last
  end
  if at ~= data_len then
    fail(path, 'the tensors hold %d bytes of data, but the file has %d after the header', at,
         data_len)
  end
end

-- "'float32' or 'float64'", from the dtype table.
local function floating_names()
  local names = {}
  for id = 0, #dt.dtype_names do
    if dt.is_floating[id] then names[#names + 1] = "'" .. dt.dtype_names[id] .. "'" end
  end
  return table.concat(names, ', ', 1, #names - 1) .. ' or ' .. names[#names]
end

local function read_u64le(s)
  local n = 0
  for i = 8, 1, -1 do n = n * 256 + s:byte(i) end
  return n
end

function M.load(path, opts)
  if type(path) ~= 'string' then
    error("load: argument 'path' expected a string, got " .. type(path), 2)
  end
  opts = options.check(opts, 'load', { 'dtype' })
  local to = opts.dtype ~= nil and dt.dtypes[opts.dtype]
  if opts.dtype ~= nil and not (to and dt.is_floating[to]) then
    error(string.format("load: option 'dtype' expected a floating dtype (%s), got %s",
                        floating_names(), type(opts.dtype) == 'string' and "'" .. opts.dtype .. "'"
                        or tostring(opts.dtype)), 2)
  end
  -- The header, then each tensor's data straight into its storage: a file of any size loads
  -- without a Lua string of its size.
  local reader = file.open('load', path)
  local size = reader.size
  if size < 8 then
    fail(path, 'truncated: %d bytes, expected at least 8 (the header length)', size)
  end
  local header_len = read_u64le(reader:read(0, 8))
  if header_len > MAX_HEADER then
    fail(path, 'header length %s: expected at most %d (the format\'s limit)',
         header_len < 2 ^ 53 and string.format('%d', header_len) or 'over 2^53', MAX_HEADER)
  end
  if header_len > size - 8 then
    fail(path, 'header length %d runs past the end of the file (%d bytes): truncated or not '
         .. 'safetensors', header_len, size)
  end
  local ok, header = pcall(json.decode, reader:read(8, header_len), { parse_float = parse_float })
  if not ok then fail(path, 'bad header: %s', header) end
  if not is_object(header) then
    fail(path, 'bad header: expected a JSON object, got %s', show(header))
  end

  local metadata = header.__metadata__
  if metadata == nil or metadata == json.null then metadata = {} end
  if not is_object(metadata) then
    fail(path, "'__metadata__' expected an object of strings, got %s", show(metadata))
  end
  for k, v in pairs(metadata) do
    if type(v) ~= 'string' then
      fail(path, "'__metadata__' value %s expected a string, got %s", show(k), show(v))
    end
  end

  local data_start, data_len = 8 + header_len, size - 8 - header_len
  local entries = {}
  for name, entry in pairs(header) do
    if name ~= '__metadata__' then
      entries[#entries + 1] = parse_entry(path, name, entry, data_len)
    end
  end
  check_layout(path, entries, data_len)

  local tensors = {}
  for _, e in ipairs(entries) do
    local t = factory.empty(e.shape, { dtype = dt.dtype_names[e.dtype] })
    reader:read_into(t.data, data_start + e.first, e.last - e.first)
    -- A C bool holds 0 or 1; safetensors writes nothing else for one.
    local other = e.dtype == dt.dtypes.bool and file.first_non_bool(t.data, e.last - e.first)
    if other then
      fail(path, 'tensor %s: bool element %d is the byte %d: expected 0 or 1', show(e.name), other,
           ffi.cast('const uint8_t *', t.data)[other - 1])
    end
    if to and dt.is_floating[e.dtype] and e.dtype ~= to then t = t:to(dt.dtype_names[to]) end
    tensors[e.name] = t
  end
  reader:close()
  return tensors, metadata
end

return M
