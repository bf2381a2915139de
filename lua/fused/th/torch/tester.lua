-- torch.Tester() and torch.TestSuite(): Torch7's unit-test runner, as Torch7 programs' tests
-- use it. Tests are added (a function and its name, or a TestSuite), run() runs them (or those
-- named) in name order with _setUp and _tearDown around each, prints one line per failure and a
-- summary, and raises an error when any assertion failed or any test raised, so that the
-- program exits with a nonzero status.
local types = require 'fused.th.torch.types'
local blame = require 'fused.blame'

local Tester = {}
Tester.__index = Tester

local function new()
  return setmetatable({ tests = {}, failures = {}, current = '' }, Tester)
end

-- A TestSuite: a table of test functions, each name defined once.
local function suite()
  local tests = {}
  return setmetatable({ __isTestSuite = true, __tests = tests }, {
    __index = function(_, k) return tests[k] end,
    __newindex = function(_, k, v)
      if tests[k] ~= nil then blame('TestSuite: test ' .. tostring(k) .. ' is already defined') end
      if type(v) ~= 'function' then blame('TestSuite: a test must be a function, got ' .. type(v) .. ' for ' .. tostring(k)) end
      tests[k] = v
    end,
  })
end

function Tester:add(f, name)
  if type(f) == 'table' then
    if name ~= nil then blame('Tester:add: no name for a table of tests') end
    for k, v in pairs(f.__isTestSuite and f.__tests or f) do self:add(v, k) end
    return self
  end
  if type(f) ~= 'function' then blame('Tester:add: expected a function or a table of them, got ' .. type(f)) end
  name = name or 'unknown'
  if name == '_setUp' or name == '_tearDown' then
    self[name] = f
  else
    if self.tests[name] then blame('Tester:add: a test named ' .. name .. ' already exists') end
    self.tests[name] = f
  end
  return self
end

-- Records one assertion: nothing when it held, message (with where it was made) when not.
function Tester:_check(ok, message)
  if not ok then
    local where = debug.traceback('', 3):match('\n%s*([^\n]*)') or ''
    table.insert(self.failures, string.format('%s: %s (%s)', self.current, message, where))
  end
  return ok
end

local function note(message) return message and message ~= '' and message .. ': ' or '' end

function Tester:assert(condition, message)
  return self:_check(condition == true, note(message) .. 'BOOL violation condition=' .. tostring(condition))
end

local comparisons = {
  asserteq = { function(a, b) return a == b end, '==' }, assertne = { function(a, b) return a ~= b end, '~=' },
  assertlt = { function(a, b) return a < b end, '<' }, assertgt = { function(a, b) return a > b end, '>' },
  assertle = { function(a, b) return a <= b end, '<=' }, assertge = { function(a, b) return a >= b end, '>=' },
}
for name, c in pairs(comparisons) do
  Tester[name] = function(self, a, b, message)
    return self:_check(c[1](a, b), string.format('%s%s %s %s violated', note(message), tostring(a), c[2], tostring(b)))
  end
end

function Tester:assertalmosteq(a, b, tolerance, message)
  if type(tolerance) == 'string' then tolerance, message = nil, tolerance end
  tolerance = tolerance or 1e-16
  return self:_check(math.abs(a - b) <= tolerance,
                     string.format('%s|%s - %s| <= %s violated', note(message), tostring(a), tostring(b), tostring(tolerance)))
end

-- The largest |a - b| over two tensors of as many elements, or nil when the counts differ.
local function max_difference(a, b)
  if a:numel() ~= b:numel() then return nil end
  if a:numel() == 0 then return 0 end
  local fa, fb = a:to('float64'):contiguous():view(a:numel()), b:to('float64'):contiguous():view(b:numel())
  return (fa - fb):abs_():max()
end

function Tester:assertTensorEq(a, b, tolerance, message)
  if type(tolerance) == 'string' then tolerance, message = nil, tolerance end
  local d = max_difference(a, b)
  return self:_check(d ~= nil and d <= (tolerance or 0),
                     string.format('%stensors differ by %s (tolerance %s)', note(message), tostring(d or 'their sizes'), tostring(tolerance or 0)))
end

function Tester:assertTensorNe(a, b, tolerance, message)
  if type(tolerance) == 'string' then tolerance, message = nil, tolerance end
  local d = max_difference(a, b)
  return self:_check(d == nil or d > (tolerance or 0), note(message) .. 'tensors are equal')
end

-- Deep equality of Lua values, tensors compared by their elements.
local function equal(a, b, tolerance)
  if types.is_tensor(a) and types.is_tensor(b) then
    local d = max_difference(a, b)
    return d ~= nil and d <= tolerance
  end
  if type(a) == 'number' and type(b) == 'number' then return math.abs(a - b) <= tolerance end
  if type(a) ~= 'table' or type(b) ~= 'table' then return a == b end
  for k, v in pairs(a) do if not equal(v, b[k], tolerance) then return false end end
  for k in pairs(b) do if a[k] == nil then return false end end
  return true
end

function Tester:assertTableEq(a, b, tolerance, message)
  if type(tolerance) == 'string' then tolerance, message = nil, tolerance end
  return self:_check(equal(a, b, tolerance or 0), note(message) .. 'tables differ')
end
function Tester:assertTableNe(a, b, tolerance, message)
  if type(tolerance) == 'string' then tolerance, message = nil, tolerance end
  return self:_check(not equal(a, b, tolerance or 0), note(message) .. 'tables are equal')
end
function Tester:eq(a, b, tolerance, message)
  if type(tolerance) == 'string' then tolerance, message = nil, tolerance end
  return self:_check(equal(a, b, tolerance or 0), note(message) .. 'values differ')
end
function Tester:ne(a, b, tolerance, message)
  if type(tolerance) == 'string' then tolerance, message = nil, tolerance end
  return self:_check(not equal(a, b, tolerance or 0), note(message) .. 'values are equal')
end
Tester.assertGeneralEq, Tester.assertGeneralNe = Tester.eq, Tester.ne

function Tester:assertError(f, message) return self:_check(not pcall(f), note(message) .. 'no error raised') end
function Tester:assertNoError(f, message)
  local ok, e = pcall(f)
  return self:_check(ok, note(message) .. 'error raised: ' .. tostring(e))
end
function Tester:assertErrorMsg(f, expected, message)
  local ok, e = pcall(f)
  return self:_check(not ok and tostring(e) == expected, note(message) .. 'error ' .. tostring(e) .. ', expected ' .. expected)
end
function Tester:assertErrorPattern(f, pattern, message)
  local ok, e = pcall(f)
  return self:_check(not ok and tostring(e):find(pattern) ~= nil, note(message) .. 'error ' .. tostring(e) .. ' does not match ' .. pattern)
end

-- Runs the tests (all, or those named: a name or a list), prints the failures and a summary;
-- an error when any failed.
function Tester:run(names)
  if type(names) == 'string' then names = { names } end
  local list = {}
  if names then
    for _, n in ipairs(names) do
      if not self.tests[n] then blame('Tester:run: no test named ' .. tostring(n)) end
      list[#list + 1] = n
    end
  else
    for n in pairs(self.tests) do list[#list + 1] = n end
  end
  table.sort(list)
  local errors = 0
  for _, n in ipairs(list) do
    self.current = n
    local ok, e = xpcall(function()
      if self._setUp then self._setUp(n) end
      self.tests[n]()
      if self._tearDown then self._tearDown(n) end
    end, debug.traceback)
    if not ok then
      errors = errors + 1
      table.insert(self.failures, n .. ': error: ' .. tostring(e))
    end
  end
  for _, f in ipairs(self.failures) do io.write(f, '\n') end
  io.write(string.format('Completed %d tests with %d failures and %d errors\n', #list,
                         #self.failures - errors, errors))
  if #self.failures > 0 then error('An error was found while running tests!', 2) end
  return 0
end

return { Tester = setmetatable({}, { __call = function() return new() end, __index = Tester }), TestSuite = suite }
