-- NumPy .npy files: format versions 1.0, 2.0 and 3.0, C order, the dtypes of fused's table
-- (little-endian '<f4', '<f8', '<i8', and '|b1' for bool), bools as bytes 0 and 1.
-- Reading parses the header as the Python dict literal it is and rejects what NumPy's reader
-- rejects; every error names load_npy and the file, what was expected and what came.
-- Saving writes a new file beside the target and renames it over it (fused.file), so that a
-- crash never leaves a half-written file at the path. Loading reads the data straight into
-- the tensor, so files over 1 GiB load as well as small ones.
local ffi = require 'ffi'
local dt = require 'fused.dtype'
local argcheck = require 'fused.check'
local factory = require 'fused.factory'
local file = require 'fused.file'

local M = {}
local MAGIC = '\147NUMPY'
-- The descrs fused reads, for messages: "'<f4', '<f8', '<i8' or '|b1'".
local DESCRS = dt.one_of(dt.npy_descrs, "'")
-- The width of the header length field, by major version (the minor version is always 0).
local length_bytes = { [1] = 2, [2] = 4, [3] = 4 }
-- NumPy refuses longer headers (np.load's max_header_size) as a guard against hostile files.
local MAX_HEADER = 10000
local MAX_DIMS = 8

-- Errors about the file are the user's data, not a line of fused: no position (level 0).
local function fail(path, fmt, ...)
  error(string.format('load_npy: %s: ' .. fmt, path, ...), 0)
end

-- At most 60 characters of header text, with anything unprintable escaped.
local function excerpt(text)
  local shown = text:sub(1, 60):gsub('[^\32-\126]', function(c)
    return string.format('\\x%02x', c:byte())
  end)
  return #text > 60 and shown .. '...' or shown
end

-- The header: a Python literal ------------------------------------------------------------
-- A strict parser for the literals a header holds: dicts with string keys, strings, True,
-- False, integers and tuples. Tuples come back as tables with the metatable Tuple, dicts with
-- the metatable Dict, so that a type check can tell them apart.
local Tuple, Dict = {}, {}
local words = { True = true, False = false }
-- Python's own parser stops at 200 nested brackets; a header needs 2.
local MAX_DEPTH = 16

local function literal_parser(path, header, python2_longs)
  local function bad(what, i)
    local got = i > #header and 'the end of the header'
      or string.format("'%s'", excerpt(header:sub(i, i + 9)))
    fail(path, 'malformed header: expected %s at byte %d of the header, got %s', what, i, got)
  end
  -- Python joins lines inside brackets, so newlines may sit between the dict's tokens.
  local function skip(i) return header:find('[^ \t\r\n\f]', i) or #header + 1 end
  local value

  local function string_literal(i)
    local quote = header:sub(i, i)
    local j = i + 1
    while true do
      local c = header:sub(j, j)
      if c == quote then return header:sub(i + 1, j - 1), j + 1 end
      if c == '' or c == '\n' or c == '\\' then
        bad('a closing ' .. quote .. ' (escapes are not supported)', j)
      end
      j = j + 1
    end
  end

  local function integer(i)
    local text = header:match('^-?%d+', i)
    if text:match('^-?0%d') then bad('an integer without leading zeros', i) end
    local j = i + #text
    -- Python 2 wrote longs as 2L; NumPy still reads them in version 1.0 and 2.0 files.
    if python2_longs and header:match('^[lL]', j) then j = j + 1 end
    return tonumber(text), j
  end

  -- Items separated by commas, a trailing comma allowed, up to `close`.
  local function items(i, close, item)
    local n = 0
    i = skip(i)
    while header:sub(i, i) ~= close do
      if n > 0 then
        if header:sub(i, i) ~= ',' then bad("',' or '" .. close .. "'", i) end
        i = skip(i + 1)
        if header:sub(i, i) == close then break end
      end
      n = n + 1
      i = skip(item(i, n))
    end
    return n, i + 1
  end

  function value(i, depth)
    if depth > MAX_DEPTH then bad('at most ' .. MAX_DEPTH .. ' nested brackets', i) end
    local c = header:sub(i, i)
    if c == '{' then
      local dict = setmetatable({}, Dict)
      local _, j = items(i + 1, '}', function(k)
        if not header:match("^['\"]", k) then bad('a string key', k) end
        local key
        key, k = string_literal(k)
        k = skip(k)
        if header:sub(k, k) ~= ':' then bad("':'", k) end
        -- A repeated key keeps its last value, as in Python (and so in NumPy).
        dict[key], k = value(skip(k + 1), depth + 1)
        return k
      end)
      return dict, j
    elseif c == '(' then
      local tuple = setmetatable({}, Tuple)
      local n, j = items(i + 1, ')', function(k, n)
        tuple[n], k = value(k, depth + 1)
        return k
      end)
      -- (3) is the number 3; only (3,) is a tuple of one.
      if n == 1 and not header:sub(1, j - 2):match(',%s*$') then return tuple[1], j end
      tuple.text = header:sub(i, j - 1) -- for messages: sizes as written, however large
      return tuple, j
    elseif c == "'" or c == '"' then
      return string_literal(i)
    elseif header:match('^-?%d', i) then
      return integer(i)
    end
    for word, v in pairs(words) do
      if header:sub(i, i + #word - 1) == word and not header:match('^[%w_]', i + #word) then
        return v, i + #word
      end
    end
    bad('a dict, string, tuple, integer, True or False', i)
  end
  return value
end

local function type_name(v)
  local mt = getmetatable(v)
  if mt == Tuple then return 'a tuple' elseif mt == Dict then return 'a dict' end
  return ({ string = 'a string', boolean = 'a bool', number = 'an integer' })[type(v)]
end


-- The format: a dict literal, padded with spaces and ended by a newline. Returns the dtype
-- (its number) and the shape.
local function parse_header(path, header, major)
  if header:sub(1, 1) ~= '{' then
    fail(path, "malformed header: expected a dict, '{' first, got '%s'", excerpt(header))
  end
  if header:sub(-1) ~= '\n' then
    fail(path, "malformed header: expected a newline last (after the padding), got '%s' at its end",
         excerpt(header:sub(-20)))
  end
  local dict, after = literal_parser(path, header, major <= 2)(1, 1)
  if header:find('[^ ]', after) ~= #header then
    fail(path, "malformed header: expected only spaces after the dict, got '%s'",
         excerpt(header:sub(after, -2)))
  end
  local keys = {}
  for k in pairs(dict) do keys[#keys + 1] = "'" .. excerpt(k) .. "'" end
  table.sort(keys)
  if table.concat(keys, ', ') ~= "'descr', 'fortran_order', 'shape'" then
    fail(path, "malformed header: expected the keys 'descr', 'fortran_order' and 'shape', got %s",
         #keys > 0 and table.concat(keys, ', ') or 'none')
  end
  local descr, fortran, shape = dict.descr, dict.fortran_order, dict.shape
  if getmetatable(shape) ~= Tuple then
    fail(path, "malformed header: 'shape' expected a tuple of integers, got %s", type_name(shape))
  end
  for i, n in ipairs(shape) do
    if type(n) ~= 'number' then
      fail(path, "malformed header: 'shape' expected a tuple of integers, got %s at %d",
           type_name(n), i)
    end
  end
  if type(fortran) ~= 'boolean' then
    fail(path, "malformed header: 'fortran_order' expected True or False, got %s",
         type_name(fortran))
  end
  if type(descr) ~= 'string' then
    fail(path, "unsupported dtype: 'descr' expected %s, got %s", DESCRS, type_name(descr))
  end
  local dtype = dt.npy_dtypes[descr]
  if not dtype and descr:sub(1, 1) == '>' and dt.npy_dtypes['<' .. descr:sub(2)] then
    fail(path, "big-endian data ('%s') is not supported: expected %s", descr, DESCRS)
  elseif not dtype then
    fail(path, "unsupported dtype '%s': expected %s", excerpt(descr), DESCRS)
  end
  if fortran then
    fail(path, 'Fortran-order arrays are not supported: expected fortran_order False')
  end
  local text = excerpt(shape.text)
  for _, n in ipairs(shape) do
    if n < 0 then fail(path, 'shape %s holds a negative size', text) end
  end
  if #shape > MAX_DIMS then -- () is a 0-d array, a size 0 an empty one: fused has both
    fail(path, 'shape %s has %d dims: fused tensors have 0 to %d', text, #shape, MAX_DIMS)
  end
  return dtype, shape
end

-- Loading ---------------------------------------------------------------------------------

local function u16le(s, i) return s:byte(i) + 256 * s:byte(i + 1) end
local function u32le(s, i) return u16le(s, i) + 65536 * u16le(s, i + 2) end

function M.load_npy(path)
  if type(path) ~= 'string' then
    error("load_npy: argument 'path' expected a string, got " .. type(path), 2)
  end
  -- The file is read in two parts: what can hold the header (a few KB), then the data straight
  -- into the tensor, so that a file of any size loads without a Lua string of its size.
  local reader = file.open('load_npy', path)
  local size = reader.size
  local bytes = reader:read(0, math.min(size, 12 + MAX_HEADER))

  if bytes:sub(1, 6) ~= MAGIC then
    fail(path, "not a .npy file: expected it to start with '\\x93NUMPY', got '%s'",
         excerpt(bytes:sub(1, 6)))
  end
  local major, minor = bytes:byte(7), bytes:byte(8)
  local width = length_bytes[major]
  if not (width and minor == 0) then
    fail(path, 'unsupported format version %s.%s: expected 1.0, 2.0 or 3.0', major or '?',
         minor or '?')
  end
  local header_start = 9 + width
  if size < header_start - 1 then
    fail(path, 'truncated: %d bytes, too short for the version %d.0 header length', size, major)
  end
  local header_len = width == 2 and u16le(bytes, 9) or u32le(bytes, 9)
  if header_len > MAX_HEADER then
    fail(path, 'header of %d bytes: expected at most %d (NumPy refuses longer ones)', header_len,
         MAX_HEADER)
  end
  local data_start = header_start + header_len
  if data_start - 1 > size then
    fail(path, 'truncated header: %d bytes announced, %d in the file', header_len,
         size - header_start + 1)
  end
  local dtype, shape = parse_header(path, bytes:sub(header_start, data_start - 1), major)

  local numel = 1
  for _, n in ipairs(shape) do numel = numel * n end
  local want = numel * dt.sizes[dtype]
  local have = size - data_start + 1
  if have ~= want then
    fail(path, 'shape %s of %s needs %s bytes of data, but the file holds %d', excerpt(shape.text),
         dt.dtype_names[dtype], want < 2 ^ 53 and string.format('%d', want) or 'over 2^53', have)
  end
  for _, n in ipairs(shape) do -- beside a size 0, any size fits the data
    if n >= 2 ^ 53 then
      fail(path, 'shape %s holds a size of 2^53 or more: fused sizes are below 2^53',
           excerpt(shape.text))
    end
  end
  local t = factory.empty({ unpack(shape) }, { dtype = dt.dtype_names[dtype] })
  reader:read_into(t.data, data_start - 1, want)
  reader:close()
  -- A C bool holds 0 or 1; NumPy writes nothing else for one.
  local other = dtype == dt.dtypes.bool and file.first_non_bool(t.data, want)
  if other then
    fail(path, 'bool element %d is the byte %d: expected 0 or 1', other,
         ffi.cast('const uint8_t *', t.data)[other - 1])
  end
  return t
end

function M.save_npy(path, t)
  if type(path) ~= 'string' then
    error("save_npy: argument 'path' expected a string, got " .. type(path), 2)
  end
  argcheck.expect(t, 'save_npy', 't')
  if not dt.npy_descrs[t.scalar_type] then
    error(string.format("save_npy: argument 't' is a %s tensor, which .npy files cannot hold (NumPy "
                        .. "has no %s); convert it first, e.g. with :float()", t.dtype, t.dtype), 2)
  end
  local host = t:to('cpu'):contiguous()
  local shape = host:shape()
  local dict = string.format("{'descr': '%s', 'fortran_order': False, 'shape': (%s%s), }",
                             dt.npy_descrs[host.scalar_type], table.concat(shape, ', '),
                             #shape == 1 and ',' or '')
  -- Magic, version, length, dict: padded with spaces and a newline to a multiple of 64 bytes.
  local version, prefix = 1, 10
  if #dict + 1 + prefix > 65535 then version, prefix = 2, 12 end
  local total = math.ceil((prefix + #dict + 1) / 64) * 64
  dict = dict .. string.rep(' ', total - prefix - #dict - 1) .. '\n'
  local len = #dict
  local len_bytes = version == 1 and string.char(len % 256, math.floor(len / 256))
    or string.char(len % 256, math.floor(len / 256) % 256, math.floor(len / 65536) % 256, 0)
  file.write_atomic('save_npy', path, {
    MAGIC, string.char(version, 0), len_bytes, dict,
    { host.data, host:numel() * dt.sizes[host.scalar_type], host },
  })
end

return M
