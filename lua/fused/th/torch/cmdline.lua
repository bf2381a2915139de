-- torch.CmdLine(): Torch7's command-line parser, as Torch7's programs use it: text, option,
-- argument, parse(arg) (a table of the options' values; a boolean option given flips its
-- default), string, log (print also goes to a file), silent, addTime, help. A bad command line
-- prints the error and the usage, then exits with status 1, as Torch7's did.
local CmdLine = {}
CmdLine.__index = CmdLine

local function strip(key) return (key:match('^%-*(.*)$')) end

local function new(arg_separator, key_separator)
  return setmetatable({ argseparator = arg_separator or ',', keyseparator = key_separator or '=',
                        options = {}, arguments = {}, helplines = {}, silentio = false }, CmdLine)
end

function CmdLine:error(message)
  io.stderr:write('\n', message, '\n\n')
  self:help()
  os.exit(1)
end

function CmdLine:text(txt)
  txt = txt or ''
  if type(txt) ~= 'string' then error("CmdLine:text: argument 'txt' expected a string, got " .. type(txt), 2) end
  table.insert(self.helplines, txt)
end

function CmdLine:option(key, default, help, kind)
  if type(key) ~= 'string' then error("CmdLine:option: argument 'key' expected a string such as '-lr', got " .. type(key), 2) end
  if default == nil then error(string.format("CmdLine:option: option %s has no default value", key), 2) end
  kind = kind or type(default)
  if type(default) ~= kind then
    error(string.format("CmdLine:option: option %s's default is a %s, not a %s", key, type(default), kind), 2)
  end
  self.options[key] = { key = key, default = default, help = help, type = kind }
  table.insert(self.helplines, self.options[key])
end

function CmdLine:argument(key, help, kind)
  table.insert(self.arguments, { key = key, help = help, type = kind })
  table.insert(self.helplines, self.arguments[#self.arguments])
end

function CmdLine:silent() self.silentio = true end

function CmdLine:addTime(name, format)
  format = format or '%Y-%m-%d %H:%M:%S'
  if type(format) ~= 'string' then error("CmdLine:addTime: argument 'format' expected a string", 2) end
  self.dateformat = format .. (name and '[' .. name .. ']: ' or '')
end

function CmdLine:default()
  local params = {}
  for key, option in pairs(self.options) do params[strip(key)] = option.default end
  return params
end

-- The value of option key at args[i] into params; returns how many args it took.
function CmdLine:readOption(params, args, i)
  local key = args[i]
  local option = self.options[key]
  if option.type == 'boolean' then
    params[strip(key)] = not option.default
    return 1
  end
  local value = args[i + 1]
  if value == nil then self:error('missing argument for option ' .. key) end
  if option.type == 'number' then
    value = tonumber(value)
    if not value then self:error('invalid type for option ' .. key .. ' (should be number)') end
  elseif option.type ~= 'string' then
    self:error('unknown required option type ' .. option.type)
  end
  params[strip(key)] = value
  return 2
end

function CmdLine:parse(args)
  args = args or {}
  local params, i, n = self:default(), 1, 0
  while i <= #args do
    local a = args[i]
    if a == '-help' or a == '-h' or a == '--help' then
      self:help(args)
      os.exit(0)
    end
    if self.options[a] then
      i = i + self:readOption(params, args, i)
    else
      n = n + 1
      local argument = self.arguments[n]
      if not argument then self:error('invalid argument: ' .. a) end
      params[strip(argument.key)] = a
      i = i + 1
    end
  end
  if n ~= #self.arguments then self:error('not enough arguments') end
  return params
end

-- A name for a run from the options that differ from their defaults: prefix,key=value,...
function CmdLine:string(prefix, params, ignore)
  prefix, ignore = prefix or '', ignore or {}
  local options, arguments = {}, {}
  for k, v in pairs(params) do
    local option = self.options['-' .. k]
    if ignore[k] then -- left out
    elseif option then
      if v ~= option.default or ignore[k] == false then
        if type(v) == 'boolean' then v = v and 't' or 'f' end
        table.insert(options, k .. self.keyseparator .. tostring(v))
      end
    else
      for j, argument in ipairs(self.arguments) do
        if strip(argument.key) == k then arguments[j] = k .. self.keyseparator .. tostring(v) end
      end
    end
  end
  table.sort(options)
  local parts = {}
  for j = 1, #self.arguments do if arguments[j] then parts[#parts + 1] = arguments[j] end end
  for _, o in ipairs(options) do parts[#parts + 1] = o end
  if #parts == 0 then return prefix end
  return prefix .. self.argseparator .. table.concat(parts, self.argseparator)
end

-- From here on print also writes to file (a path or an open file), then the parameters.
function CmdLine:log(file, params)
  local f = io.type(file) == 'file' and file or assert(io.open(file, 'w'))
  local print_before = print
  local cmd = self
  rawset(_G, 'print', function(...)
    if not cmd.silentio then print_before(...) end
    local parts = {}
    if cmd.dateformat then parts[1] = os.date(cmd.dateformat) end
    for i = 1, select('#', ...) do parts[#parts + 1] = tostring((select(i, ...))) end
    f:write(table.concat(parts, ' '), '\n')
    f:flush()
  end)
  print('[program started on ' .. os.date() .. ']')
  print('[command line arguments]')
  for k, v in pairs(params or {}) do print(k, v) end
  print('[----------------------]')
end

function CmdLine:help(args)
  local out = {}
  out[1] = 'Usage: ' .. (args and args[0] and args[0] .. ' ' or '') .. '[options]'
  for _, a in ipairs(self.arguments) do out[1] = out[1] .. ' <' .. strip(a.key) .. '>' end
  local width = 0
  for _, line in ipairs(self.helplines) do
    if type(line) == 'table' then
      width = math.max(width, line.default ~= nil and #line.key or #strip(line.key) + 2)
    end
  end
  for _, line in ipairs(self.helplines) do
    if type(line) == 'table' then
      local name = line.default ~= nil and line.key or '<' .. strip(line.key) .. '>'
      local text = '  ' .. name .. string.rep(' ', width - #name) .. (line.help and ' ' .. line.help or '')
      if line.default ~= nil then text = text .. ' [' .. tostring(line.default) .. ']' end
      out[#out + 1] = text
    else
      out[#out + 1] = line
    end
  end
  io.write(table.concat(out, '\n'), '\n')
end

return setmetatable({}, { __call = function(_, ...) return new(...) end, __index = CmdLine })
