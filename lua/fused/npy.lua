-- NumPy .npy files: versions 1.0 and 2.0, little-endian '<f4' and '<f8', C order.
-- Saving writes a temporary file beside the target and renames it, so that a crash never
-- leaves a half-written file at the path.
local ffi = require 'ffi'
local dt = require 'fused.dtype'
local tensor = require 'fused.tensor'
local file = require 'fused.file'

local M = {}
local MAGIC = '\147NUMPY'
local descr_dtypes = { ['<f4'] = 'float32', ['<f8'] = 'float64' }
local dtype_descrs = { float32 = '<f4', float64 = '<f8' }

local function fail(path, fmt, ...)
  error(string.format('load_npy: %s: ' .. fmt, path, ...), 3)
end

local function u16le(s, i) return s:byte(i) + 256 * s:byte(i + 1) end
local function u32le(s, i) return u16le(s, i) + 65536 * u16le(s, i + 2) end

-- The header dict, e.g. {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }.
local function parse_header(path, header)
  local descr = header:match("['\"]descr['\"]%s*:%s*['\"]([^'\"]*)['\"]")
  local fortran = header:match("['\"]fortran_order['\"]%s*:%s*(%a+)")
  local shape_text = header:match("['\"]shape['\"]%s*:%s*(%b())")
  if not (descr and fortran and shape_text) then
    fail(path, "malformed header (expected 'descr', 'fortran_order' and 'shape'): %s", header)
  end
  if descr:sub(1, 1) == '>' then
    fail(path, "big-endian data ('%s') is not supported: expected '<f4' or '<f8'", descr)
  end
  local dtype = descr_dtypes[descr]
  if not dtype then fail(path, "unsupported dtype '%s': expected '<f4' or '<f8'", descr) end
  if fortran ~= 'False' then fail(path, 'Fortran-order arrays are not supported') end
  local shape = {}
  for item in shape_text:sub(2, -2):gmatch('[^,]+') do
    local n = tonumber(item:match('^%s*(%d+)%s*$'))
    if not n then fail(path, 'malformed shape %s', shape_text) end
    shape[#shape + 1] = n
  end
  -- A 0-d array holds one value; our tensors have at least one dim.
  if #shape == 0 then shape = { 1 } end
  for _, n in ipairs(shape) do
    if n < 1 then fail(path, 'shape %s has an empty dim: zero sizes are not supported', shape_text) end
  end
  return dtype, shape
end

function M.load_npy(path)
  if type(path) ~= 'string' then
    error("load_npy: argument 'path' expected a string, got " .. type(path), 2)
  end
  local f, err = io.open(path, 'rb')
  if not f then error('load_npy: ' .. err, 2) end
  local bytes = f:read('*a')
  f:close()
  if #bytes < 10 or bytes:sub(1, 6) ~= MAGIC then fail(path, 'not a .npy file (bad magic)') end
  local major = bytes:byte(7)
  local header_len, header_start
  if major == 1 then
    header_len, header_start = u16le(bytes, 9), 11
  elseif major == 2 or major == 3 then
    if #bytes < 12 then fail(path, 'truncated header') end
    header_len, header_start = u32le(bytes, 9), 13
  else
    fail(path, 'unsupported .npy version %d.%d', major, bytes:byte(8))
  end
  local data_start = header_start + header_len
  if data_start - 1 > #bytes then fail(path, 'truncated header (%d bytes announced)', header_len) end
  local dtype, shape = parse_header(path, bytes:sub(header_start, data_start - 1))
  local numel = 1
  for _, n in ipairs(shape) do numel = numel * n end
  local want = numel * dt.sizes[dt.dtypes[dtype]]
  local have = #bytes - data_start + 1
  if have ~= want then
    fail(path, 'the header says shape (%s) of %s, %d bytes of data, but the file holds %d',
         table.concat(shape, ', '), dtype, want, have)
  end
  local t = tensor.empty(shape, { dtype = dtype })
  ffi.copy(t.data, ffi.cast('const char *', bytes) + data_start - 1, want)
  return t
end

function M.save_npy(path, t)
  if type(path) ~= 'string' then
    error("save_npy: argument 'path' expected a string, got " .. type(path), 2)
  end
  tensor.expect(t, 'save_npy', 't')
  local host = t:to('cpu'):contiguous()
  local shape = host:shape()
  local dict = string.format("{'descr': '%s', 'fortran_order': False, 'shape': (%s%s), }",
                             dtype_descrs[host.dtype], table.concat(shape, ', '),
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
    ffi.string(host.data, host:numel() * dt.sizes[host.scalar_type]),
  })
end

return M
