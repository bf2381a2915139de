-- bin/fused typed into through a real terminal: tmux runs it in a 120 x 40 pane, send-keys types
-- and capture-pane reads the screen. Pending where tmux is not installed.
local function output(cmd)
  local p = io.popen(cmd)
  local text = p:read('*a')
  p:close()
  return text
end

if output('command -v tmux') == '' then
  describe('bin/fused in a terminal', function()
    pending('tmux is not installed (apt-get install tmux): the REPL was not typed into')
  end)
  return
end

local function q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- A tmux server of each terminal's own, its socket in the test's home, so that no one else's
-- sessions are touched and nothing is left behind. Not one server for the test: a terminal whose
-- REPL quits takes its server down, and a terminal started while that server exits is lost.
local sockets = {}
local function tmux_on(socket, args)
  return output('tmux -S ' .. q(socket) .. ' ' .. args .. ' 2>&1')
end

-- A terminal running bin/fused with env (a string of NAME=value words) and a home of its own.
local function terminal(home, env)
  local socket = string.format('%s/tmux-%d.socket', home, #sockets + 1)
  sockets[#sockets + 1] = socket
  local function tmux(args) return tmux_on(socket, args) end
  tmux(string.format('new-session -d -x 120 -y 40 -s repl -c %s %s', q(os.getenv('PWD') or '.'),
                     q(string.format('env HOME=%s XDG_STATE_HOME= TERM=xterm %s bin/fused', home, env or ''))))
  local term = {}
  -- The screen's text; capture-pane drops each line's trailing spaces ('> ' reads '>').
  function term.screen() return tmux('capture-pane -p -t repl'):gsub('\n+$', '\n') end
  -- Waits (up to 10 s) until the screen shows `text`; returns the screen.
  function term.wait_for(text)
    for _ = 1, 100 do
      local screen = term.screen()
      if screen:find(text, 1, true) then return screen end
      os.execute('sleep 0.1')
    end
    error(string.format('the screen never showed %q; it shows:\n%s', text, term.screen()), 2)
  end
  -- Types keys (tmux key names: Enter, Up, Tab, C-d) or text (a string in a table, typed as is).
  function term.type(...)
    local words = {}
    for i, k in ipairs({ ... }) do words[i] = type(k) == 'table' and '-l ' .. q(k[1]) or k end
    for _, w in ipairs(words) do tmux('send-keys -t repl ' .. w) end
  end
  -- Waits for a prompt ('>' or '>>') on the last line: keys typed sooner are echoed by the
  -- terminal before readline draws its line, and the screen would show them twice.
  function term.prompt()
    for _ = 1, 100 do
      if term.screen():find('\n>>?\n$') then return end
      os.execute('sleep 0.05')
    end
    error('no prompt; the screen shows:\n' .. term.screen(), 2)
  end
  -- Waits (up to 10 s) until the REPL has quit and its terminal closed.
  function term.closed()
    for _ = 1, 100 do
      if tmux('has-session -t repl') ~= '' then return end
      os.execute('sleep 0.1')
    end
    error('the REPL did not quit; the screen shows:\n' .. term.screen(), 2)
  end
  -- The lines that begin with a prompt ('>' or '>>'), typed on or not.
  function term.prompts()
    local n = 0
    for _ in ('\n' .. term.screen()):gmatch('\n>') do n = n + 1 end
    return n
  end
  -- Types keys, then waits (up to 10 s) for the fresh prompt they lead to: keys typed before
  -- it could be echoed by the terminal ahead of the REPL's own output.
  function term.type_to_prompt(...)
    local before = term.prompts()
    term.type(...)
    for _ = 1, 100 do
      if term.prompts() > before then return term.prompt() end
      os.execute('sleep 0.1')
    end
    error('no new prompt; the screen shows:\n' .. term.screen(), 2)
  end
  -- Types a line at the next prompt and waits for the prompt after it: keys typed sooner
  -- (Ctrl-C above all) could reach the REPL while it still reads or runs the line.
  function term.line(text)
    term.prompt()
    term.type_to_prompt({ text }, 'Enter')
  end
  -- Types a line that does not return to the prompt (a computation to interrupt).
  function term.start(text)
    term.prompt()
    term.type({ text }, 'Enter')
  end
  term.wait_for('Ctrl-D quits.\n>\n')
  return term
end

describe('bin/fused in a terminal', function()
  local home
  before_each(function()
    home = output('mktemp -d'):gsub('%s', '')
  end)
  after_each(function()
    for _, socket in ipairs(sockets) do tmux_on(socket, 'kill-server') end
    sockets = {}
    os.execute('rm -rf ' .. q(home))
  end)

  it('prints a banner, then the value of every expression', function()
    local t = terminal(home)
    local screen = t.wait_for('Tab completes, Up recalls history')
    assert.truthy(screen:find('^fused scm%-1 on LuaJIT 2%.1'), screen)
    t.line('1 + 2, "three"')
    t.wait_for('> 1 + 2, "three"\n3       three\n') -- the tab, as the terminal shows it
    t.line('fused.ones({2, 3})')
    t.wait_for('[fused.Tensor float32 cpu of size 2x3]')
    t.line('x = 5')
    t.line('x')
    t.wait_for('> x = 5\n> x\n5\n')
  end)

  it('keeps a local across lines, and continues a function at a >> prompt', function()
    local t = terminal(home)
    t.line('local y = 40')
    t.line('function f(n)')
    t.wait_for('>>\n')
    t.line('  return n + y')
    t.line('end')
    t.line('f(2)')
    t.wait_for('> function f(n)\n>>   return n + y\n>> end\n> f(2)\n42\n')
  end)

  it('shows an error as one line at the input', function()
    local t = terminal(home)
    t.line('fused.nn.Sequential(fused.nn.Linear(2, 2)):forward(fused.ones({3}))')
    local screen = t.wait_for("input:1: Linear:forward: argument 'input' expected B x 2 or T x B x 2, got [3]\n>\n")
    assert.falsy(screen:find('traceback', 1, true), screen)
    assert.falsy(screen:find('nn/Linear.lua', 1, true), screen)
    t.line(':traceback')
    t.wait_for('nn/Linear.lua')
  end)

  it('recalls earlier lines with Up, in this session and the next', function()
    local t = terminal(home)
    t.line('z = 123')
    t.line('"other"')
    t.prompt()
    t.type('Up', 'Up')
    t.wait_for('> z = 123')
    t.type('Enter')
    t.line('z')
    t.wait_for('> z\n123\n')
    t.prompt()
    t.type('C-d')
    t.closed() -- its history is written by then
    local again = terminal(home)
    again.type('Up')
    again.wait_for('> z\n') -- the last line of the first session
    local f = assert(io.open(home .. '/.fused_history'))
    assert.truthy(f:read('*a'):find('z = 123\n', 1, true))
    f:close()
  end)

  -- A history file that is not a regular one: a FIFO blocked the REPL before its banner
  -- (opening it for appending waits for a reader), and readline reads a file whole.
  it('keeps no history, saying why, in a FIFO or an oversized file, and still runs', function()
    local path = home .. '/.fused_history'
    os.execute('mkfifo ' .. q(path))
    local t = terminal(home)
    t.wait_for('No history kept: ' .. path .. ': not a regular file (a FIFO).\nTab completes.')
    t.line('40 + 2')
    t.wait_for('> 40 + 2\n42\n')
    os.execute('rm ' .. q(path) .. ' && truncate -s 17M ' .. q(path))
    local again = terminal(home)
    again.wait_for('No history kept: ' .. path .. ': 17825792 bytes, larger than any history')
    again.line('x = 1')
    assert.equal('17825792', output('stat -c %s ' .. q(path)):gsub('%s', ''))
  end)

  it('completes a tensor method and a module name with Tab', function()
    local t = terminal(home)
    t.line('x = fused.ones({2})')
    t.prompt()
    t.type({ 'x:ad' }, 'Tab')
    t.wait_for('> x:add')
    t.type({ '_(1)' }, 'Enter')
    t.wait_for('  2   2\n')
    t.prompt()
    t.type({ 'fused.nn.Seq' }, 'Tab')
    t.wait_for('> fused.nn.Sequential')
  end)

  it('prints the help of a name with ?x and help(x)', function()
    local t = terminal(home)
    t.line('?fused.nn.LSTM')
    t.wait_for("> ?fused.nn.LSTM\nfused.nn.LSTM(input_size, hidden_size,")
    t.line("help('tanh')")
    t.wait_for("> help('tanh')\nfused.tanh(t, {opts})")
    t.line('?nope')
    t.wait_for("> ?nope\nhelp: no entry for 'nope'")
  end)

  -- Ctrl-C at the prompt drops the line, or the unfinished chunk, and the session goes on.
  local function ctrl_c_at_the_prompt(t)
    t.line('w = 7')
    t.prompt()
    t.type_to_prompt('C-c')
    t.wait_for('> w = 7\n>') -- no error
    t.line('w * 6')
    t.wait_for('> w * 6\n42\n')
    t.prompt()
    t.type_to_prompt({ 'w = 100' }, 'C-c')
    t.wait_for('> w = 100^C\n>')
    t.line('w + 1')
    t.wait_for('> w + 1\n8\n')
    t.line('function g()')
    t.wait_for('>>\n')
    t.type_to_prompt('C-c')
    t.line('g')
    t.wait_for('> g\nnil\n')
  end

  it('drops the line at Ctrl-C and keeps the session', function()
    ctrl_c_at_the_prompt(terminal(home))
  end)

  it('drops the line at Ctrl-C in plain input too', function()
    ctrl_c_at_the_prompt(terminal(home, 'FUSED_NO_READLINE=1'))
  end)

  it('stops a computation at Ctrl-C, and returns to the prompt', function()
    local t = terminal(home)
    t.line('v = 3')
    t.line('jit.off()') -- LuaJIT's hook, which raises the error, never runs in a compiled loop
    for i = 1, 2 do
      t.start('while true do end')
      os.execute('sleep 0.3')
      t.type('C-c')
      t.line('v + ' .. i)
      t.wait_for(string.format('input:1: interrupted!\n> v + %d\n%d\n', i, 3 + i))
    end
  end)

  it('falls back to plain input with FUSED_NO_READLINE=1, and says so', function()
    local t = terminal(home, 'FUSED_NO_READLINE=1')
    t.wait_for('No line editing or history (FUSED_NO_READLINE is set): plain input.')
    t.line('6 * 7')
    t.wait_for('> 6 * 7\n42\n')
    t.prompt()
    t.type('Up')
    t.wait_for('^[[A') -- the terminal echoes the key: no history
  end)
end)
