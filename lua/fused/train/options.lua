-- A small declarative command-line parser for training scripts. Each option is
-- { name, default, kind, help, min =, max =, above =, below = }: kind 'int', 'number', 'string',
-- 'output' (a file to write: its directory must exist and take it, and what is there must be
-- a regular file) or a list of choices; a default of false means none; min, max, above and
-- below (both exclusive) bound a number. Anything
-- malformed is a usage error saying which option and what was expected, raised before the
-- script does any work; options.is_usage_error(err) tells one from a bug.
--
--   local cmd = options.new('luajit train.lua [options]', 'Trains a model; options:', {
--     { 'steps', 1000, 'int', 'training steps', min = 1 },
--     { 'optim', 'adam', { 'adam', 'sgd' }, 'optimizer' },
--   })
--   local opts, given = cmd:parse(arg)   -- given: the names on the command line (help = --help)
--   local taken = cmd:take(opts, given, saved_opts, {device = true})   -- a resumed run's options
--   io.write(cmd:usage(), '\n')
local file = require 'fused.file'

local M = {}

local UsageError = {}

function M.usage_error(fmt, ...)
  error(setmetatable({ message = string.format(fmt, ...) }, UsageError), 0)
end

function M.is_usage_error(err) return getmetatable(err) == UsageError end

local Parser = {}
Parser.__index = Parser

function M.new(synopsis, summary, list)
  local by_name = {}
  for _, o in ipairs(list) do by_name[o[1]] = o end
  return setmetatable({ synopsis = synopsis, summary = summary, list = list, by_name = by_name },
                      Parser)
end

local SHOWN = { int = 'INT', number = 'NUMBER', string = 'STRING', output = 'FILE' }

function Parser:usage()
  local lines = { 'usage: ' .. self.synopsis, '', self.summary }
  for _, o in ipairs(self.list) do
    local kind = type(o[3]) == 'table' and table.concat(o[3], '|') or SHOWN[o[3]]
    local default = o[2] and ('  (default ' .. tostring(o[2]) .. ')') or ''
    lines[#lines + 1] = string.format('  --%-13s %-22s %s%s', o[1], kind, o[4], default)
  end
  lines[#lines + 1] = string.format('  --%-13s %-22s %s', 'help', '', 'this text')
  return table.concat(lines, '\n')
end

-- What a number must be, in words, or nil when it is.
local function out_of_range(o, n)
  if o.above and not (n > o.above) then return '> ' .. o.above end
  if o.below and not (n < o.below) then return '< ' .. o.below end
  if (o.min and n < o.min) or (o.max and n > o.max) then
    if o.min and o.max then return o.min .. ' to ' .. o.max end
    return o.min and '>= ' .. o.min or 'at most ' .. o.max
  end
end

-- The value of option o from its text, or a usage error. An 'output' is checked for a file
-- that can be made only when `writing` (a saved path that will not be written need not be).
local function convert(o, value, writing)
  local name, kind = o[1], o[3]
  if type(kind) == 'table' then
    for _, choice in ipairs(kind) do if choice == value then return value end end
    M.usage_error("option '--%s' expected one of %s, got '%s'", name, table.concat(kind, ', '),
                  value)
  elseif kind == 'int' or kind == 'number' then
    local n = tonumber(value)
    -- tonumber reads 'inf', 'nan' and '1e999' too: no option means anything by them.
    if not n or n ~= n or math.abs(n) == math.huge or (kind == 'int' and n ~= math.floor(n)) then
      M.usage_error("option '--%s' expected %s, got '%s'", name,
                    kind == 'int' and 'an integer' or 'a finite number', value)
    end
    local want = out_of_range(o, n)
    if want then M.usage_error("option '--%s' expected %s, got %s", name, want, value) end
    return n
  elseif kind == 'output' and value == '' then
    M.usage_error("option '--%s' expected a file name, got ''", name)
  elseif kind == 'output' and writing then
    local ok, why = file.can_create(value)
    if not ok then M.usage_error('--%s %s: cannot write there (%s)', name, value, why) end
    -- Appending to a FIFO blocks until it has a reader; a device or a directory is no file.
    local what = file.not_regular(value)
    if what then M.usage_error('--%s %s: not a regular file (%s)', name, value, what) end
  end
  return value
end

-- argv: a list of strings ('--name value' or '--name=value'). Returns the options (keys as
-- spelled on the command line, defaults filled in) and the set of names given; for --help,
-- the defaults and { help = true }.
function Parser:parse(argv)
  local opts, given, i = {}, {}, 1
  for _, o in ipairs(self.list) do opts[o[1]] = o[2] end
  while i <= #argv do
    local a = argv[i]
    if a == '--help' or a == '-h' then return opts, { help = true } end
    local name, value = a:match('^%-%-([%w-]+)=(.*)$')
    name = name or a:match('^%-%-([%w-]+)$')
    if not name then M.usage_error("unexpected argument '%s' (options start with --)", a) end
    local o = self.by_name[name]
    if not o then M.usage_error("unknown option '--%s'", name) end
    if not value then
      i = i + 1
      value = argv[i]
      if value == nil then M.usage_error("option '--%s' needs a value", name) end
    end
    opts[name], given[name] = convert(o, value, true), true
    i = i + 1
  end
  return opts, given
end

-- For a run that goes on from saved options (as parse returned them, e.g. from a checkpoint):
-- each saved option not given on the command line, and not in the set `except`, replaces its
-- default. Saved values were parsed once but may have been edited since, so every one of them,
-- taken or not, is checked as a given one would be: its name, its kind, its range (an output
-- file taken must still be writable). Returns the words '--name value' of those taken that
-- differ from the defaults, in the list's order.
function Parser:take(opts, given, saved, except)
  local names = {}
  for name in pairs(saved) do names[#names + 1] = tostring(name) end
  table.sort(names) -- the first bad one in a stable order
  local checked = {}
  for _, name in ipairs(names) do
    local o, value = self.by_name[name], saved[name]
    if not o then M.usage_error("unknown option '--%s'", name) end
    local numeric = o[3] == 'int' or o[3] == 'number'
    if type(value) ~= (numeric and 'number' or 'string') and not (value == false and o[2] == false) then
      M.usage_error("option '--%s' expected %s, got %s", name,
                    numeric and 'a number' or 'a string', tostring(value))
    end
    local taking = not given[name] and not except[name]
    if value then value = convert(o, numeric and value or tostring(value), taking) end
    checked[name] = value
  end
  local taken = {}
  for _, o in ipairs(self.list) do
    local name, value = o[1], checked[o[1]]
    if value ~= nil and not given[name] and not except[name] then
      opts[name] = value
      if value ~= o[2] then taken[#taken + 1] = '--' .. name .. ' ' .. tostring(value) end
    end
  end
  return taken
end

return M
