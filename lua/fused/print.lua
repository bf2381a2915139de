-- tostring(t): the values, then the shape, dtype and device, in the manner of Torch7.
-- Large tensors show their first and last few entries along each dim.
local tensor = require 'fused.tensor'

local EDGE = 3          -- entries kept at each end of a long dim
local SUMMARIZE = 1000  -- above this many elements, dims longer than 2 * EDGE are cut

-- A function from a value to its text, all of one width: floats in the manner of Torch7, int64
-- as integers (numbers or int64_t cdata, as totable gives them), bools as true and false.
local function formatter(values, dtype)
  if dtype == 'int64' or dtype == 'bool' then
    -- %d takes int64_t cdata as well as numbers, and writes every digit of either.
    local function text(v) return dtype == 'bool' and tostring(v) or string.format('%d', v) end
    local width = 0
    for _, v in ipairs(values) do width = math.max(width, #text(v)) end
    local fmt = '%' .. (width + 1) .. 's'
    return function(v) return string.format(fmt, text(v)) end
  end
  local max, all_int = 0, true
  for _, v in ipairs(values) do
    if v ~= v or v == math.huge or v == -math.huge then
    else
      max = math.max(max, math.abs(v))
      if v ~= math.floor(v) then all_int = false end
    end
  end
  local fmt
  if all_int and max < 1e9 then fmt = '%' .. (#string.format('%d', max) + 2) .. '.0f'
  elseif max >= 1e5 or (max < 1e-3 and max > 0) then fmt = '%12.4e'
  else fmt = '%' .. (#string.format('%d', math.floor(max)) + 7) .. '.4f' end
  return function(v) return string.format(fmt, v) end
end

local function kept(size, cut)
  local idx = {}
  if cut and size > 2 * EDGE then
    for i = 1, EDGE do idx[#idx + 1] = i end
    idx[#idx + 1] = false -- the gap
    for i = size - EDGE + 1, size do idx[#idx + 1] = i end
  else
    for i = 1, size do idx[i] = i end
  end
  return idx
end

local function render(t)
  if t:numel() == 0 then return '[]' end
  if t:dim() == 0 then return formatter({ t:item() }, t.dtype)(t:item()):match('^%s*(.-)$') end
  local shape, data = t:shape(), t:totable()
  local cut = t:numel() > SUMMARIZE
  local values = {}
  local function gather(x) if type(x) == 'table' then for _, y in ipairs(x) do gather(y) end else values[#values + 1] = x end end
  gather(data)
  local format = formatter(values, t.dtype)
  local lines = {}
  local function matrix(m, prefix)
    if prefix then lines[#lines + 1] = prefix end
    local rows = #shape == 1 and { m } or m
    local row_idx = #shape == 1 and { 1 } or kept(#rows, cut)
    for _, r in ipairs(row_idx) do
      if r then
        local cells = {}
        for _, c in ipairs(kept(#rows[r], cut)) do
          cells[#cells + 1] = c and format(rows[r][c]) or ' ...'
        end
        lines[#lines + 1] = table.concat(cells, ' ')
      else
        lines[#lines + 1] = ' ...'
      end
    end
    if prefix then lines[#lines + 1] = '' end
  end
  local function walk(x, d, index)
    if d >= #shape - 1 then
      matrix(x, #shape > 2 and '(' .. table.concat(index, ',') .. ',.,.) = ' or nil)
      return
    end
    for _, i in ipairs(kept(#x, cut)) do
      if i then
        index[d] = i
        walk(x[i], d + 1, index)
      else
        lines[#lines + 1] = '(...)'
      end
    end
    index[d] = nil
  end
  walk(data, 1, {})
  return table.concat(lines, '\n')
end

-- A 0-d tensor's size is (), as Python writes its shape; an empty one's has a 0 (0x3). Under
-- fused th the last line is Torch7's ('[torch.DoubleTensor of size 2x3]': its __footer form).
tensor.metatable.__tostring = function(t)
  local size = t:dim() == 0 and '()' or table.concat(t:shape(), 'x')
  local footer = rawget(tensor.methods(), '__footer')
  if footer then return render(t) .. '\n' .. footer(t, size) end
  return string.format('%s\n[fused.Tensor %s %s of size %s]', render(t), t.dtype, t.device, size)
end
