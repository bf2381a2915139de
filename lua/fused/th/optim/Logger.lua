-- optim.Logger([filename[, timestamp]]), torch/optim's Logger.lua: setNames{names} then
-- add{values}, or add{[name] = value}, writes a line of tab-separated values per add (numbers
-- as %11.4e) under a header line of the names; without a filename, to stdout. The file is
-- rewritten whole at each add (a new file renamed over it), so that it is never half
-- written. style, setlogscale and display keep their settings; plot() says, as Torch7's did
-- without gnuplot, that it cannot plot.
local file = require 'fused.file'
local class = require 'fused.th.class'

return function(optim)
  local Logger = class.class('optim.Logger', optim)

  function Logger:__init(filename, timestamp)
    if filename then
      self.name = filename
      if timestamp then filename = filename .. '-' .. os.date('%Y_%m_%d_%X') end
      self.path = filename
      self.epsfile = self.name .. '.eps'
    else
      self.name = 'stdout'
      print('<Logger> warning: no path provided, logging to std out')
    end
    self.lines = {}
    self.empty = true
    self.symbols, self.styles, self.names, self.idx = {}, {}, {}, {}
    self.showPlot = true
    self.defaultStyle = '+'
    self.logscale = false
  end

  local function write(self, line)
    if not self.path then
      io.stdout:write(line)
      io.stdout:flush()
      return
    end
    self.lines[#self.lines + 1] = line
    file.write_atomic('optim.Logger', self.path, self.lines)
  end

  function Logger:setNames(names)
    self.names, self.empty, self.nsymbols = names, false, #names
    local header = {}
    for k, key in ipairs(names) do
      header[k] = key .. '\t'
      self.symbols[k], self.styles[k], self.idx[key] = {}, { self.defaultStyle }, k
    end
    write(self, table.concat(header) .. '\n')
    return self
  end

  function Logger:add(symbols)
    if self.empty then
      -- Torch7 took pairs' order, which Lua leaves open: here a list's, or the names sorted.
      self.empty, self.order = false, {}
      for k in pairs(symbols) do self.order[#self.order + 1] = k end
      table.sort(self.order, function(a, b)
        if type(a) == type(b) then return a < b end
        return type(a) == 'number'
      end)
      self.nsymbols = #self.order
      local header = {}
      for i, k in ipairs(self.order) do
        header[i] = k .. '\t'
        self.symbols[k], self.styles[k], self.names[k] = {}, { self.defaultStyle }, k
      end
      self.idx = self.names
      write(self, table.concat(header) .. '\n')
    end
    local order = self.order or {}
    if not self.order then for k in ipairs(self.names) do order[k] = k end end
    local line = {}
    for i, k in ipairs(order) do
      local val = symbols[k]
      if type(val) == 'number' then
        line[i] = string.format('%11.4e', val) .. '\t'
      elseif type(val) == 'string' then
        line[i] = val .. '\t'
      else
        error(string.format("optim.Logger:add: '%s' expected a number or a string, got %s", tostring(k), type(val)), 2)
      end
    end
    write(self, table.concat(line) .. '\n')
    for _, k in ipairs(order) do table.insert(self.symbols[k], symbols[k]) end
  end

  function Logger:style(symbols)
    for name, style in pairs(symbols) do
      if type(style) ~= 'string' and type(style) ~= 'table' then
        error('optim.Logger:style: a style should be a string or a table of strings', 2)
      end
      self.styles[name] = type(style) == 'string' and { style } or style
    end
    return self
  end

  function Logger:setlogscale(state) self.logscale = state end

  function Logger:display(state) self.showPlot = state end

  function Logger:plot()
    if not self.warned then
      print('<Logger> warning: cannot plot with this version of Torch (fused th has no gnuplot; the log is in '
            .. self.name .. ')')
      self.warned = true
    end
  end
end
