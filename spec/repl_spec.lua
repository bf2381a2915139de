-- The REPL without a terminal (lua/fused/repl/): local rewriting, unfinished chunks, printing,
-- errors pointed at the user's input, completion candidates, sessions fed line by line, and
-- bin/fused's command line. spec/repl_terminal_spec.lua types into the real thing.
local helper = require 'spec.helper'
local fused = helper.fused
local chunk = require 'fused.repl.chunk'
local complete = require 'fused.repl.complete'
local errors = require 'fused.repl.errors'
local repl = require 'fused.repl'
local show = require 'fused.repl.show'

describe('repl chunk', function()
  it('makes top-level locals assignments, keeping every line where it was', function()
    local g = chunk.globalize_locals
    assert.are.equal(' x = 1', g('local x = 1'))
    assert.are.equal(' a, b = 1, 2', g('local a, b = 1, 2'))
    assert.are.equal(' a, b = nil', g('local a, b'))
    assert.are.equal('function f() return 1 end', g('local function f() return 1 end'))
    assert.are.equal(' x = 1;  y = 2', g('local x = 1; local y = 2'))
    assert.are.equal('function f()\n  local y = 1\nend\n z = 2',
                     g('function f()\n  local y = 1\nend\nlocal z = 2'))
  end)

  it('leaves locals in blocks, strings and comments alone', function()
    local g = chunk.globalize_locals
    for _, src in ipairs({ 'do local x = 1 end', 'if a then local x = 1 end', 'for i = 1, 2 do local x end',
                           'repeat local x = 1 until x', "s = 'local x'", 's = [[local x]]',
                           '-- local x', '--[==[ local x ]==]', 's = "a\\"local x"' }) do
      assert.are.equal(src, g(src))
    end
  end)

  it('compiles an expression, statements, or says the chunk is unfinished', function()
    local env = {}
    local f, is_expression = chunk.compile('1 + 1, "a"', '=input', env)
    assert.is_true(is_expression)
    assert.are.same({ 2, 'a' }, { f() })
    f, is_expression = chunk.compile('local x = 3', '=input', env)
    assert.is_false(is_expression)
    f()
    assert.are.equal(3, env.x)
    for _, src in ipairs({ 'function f()', 'x = {', '{1,', 'x = 1 +', 's = [[', 'for i = 1, 2 do\n  print(i)' }) do
      assert.are.same({ nil, 'incomplete' }, { chunk.compile(src, '=input', env) })
    end
    assert.are.same({ nil, "input:1: '=' expected near 'y'" }, { chunk.compile('x y', '=input', env) })
    assert.are.same({ nil, "input:2: '=' expected near ')'" }, { chunk.compile('f(\n)x)', '=input', env) })
  end)
end)

describe('repl show', function()
  it('prints values through tostring, tables by their contents, several on one line', function()
    assert.are.equal('1\tnil\ts', show.values(3, 1, nil, 's'))
    assert.are.equal('', show.values(0))
    assert.are.equal('{1, 2, k = "v", [true] = 3}', show.value({ 1, 2, k = 'v', [true] = 3 }))
    assert.are.equal('{{1, {...}}}', show.value({ { 1, { 2 } } }))
    assert.are.equal('fused.nn.ReLU', show.value(fused.nn.ReLU()))
  end)

  it('puts values that span lines (tensors) on lines of their own; inside a table, one line', function()
    local t = fused.ones({ 2 })
    assert.are.equal(tostring(t) .. '\n5', show.values(2, t, 5))
    assert.are.equal('{[fused.Tensor float32 cpu of size 2], fused.nn.Sequential { ...}',
                     show.value({ t, fused.nn.Sequential(fused.nn.ReLU()) }))
  end)
end)

describe('repl errors', function()
  it('points an error raised inside fused at the user\'s line, on one line', function()
    local f = chunk.compile('\nfused.nn.Sequential(fused.nn.Linear(2, 2)):forward(fused.ones({ 3, 3 }))',
                            '=input', setmetatable({ fused = fused }, { __index = _G }))
    local ok, e = xpcall(f, errors.handler)
    assert.is_false(ok)
    assert.are.equal("input:2: Linear:forward: argument 'input' expected B x 2 or T x B x 2, got [3, 3]", e.message)
    assert.truthy(e.traceback:find('nn/Linear.lua', 1, true), e.traceback)
    assert.falsy(e.traceback:find('xpcall', 1, true), e.traceback)
  end)

  it('keeps the user\'s own positions, and tells fused\'s files from others', function()
    assert.are.equal('input:3: boom', errors.clean('input:3: boom', 'input:1'))
    assert.are.equal('input:1: first line\nsecond', errors.clean('first line\nsecond', 'input:1'))
    assert.are.equal('input:1: boom', errors.clean('boom\nstack traceback:\n\t[C]: in ?', 'input:1'))
    assert.are.equal('x.lua:2: nn/Linear.lua', errors.clean('x.lua:2: nn/Linear.lua', 'input:1'))
    local linear = package.searchpath('fused.nn.Linear', package.path)
    assert.is_true(errors.is_internal(linear))
    assert.is_true(errors.is_internal('...' .. linear:sub(-20)))
    assert.is_true(errors.is_internal('[C]'))
    assert.is_false(errors.is_internal('input'))
    assert.is_false(errors.is_internal('/home/u/fused/train_mine.lua'))
  end)
end)

describe('repl completion', function()
  local env = setmetatable({ x = fused.ones({ 2 }), model = fused.nn.Linear(2, 3), fused = fused },
                           { __index = _G })

  it('completes globals, keywords, fields and the folder of a lazy table', function()
    assert.are.same({ 'fused' }, complete.candidates('fus', env))
    assert.are.same({ 'function' }, complete.candidates('functi', env))
    assert.are.same({ 'fused.zeros' }, complete.candidates('fused.ze', env))
    assert.are.same({ 'string.format' }, complete.candidates('string.form', env))
    assert.are.same({ 'fused.nn.LayerNorm' }, complete.candidates('fused.nn.Lay', env))
  end)

  it('completes a tensor\'s methods and a module\'s methods and fields', function()
    assert.are.same({ 'x:add', 'x:add_', 'x:addmm', 'x:addmm_' }, complete.candidates('x:ad', env))
    assert.are.same({ 'model:forward' }, complete.candidates('model:forw', env))
    assert.are.same({ 'model.weight' }, complete.candidates('model.wei', env))
    assert.are.same({}, complete.candidates('model:weigh', env)) -- not a method
  end)

  it('finds nothing, without raising, for unknown names and other words', function()
    assert.are.same({}, complete.candidates('nosuch.x', env))
    assert.are.same({}, complete.candidates('fused.nosuch:', env))
    assert.are.same({}, complete.candidates('x..y', env))
    assert.are.same({}, complete.candidates('f(x', env))
  end)
end)

describe('repl session', function()
  local function session(opts)
    local out, err = helper.sink(), helper.sink()
    opts = opts or {}
    opts.out, opts.err = out, err
    return repl.session(opts), out, err
  end

  it('prints each expression, keeps locals, and continues unfinished chunks', function()
    local s, out = session()
    assert.are.equal('done', s:feed('local x = 20'))
    assert.are.equal('more', s:feed('local function f(n)'))
    assert.are.equal('more', s:feed('  return n + x'))
    assert.are.equal('done', s:feed('end'))
    s:feed('f(1), f(2)')
    s:feed('print_me = nil')
    s:feed('print_me')
    assert.are.equal('21\t22\nnil\n', out.text())
    assert.is_nil(rawget(_G, 'x'), 'the session\'s names stay out of _G')
  end)

  it('shows an error as one line, its traceback on :traceback or with traceback on', function()
    local s, out, err = session()
    s:feed('fused.ones({2}) + fused.ones({3})')
    assert.truthy(err.text():match('^input:1: [^\n]*\n$'), err.text())
    s:feed(':traceback')
    assert.truthy(out.text():find('stack traceback', 1, true), out.text())
    s:feed(':nope')
    assert.truthy(err.text():find("unknown command ':nope' (:help lists them)", 1, true))
    local t, _, terr = session({ traceback = true })
    t:feed('error("boom")')
    assert.truthy(terr.text():find('^input:1: boom\ninput:1: boom\nstack traceback'), terr.text())
  end)

  it("shows a fused.ext compile error with the compiler's lines", function()
    local dir = os.tmpname()
    os.remove(dir)
    finally(function() os.execute("rm -rf '" .. dir .. "'") end)
    assert(os.execute("mkdir -p '" .. dir .. "'") == 0)
    local f = assert(io.open(dir .. '/bad.c', 'w'))
    f:write('int ext_bad(void) {\n  return 1 +;\n}\n')
    f:close()
    local s, _, err = session()
    s:feed("fused = require 'fused'")
    s:feed(string.format("fused.ext.load { name = 'bad', sources = { %q }, cache_dir = %q }",
                         dir .. '/bad.c', dir .. '/cache'))
    local text = err.text()
    assert.truthy(text:find('^input:1: [^\n]*compiling ' .. dir:gsub('%p', '%%%0') .. '/bad.c failed:\n'), text)
    assert.truthy(text:find(dir .. '/bad.c:2:%d+: error: '), text)
  end)

  it('prints the help of a value or a name through help(x) and ?x', function()
    local help = require 'fused.help'
    local s, out, err = session()
    s.env.fused = fused
    s:feed('help(fused.tanh)')
    s:feed("help('tanh')")
    s:feed('?fused.nn.LSTM')
    s:feed('?tanh')       -- no global tanh: the name
    s:feed('t = fused.zeros(2)')
    s:feed('? t:add')
    assert.are.equal(table.concat({ help.entries['fused.tanh'], help.entries['fused.tanh'],
                                    help.entries['fused.nn.LSTM'], help.entries['fused.tanh'],
                                    help.entries['fused.add'], '' }, '\n'), out.text())
    assert.are.equal('', err.text())
    s:feed('?nope')
    s:feed('help(nope)')
    s:feed('?fused.nn.Nope')
    assert.are.equal("help: no entry for 'nope'; help() says what has one\n"
                     .. 'help: got nil (a name not defined?); help() says what has an entry\n'
                     .. "help: no entry for 'fused.nn.Nope'; help() says what has one\n", err.text())
    s:feed(':help')
    assert.truthy(out.text():find('help(x), ?x', 1, true), out.text())
    assert.are.same({ 'help' }, complete.candidates('hel', s.env))
  end)

  it('lets a name of the user\'s own replace help', function()
    local s, out = session()
    s:feed('help = 3')
    s:feed('help')
    assert.are.equal('3\n', out.text())
  end)

  it('keeps history in $XDG_STATE_HOME, else in ~/.fused_history', function()
    local getenv = os.getenv
    finally(function() os.getenv = getenv end)
    local vars = { HOME = '/home/u' }
    os.getenv = function(k) return vars[k] end
    assert.are.equal('/home/u/.fused_history', repl.history_path())
    vars.XDG_STATE_HOME = '/state'
    assert.are.equal('/state/fused_history', repl.history_path())
  end)
end)

describe('README', function()
  it('has a tour that runs pasted line by line into the REPL', function()
    local f = assert(io.open('README.md'))
    local readme = f:read('*a')
    f:close()
    local code = assert(readme:match('## A tour.-```lua\n(.-)```'), 'no tour')
    local saved = os.tmpname()
    finally(function() os.remove(saved) end)
    code = code:gsub("'model%.safetensors'", "'" .. saved .. "'") -- not into the checkout
    local out, err = helper.sink(), helper.sink()
    local s = repl.session({ out = out, err = err })
    s.env.fused = fused
    fused.manual_seed(1) -- the same random numbers every run
    local state
    for line in code:gmatch('[^\n]+') do state = s:feed(line) end
    assert.are.equal('done', state)
    assert.are.equal('', err.text())
    assert.truthy(out.text():find('fused.Size({5, 4, 16})\tfused.Size({2, 4, 16})', 1, true), out.text())
    assert.truthy(out.text():find(require('fused.help').entries['fused.nn.LSTM'], 1, true), out.text())
    assert.is_true(s.env.last < s.env.first / 2, 'the loss fell')
    assert.are.same({ '0.bias', '0.weight', '2.bias', '2.weight' }, helper.sorted_keys(fused.load(saved)))
  end)
end)

describe('bin/fused', function()
  -- Runs bin/fused with the arguments (shell words) and input; returns its exit status and output.
  local function fused_cmd(args, input)
    local p = io.popen(string.format("printf '%s' | FUSED_NO_READLINE=1 bin/fused %s 2>&1; echo \"rc=$?\"",
                                     input or '', args))
    local text = p:read('*a')
    p:close()
    local body, rc = text:match('^(.-)rc=(%d+)\n$')
    return tonumber(rc), body
  end

  it('runs -e code and scripts with arg set, fused a global', function()
    assert.are.same({ 0, '6\n' }, { fused_cmd([[-e 'print(fused.ones({2}):sum() * 3)']]) })
    local script = os.tmpname()
    finally(function() os.remove(script) end)
    local f = assert(io.open(script, 'w'))
    f:write('print(arg[0] == ..., arg[1], select("#", ...))\n')
    f:close()
    assert.are.same({ 0, 'false\ta\t2\n' }, { fused_cmd(script .. ' a b') })
  end)

  it('reports an error in one line at the user\'s code, and exits 1', function()
    assert.are.same({ 1, "fused: (command line):1: Linear:forward: argument 'input' expected B x 2 or T x B x 2, got [3]\n" },
                    { fused_cmd([[-e 'fused.nn.Sequential(fused.nn.Linear(2, 2)):forward(fused.ones({3}))']]) })
    local rc, text = fused_cmd([[--traceback -e 'error("x")']])
    assert.are.equal(1, rc)
    assert.truthy(text:find('stack traceback', 1, true), text)
    assert.are.same({ 1, "fused: cannot open no-such-file.lua: No such file or directory\n" },
                    { fused_cmd('no-such-file.lua') })
  end)

  it('prints its usage on -h, and for an unknown option with an error', function()
    local rc, text = fused_cmd('-h')
    assert.are.equal(0, rc)
    assert.truthy(text:find('usage: fused [options] [script [args...]]', 1, true))
    rc, text = fused_cmd('--nope')
    assert.are.equal(1, rc)
    assert.truthy(text:find("^fused: unknown option '%-%-nope'\nusage"), text)
  end)

  it('runs the REPL on plain input from a pipe, with a banner saying so', function()
    local rc, text = fused_cmd('', 'local x = 2\\nx * 21\\n')
    assert.are.equal(0, rc)
    assert.truthy(text:find('^fused scm%-1 on LuaJIT [^\n]*threads%. CUDA')
                  or text:find('^fused scm%-1 on LuaJIT [^\n]*threads%. cuda %(emulated%)'), text)
    assert.truthy(text:find('No line editing or history (FUSED_NO_READLINE is set): plain input.', 1, true), text)
    assert.truthy(text:find('> > 42\n> \n$'), text)
  end)
end)
