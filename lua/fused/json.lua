-- A small strict JSON (RFC 8259) encoder and decoder, for safetensors headers and checkpoint
-- metadata. decode(text, opts) returns the value or raises "json: <what> at byte <n>"; it
-- rejects what the RFC rejects (text that is not UTF-8, trailing commas, leading zeros,
-- control characters in strings, trailing text) and duplicate keys. null decodes to json.null;
-- arrays decode to tables with the metatable json.array (so that [] and {} differ).
-- opts.parse_float(text), as in Python's json.loads, makes the value of each number written
-- with a fraction or an exponent (so that a reader that wants integers can tell 1.0 from 1).
-- encode(value) writes objects with sorted keys, so the same table always gives the same
-- text; a table whose keys are exactly 1..n, or one with the metatable json.array, is an
-- array, any other table an object.
local M = {}

M.null = setmetatable({}, { __tostring = function() return 'json.null' end })
M.array = {}

function M.is_array(t) return type(t) == 'table' and getmetatable(t) == M.array end

local MAX_DEPTH = 200

-- Decoding -----------------------------------------------------------------------------------

local escapes = { ['"'] = '"', ['\\'] = '\\', ['/'] = '/', b = '\b', f = '\f', n = '\n',
                  r = '\r', t = '\t' }

local function fail(what, at) error(string.format('json: %s at byte %d', what, at), 0) end

local function utf8_char(cp)
  if cp < 0x80 then return string.char(cp) end
  if cp < 0x800 then return string.char(0xC0 + math.floor(cp / 64), 0x80 + cp % 64) end
  if cp < 0x10000 then
    return string.char(0xE0 + math.floor(cp / 4096), 0x80 + math.floor(cp / 64) % 64, 0x80 + cp % 64)
  end
  return string.char(0xF0 + math.floor(cp / 262144), 0x80 + math.floor(cp / 4096) % 64,
                     0x80 + math.floor(cp / 64) % 64, 0x80 + cp % 64)
end

-- The position of the first byte that is not part of a well-formed UTF-8 sequence (RFC 3629:
-- no overlong forms, no surrogates, nothing above U+10FFFF), or nil.
local function bad_utf8(s)
  local i = s:find('[\128-\255]')
  while i do
    local c, n = s:byte(i), nil
    local lo, hi = 0x80, 0xBF -- the allowed range of the byte after the lead
    if c >= 0xC2 and c <= 0xDF then n = 1
    elseif c >= 0xE0 and c <= 0xEF then
      n = 2
      if c == 0xE0 then lo = 0xA0 elseif c == 0xED then hi = 0x9F end
    elseif c >= 0xF0 and c <= 0xF4 then
      n = 3
      if c == 0xF0 then lo = 0x90 elseif c == 0xF4 then hi = 0x8F end
    else return i end
    for k = 1, n do
      local b = s:byte(i + k)
      if not b or b < (k == 1 and lo or 0x80) or b > (k == 1 and hi or 0xBF) then return i end
    end
    i = s:find('[\128-\255]', i + n + 1)
  end
end

local function skip_space(s, i)
  return s:find('[^ \t\r\n]', i) or #s + 1
end

local decode_value

local function decode_string(s, i) -- s:sub(i, i) == '"'
  local parts, j = {}, i + 1
  while true do
    local k = s:find('["\\%c]', j)
    if not k then fail('unterminated string', i) end
    parts[#parts + 1] = s:sub(j, k - 1)
    local c = s:sub(k, k)
    if c == '"' then return table.concat(parts), k + 1 end
    if c ~= '\\' then fail('control character in string', k) end
    local e = s:sub(k + 1, k + 1)
    if escapes[e] then
      parts[#parts + 1] = escapes[e]
      j = k + 2
    elseif e == 'u' then
      local hex = s:match('^%x%x%x%x', k + 2)
      if not hex then fail('bad \\u escape', k) end
      local cp = tonumber(hex, 16)
      j = k + 6
      if cp >= 0xD800 and cp <= 0xDBFF then
        local low = s:match('^\\u(%x%x%x%x)', j)
        low = low and tonumber(low, 16)
        if not (low and low >= 0xDC00 and low <= 0xDFFF) then fail('unpaired surrogate', k) end
        cp = 0x10000 + (cp - 0xD800) * 1024 + (low - 0xDC00)
        j = j + 6
      elseif cp >= 0xDC00 and cp <= 0xDFFF then
        fail('unpaired surrogate', k)
      end
      parts[#parts + 1] = utf8_char(cp)
    else
      fail('bad escape', k)
    end
  end
end

-- -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][-+]?[0-9]+)?
local function decode_number(s, i, opts)
  local j = s:sub(i, i) == '-' and i + 1 or i
  local int = s:match('^0', j) or s:match('^[1-9]%d*', j)
  if not int then fail('malformed number', i) end
  j = j + #int
  local frac = s:match('^%.%d+', j)
  if frac then j = j + #frac end
  local exp = s:match('^[eE][-+]?%d+', j)
  if exp then j = j + #exp end
  if s:match('^[%d.eE]', j) then fail('malformed number', i) end
  local text = s:sub(i, j - 1)
  if (frac or exp) and opts.parse_float then return opts.parse_float(text), j end
  return tonumber(text), j
end

local function decode_array(s, i, depth, opts)
  local list, n = setmetatable({}, M.array), 0
  i = skip_space(s, i + 1)
  if s:sub(i, i) == ']' then return list, i + 1 end
  while true do
    n = n + 1
    list[n], i = decode_value(s, i, depth, opts)
    i = skip_space(s, i)
    local c = s:sub(i, i)
    if c == ']' then return list, i + 1 end
    if c ~= ',' then fail("expected ',' or ']'", i) end
    i = skip_space(s, i + 1)
  end
end

local function decode_object(s, i, depth, opts)
  local obj = {}
  i = skip_space(s, i + 1)
  if s:sub(i, i) == '}' then return obj, i + 1 end
  while true do
    if s:sub(i, i) ~= '"' then fail('expected a string key', i) end
    local key, at = nil, i
    key, i = decode_string(s, i)
    if obj[key] ~= nil then fail(string.format('duplicate key "%s"', key), at) end
    i = skip_space(s, i)
    if s:sub(i, i) ~= ':' then fail("expected ':'", i) end
    obj[key], i = decode_value(s, skip_space(s, i + 1), depth, opts)
    i = skip_space(s, i)
    local c = s:sub(i, i)
    if c == '}' then return obj, i + 1 end
    if c ~= ',' then fail("expected ',' or '}'", i) end
    i = skip_space(s, i + 1)
  end
end

local literals = { ['true'] = true, ['false'] = false, null = M.null }

function decode_value(s, i, depth, opts)
  if depth > MAX_DEPTH then fail('nesting deeper than ' .. MAX_DEPTH, i) end
  local c = s:sub(i, i)
  if c == '{' then return decode_object(s, i, depth + 1, opts) end
  if c == '[' then return decode_array(s, i, depth + 1, opts) end
  if c == '"' then return decode_string(s, i) end
  if c == '-' or c:match('%d') then return decode_number(s, i, opts) end
  for word, value in pairs(literals) do
    if s:sub(i, i + #word - 1) == word then return value, i + #word end
  end
  fail(c == '' and 'unexpected end of text' or 'unexpected character', i)
end

function M.decode(s, opts)
  if type(s) ~= 'string' then
    error("json.decode: argument 'text' expected a string, got " .. type(s), 2)
  end
  if opts ~= nil and type(opts) ~= 'table' then
    error("json.decode: argument 'opts' expected a table like {parse_float =}, got "
          .. type(opts), 2)
  end
  local bad = bad_utf8(s)
  if bad then fail('invalid UTF-8', bad) end
  local value, i = decode_value(s, skip_space(s, 1), 0, opts or {})
  i = skip_space(s, i)
  if i <= #s then fail('trailing text', i) end
  return value
end

-- Encoding -----------------------------------------------------------------------------------

local named = { ['"'] = '\\"', ['\\'] = '\\\\', ['\n'] = '\\n', ['\r'] = '\\r', ['\t'] = '\\t',
                ['\b'] = '\\b', ['\f'] = '\\f' }

local function encode_string(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    return named[c] or string.format('\\u%04x', c:byte())
  end) .. '"'
end

-- The shortest of %.15g, %.16g, %.17g that reads back as v (0.9, not 0.90000000000000002).
local function shortest(v)
  if v == math.floor(v) and math.abs(v) < 2 ^ 53 then return string.format('%d', v) end
  for digits = 15, 16 do
    local text = string.format('%.' .. digits .. 'g', v)
    if tonumber(text) == v then return text end
  end
  return string.format('%.17g', v)
end

local function is_array(t)
  if getmetatable(t) == M.array then return true end
  local n = #t
  if n == 0 then return false end
  local count = 0
  for _ in pairs(t) do count = count + 1 end
  return count == n
end

local function encode_value(v, out, depth)
  local kind = type(v)
  if v == M.null then
    out[#out + 1] = 'null'
  elseif kind == 'string' then
    out[#out + 1] = encode_string(v)
  elseif kind == 'number' then
    if v ~= v or v == math.huge or v == -math.huge then
      error('json.encode: cannot encode ' .. tostring(v), 0)
    end
    out[#out + 1] = shortest(v)
  elseif kind == 'boolean' then
    out[#out + 1] = tostring(v)
  elseif kind == 'table' then
    if depth > MAX_DEPTH then error('json.encode: nesting deeper than ' .. MAX_DEPTH, 0) end
    if is_array(v) then
      out[#out + 1] = '['
      for i, x in ipairs(v) do
        if i > 1 then out[#out + 1] = ',' end
        encode_value(x, out, depth + 1)
      end
      out[#out + 1] = ']'
    else
      local keys = {}
      for k in pairs(v) do
        if type(k) ~= 'string' then
          error('json.encode: object keys must be strings, got ' .. type(k), 0)
        end
        keys[#keys + 1] = k
      end
      table.sort(keys)
      out[#out + 1] = '{'
      for i, k in ipairs(keys) do
        if i > 1 then out[#out + 1] = ',' end
        out[#out + 1] = encode_string(k)
        out[#out + 1] = ':'
        encode_value(v[k], out, depth + 1)
      end
      out[#out + 1] = '}'
    end
  else
    error('json.encode: cannot encode a ' .. kind, 0)
  end
end

function M.encode(value)
  local out = {}
  encode_value(value, out, 0)
  return table.concat(out)
end

return M
