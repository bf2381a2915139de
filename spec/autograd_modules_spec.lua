-- A module with a forward only gets its backward from the tape (docs/nn.md, "A layer with a
-- forward only"); fused.grad for functions. Every gradient is checked against central
-- differences in float64.
local fused = require 'fused'
local nn = fused.nn

local o = { dtype = 'float64' }

-- d loss() / d t, by central differences (t contiguous, changed and put back).
local function numeric(loss, t)
  local flat, g = t:view(-1), fused.zeros({ t:numel() }, o)
  for i = 1, t:numel() do
    local v = flat[i]
    flat[i] = v + 1e-6
    local up = loss()
    flat[i] = v - 1e-6
    local down = loss()
    flat[i] = v
    g[i] = (up - down) / 2e-6
  end
  return g:view(t:shape())
end

local function assert_close(a, b, what)
  local err = a:sub(b):abs():view(-1):max(1):item()
  assert.is_true(err < 1e-7, string.format('%s: off by %g', what, err))
end

-- m's gradients (input and each parameter) for L = sum(m(x) * r), derived and numeric.
local function check_module(m, x, r)
  local function loss()
    m:eval()
    local v = m:forward(x):mul(r):sum()
    m:train()
    return v
  end
  m:zero_grad()
  m:forward(x)
  local dx = m:backward(r)
  assert_close(dx, numeric(loss, x), 'input')
  for name, p, g in m:named_parameters() do assert_close(g, numeric(loss, p), name) end
end

local Gate = nn.Module:extend('Gate')
function Gate:__init(n)
  self:parameter('weight', { n, n }, o):uniform(-1, 1)
  self.proj = nn.Linear(n, n, o)
end
function Gate:forward(x) return x:matmul(self.weight):sigmoid():mul(self.proj(x)) end

describe('a module with a forward only', function()
  it('gets the exact gradients, a built-in Linear inside one node', function()
    check_module(Gate(4), fused.randn({ 3, 4 }, o), fused.randn({ 3, 4 }, o))
  end)

  it('is exact when one derived module is called twice in a forward (its ops on the one tape)', function()
    local Twice = nn.Module:extend('Twice')
    function Twice:__init() self.gate = Gate(4) end
    function Twice:forward(x) return self.gate(self.gate(x):tanh()) end
    check_module(Twice(), fused.randn({ 3, 4 }, o), fused.randn({ 3, 4 }, o))
  end)

  it('keeps two calls of one module apart, each going back through its own tape', function()
    local m, x1, x2, r = Gate(4), fused.randn({ 3, 4 }, o), fused.randn({ 3, 4 }, o), fused.randn({ 3, 4 }, o)
    m:forward(x1)
    m:forward(x2)
    local d2 = m:backward(r) -- the latest call: x2's
    local d1 = m:backward(r)
    local function loss_of(x) return function() m:eval(); local v = m:forward(x):mul(r):sum(); m:train(); return v end end
    assert_close(d2, numeric(loss_of(x2), x2), 'second call')
    assert_close(d1, numeric(loss_of(x1), x1), 'first call')
  end)

  it('sums the gradient of tied weights into their one gradient', function()
    local Tied = nn.Module:extend('Tied')
    function Tied:__init()
      self.encoder = nn.Embedding(5, 4, o)
      self.decoder = nn.Linear(4, 5, o)
      self.mid = Gate(4)
      self.decoder.weight = self.encoder.weight
    end
    function Tied:forward(x)
      local h = self.mid(x:matmul(self.decoder.weight):tanh())
      return self.decoder(h):matmul(self.encoder.weight)
    end
    local m = Tied()
    local params = m:parameters()
    assert.are.equal(5, #params) -- the tied weight once, decoder.bias, mid.weight and mid.proj's two
    check_module(m, fused.randn({ 3, 5 }, o), fused.randn({ 3, 4 }, o))
  end)

  it('goes back through built-in LSTM and CrossEntropyLoss inside the forward', function()
    local Model = nn.Module:extend('Model')
    function Model:__init()
      self.lstm = nn.LSTM(3, 4, { dtype = 'float64' })
      self.loss = nn.CrossEntropyLoss()
      self.targets = fused.tensor({ 1, 3, 2, 4, 1, 2 }, { dtype = 'int64' })
    end
    function Model:forward(x)
      local hs = self.lstm(x:tanh())
      return hs:mul(2):reshape(6, 4):add(0):sum(2):mul(0):add(self.loss(hs:reshape(6, 4), self.targets))
    end
    check_module(Model(), fused.randn({ 2, 3, 3 }, o), fused.randn({ 6, 1 }, o))
  end)

  it('derives the composed LLTM cell\'s hand-written backward (docs/lltm.md) within 1e-12', function()
    local LLTM = nn.Module:extend('LLTMForwardOnly')
    function LLTM:__init(from)
      self:parameter('weight', from.weight:shape(), o):copy_(from.weight)
      self:parameter('bias', from.bias:shape(), o):copy_(from.bias)
    end
    function LLTM:forward(x, h, c)
      local gates = fused.addmm(self.bias, fused.cat({ h, x }, 2), self.weight:t()):chunk(3, 2)
      local new_c = gates[3]:elu():mul(gates[1]:sigmoid()):add(c)
      return new_c:tanh():mul(gates[2]:sigmoid()), new_c
    end
    local composed = nn.LLTMCellComposed(3, 5, o)
    local derived = LLTM(composed)
    local x, h, c = fused.randn({ 4, 3 }, o), fused.randn({ 4, 5 }, o), fused.randn({ 4, 5 }, o)
    local d_h, d_c = fused.randn({ 4, 5 }, o), fused.randn({ 4, 5 }, o)
    local want_h, want_c = composed:forward(x, h, c)
    local got_h, got_c = derived:forward(x, h, c)
    assert.is_true(got_h:sub(want_h):abs():max(1):max(2):item() < 1e-12)
    assert.is_true(got_c:sub(want_c):abs():max(1):max(2):item() < 1e-12)
    local want = { composed:backward(d_h, d_c) }
    local got = { derived:backward(d_h, d_c) }
    want[4], want[5], got[4], got[5] = composed.grad.weight, composed.grad.bias:view(1, -1),
                                       derived.grad.weight, derived.grad.bias:view(1, -1)
    for i = 1, 5 do
      local err = got[i]:sub(want[i]):abs():max(1):max(2):item()
      assert.is_true(err < 1e-12, string.format('gradient %d off by %g', i, err))
    end
  end)

  it('derives the ported language model\'s backward (docs/pytorch.md): Embedding, LSTM with dropout, Linear', function()
    local function model_class(name, hand_written)
      local LM = nn.Module:extend(name)
      function LM:__init()
        self.embed = nn.Embedding(7, 4, o)
        self.lstm = nn.LSTM(4, 5, { num_layers = 2, dropout = 0.3, batch_first = true, dtype = 'float64' })
        self.head = nn.Linear(5, 7, o)
      end
      function LM:forward(x)
        local hs, h_n, c_n = self.lstm:forward(self.embed:forward(x))
        return self.head:forward(hs), h_n, c_n
      end
      if hand_written then
        function LM:backward(d_logits)
          return self.embed:backward((self.lstm:backward(self.head:backward(d_logits))))
        end
      end
      return LM
    end
    local derived, hand = model_class('LMDerived')(), model_class('LMHand', true)()
    hand:load_state_dict(derived:state_dict())
    local x = fused.tensor({ { 1, 3, 5 }, { 7, 2, 2 } }, { dtype = 'int64' })
    local d_logits = fused.randn({ 2, 3, 7 }, o)
    for _, m in ipairs({ derived, hand }) do
      fused.manual_seed(5) -- the same dropout masks
      m:zero_grad()
      m:forward(x)
      m:backward(d_logits)
    end
    local want = {}
    for name, _, g in hand:named_parameters() do want[name] = g end
    for name, _, g in derived:named_parameters() do
      local err = g:sub(want[name]):abs():view(-1):max(1):item()
      assert.is_true(err < 1e-12, string.format('%s off by %g', name, err))
      assert.is_true(g:abs():sum() > 0, name)
    end
  end)

  it('is exact for the word model of issue 36: one Dropout used twice, tied weights, NLLLoss of log_softmax', function()
    local Word = nn.Module:extend('WordModel')
    function Word:__init()
      self.encoder = nn.Embedding(5, 4, o)
      self.drop = nn.Dropout(0.4)
      self.rnn = nn.LSTM(4, 4, { batch_first = true, dtype = 'float64' })
      self.decoder = nn.Linear(4, 5, o)
      self.decoder.weight = self.encoder.weight
      self.loss = nn.NLLLoss()
    end
    function Word:forward(x, y)
      local hs = self.rnn:forward(self.drop(self.encoder(x)))
      return self.loss:forward(self.decoder(self.drop(hs)):log_softmax(3):view(-1, 5), y)
    end
    local m = Word()
    local x = fused.tensor({ { 1, 3, 5 }, { 2, 2, 4 } }, { dtype = 'int64' })
    local y = fused.tensor({ 3, 5, 1, 2, 4, 4 }, { dtype = 'int64' })
    local function loss()
      fused.manual_seed(11) -- the same masks each time
      local v = m:forward(x, y):item()
      m:clearState()
      return v
    end
    m:zero_grad()
    fused.manual_seed(11)
    m:forward(x, y)
    m:backward()
    for name, p, g in m:named_parameters() do assert_close(g, numeric(loss, p), name) end
    assert.are.equal(6, #(m:parameters())) -- the tied weight once
  end)

  -- Dropout(0), and any Dropout in evaluation mode, returns its input itself: the gradient
  -- at its result is its input's (a node went back through it and added it in twice).
  it('goes through a built-in module that returns its input itself, once', function()
    local Pass = nn.Module:extend('PassThrough')
    function Pass:__init() self.gate, self.drop, self.off = Gate(4), nn.Dropout(0), nn.Dropout(0.5):eval() end
    function Pass:forward(x)
      local y = self.drop(self.gate(x))
      return y:mul(self.off(y)):add(self.drop(x))
    end
    check_module(Pass(), fused.randn({ 3, 4 }, o), fused.randn({ 3, 4 }, o))
    local Both = nn.Module:extend('InputAndMore')
    function Both:forward(x) return x, x:exp() end
    local Outer = nn.Module:extend('OuterOfBoth')
    function Outer:__init() self.both = Both() end
    function Both:backward(d_x, d_e) return d_x:add(d_e) end
    function Outer:forward(x) local a, b = self.both(x:exp()) return a:mul(b) end
    local ok, err = pcall(Outer().forward, Outer(), fused.randn({ 2 }, o))
    assert.is_false(ok)
    assert.matches('InputAndMore:forward: returned a tensor argument as it is beside other results', err)
  end)

  -- GraphConv:backward returns X's gradient alone (A is not differentiated): it went to A's
  -- place, and X got none (its gradient was off by 0.4).
  it('goes back through a built-in GraphConv inside, to X', function()
    local A = fused.sparse.normalize_adjacency(fused.sparse.from_coo({ 1, 2, 3, 4 }, { 2, 3, 4, 1 }, { 1, 1, 1, 1 }, { 4, 4 }, o))
    local Graph = nn.Module:extend('GraphBlock')
    function Graph:__init()
      self.gc = nn.GraphConv(3, 4, { activation = 'relu', dtype = 'float64' })
      self:parameter('w', { 4, 3 }, o):uniform(-1, 1)
    end
    function Graph:forward(x) return self.gc:forward(A, x:tanh()):matmul(self.w):add(x) end
    check_module(Graph(), fused.randn({ 4, 3 }, o), fused.randn({ 4, 3 }, o))
    local Dense = nn.Module:extend('GraphOfMadeA')
    function Dense:__init() self.gc = nn.GraphConv(3, 4, o) end
    function Dense:forward(A, x) return self.gc:forward(A:exp(), x) end
    local ok, err = pcall(Dense().forward, Dense(), fused.randn({ 4, 4 }, o), fused.randn({ 4, 3 }, o))
    assert.is_false(ok)
    assert.matches("GraphConv:forward: argument 'A' is a tensor of a recorded forward, but GraphConv:backward gives it no gradient", err)
    -- A dense A given to the forward gets no gradient (nil), not zeros; in fused.grad's params, an error.
    local Given = nn.Module:extend('GraphOfGivenA')
    function Given:__init() self.gc = nn.GraphConv(3, 4, o) end
    function Given:forward(A, x) return self.gc:forward(A, x:exp()) end
    local m, A, x = Given(), fused.randn({ 4, 4 }, o), fused.randn({ 4, 3 }, o)
    m:forward(A, x)
    local d_A, d_x = m:backward(fused.ones({ 4, 4 }, o))
    assert.is_nil(d_A)
    assert.is_true(d_x:abs():sum() > 0)
    ok, err = pcall(fused.grad(function(p) return m:forward(p.A, x):sum() end), { A = A })
    assert.is_false(ok)
    assert.matches("GraphConv:forward: argument 'A' is a tensor of a recorded forward", err)
  end)

  -- The value of a forward with losses inside: a number in evaluation mode, else a 0-dim tensor.
  local function value_of(m, x)
    m:eval()
    local v = m:forward(x)
    m:train()
    return type(v) == 'number' and v or v:item()
  end

  -- A criterion keeps its buffers per module, not per call: called twice in a forward, its
  -- second backward overwrote the first's gradient, which the tape kept (off by 6.1), and its
  -- second forward the first's 'none' losses.
  it('goes back through one loss called twice', function()
    local targets = fused.tensor({ 3, 1 }, { dtype = 'int64' })
    local Twice = nn.Module:extend('LossTwice')
    function Twice:__init() self.ce, self.each = nn.CrossEntropyLoss(), nn.CrossEntropyLoss({ reduction = 'none' }) end
    function Twice:forward(x)
      local a, b = x:tanh(), x:exp()
      local l1, l2 = self.each:forward(a, targets), self.each:forward(b, targets)
      return l1:mul(l1):add(l2):sum() + self.ce:forward(a, targets) * 2 + self.ce:forward(b, targets)
    end
    -- The same from functions, which keep no buffers (evaluation mode's module returns its one
    -- buffer of 'none' losses, which the second call overwrites, as Torch7's).
    local F = fused.functional
    local function reference(x)
      local a, b = x:tanh(), x:exp()
      local l1, l2 = F.cross_entropy(a, targets, { reduction = 'none' }), F.cross_entropy(b, targets, { reduction = 'none' })
      return l1:mul(l1):add(l2):sum() + F.cross_entropy(a, targets):item() * 2 + F.cross_entropy(b, targets):item()
    end
    local m, x = Twice(), fused.randn({ 2, 3 }, o)
    local value = m:forward(x):item()
    assert.is_true(math.abs(value - reference(x)) < 1e-12, 'the forward value')
    m:forward(x)
    assert_close(m:backward(), numeric(function() return reference(x) end, x), 'input')
  end)

  -- MSELoss:backward took no d_loss (an error at backward), and gave target no gradient.
  it('goes back through MSELoss to its input and a recorded target', function()
    local Pair = nn.Module:extend('MSEOfTwo')
    function Pair:__init() self.mse = nn.MSELoss() end
    function Pair:forward(x) return self.mse:forward(x:tanh(), x:exp()) * 3 end
    local m, x = Pair(), fused.randn({ 2, 3 }, o)
    m:forward(x)
    assert_close(m:backward(), numeric(function() return value_of(m, x) end, x), 'input')
  end)

  it('refuses an in-place op on a recorded tensor, and records nothing after', function()
    local Bad = nn.Module:extend('Bad')
    function Bad:forward(x) local y = x:exp(); y:add_(1); return y end
    local m, x = Bad(), fused.randn({ 2, 2 }, o)
    local ok, err = pcall(m.forward, m, x)
    assert.is_false(ok)
    assert.matches("add_: an in%-place op %(or {out = t}%) on a tensor of a recorded forward", err)
    x:add_(1) -- recording ended with the error: in place is fine again
    local Input = nn.Module:extend('Input')
    function Input:forward(x) x:mul_(2) return x end
    ok, err = pcall(Input().forward, Input(), x)
    assert.matches('mul_: an in%-place op', err)
  end)

  it('records nothing in evaluation mode, and backward says so', function()
    local m = Gate(4):eval()
    m:forward(fused.randn({ 3, 4 }, o))
    local ok, err = pcall(m.backward, m, fused.randn({ 3, 4 }, o))
    assert.is_false(ok)
    assert.matches('Gate:backward: its forward ran in evaluation mode, which records nothing', err)
  end)

  -- The replay adds a parameter's gradient in place (addmm_ from matmul and addmm, through
  -- w:t() too) and keeps its products in the call's buffers: the gradients stay exact, add up
  -- over steps, and equal fused.grad's (which keeps no buffers) step after step.
  it('adds into parameter gradients in place and reuses its buffers, exactly', function()
    local Shared = nn.Module:extend('Shared')
    function Shared:__init(n)
      self:parameter('weight', { n, n }, o):uniform(-1, 1)
      self:parameter('bias', { n }, o):uniform(-1, 1)
    end
    local function forward(w, b, x)
      local wt = w:t()
      local y = x:matmul(wt):tanh():matmul(wt)         -- w:t() read twice
      local z = w:matmul(y:t()):t()                     -- w the left operand
      return fused.addmm(b, z, w:t(), { alpha = 0.5 }):mul(y):add(x:matmul(w:transpose(1, 2))):add(y:matmul(w))
    end
    function Shared:forward(x) return forward(self.weight, self.bias, x) end
    local m, x, r = Shared(4), fused.randn({ 3, 4 }, o), fused.randn({ 3, 4 }, o)
    check_module(m, x, r)
    local df = fused.grad(function(p) return forward(p.w, p.b, p.x):mul(r):sum() end)
    local want = df({ w = m.weight, b = m.bias, x = x })
    m:zero_grad()
    for step = 1, 3 do
      m:forward(x)
      local dx = m:backward(r)
      assert.is_true(dx:sub(want.x):abs():max(1):max(2):item() < 1e-12, 'input, step ' .. step)
      assert.is_true(m.grad.weight:sub(want.w:mul(step)):abs():max(1):max(2):item() < 1e-12, 'weight, step ' .. step)
      assert.is_true(m.grad.bias:sub(want.b:mul(step)):abs():max(1):item() < 1e-12, 'bias, step ' .. step)
    end
  end)

  it('keeps no tape across steps: memory and storages allocated per step stay flat', function()
    local m, x, r = Gate(8), fused.randn({ 16, 8 }, o), fused.randn({ 16, 8 }, o)
    local made = {}
    local function steps(n)
      local before = fused.debug.allocations()
      for _ = 1, n do m:forward(x); m:backward(r) end
      made[#made + 1] = fused.debug.allocations() - before
      collectgarbage(); collectgarbage()
      return collectgarbage('count')
    end
    steps(200)
    local sizes = {}
    for i = 1, 4 do sizes[i] = steps(500) end
    assert.are.equal(0, #m.pending)
    -- A tape kept per step would hold 16x8 float64 tensors: 5 KB and more a step.
    assert.is_true(sizes[4] < sizes[1] + 200, string.format('%g KB after 1500 more steps, %g before', sizes[4], sizes[1]))
    -- The storages a step makes: as many in the last 500 steps as in the first 500 after warming.
    assert.are.equal(made[2], made[5])
    assert.is_true(made[5] <= 500 * 4, string.format('%d storages in 500 steps', made[5]))
  end)
end)

describe('fused.grad', function()
  -- The first gradient to reach a (from a:add(b), replayed first) is the very tensor that
  -- reaches b: the sum with a's later ones (a:mul(b)'s, then a:mul(2)'s) must not be made in it.
  it('sums a tensor\'s gradients without writing into one another tensor shares', function()
    local x = fused.randn({ 3, 4 }, o)
    local function f(p)
      local a, b = p.x:exp(), p.x:tanh()
      return a:mul(2):add(a:mul(b)):add(a:add(b)):sum()
    end
    local g = fused.grad(f)({ x = x })
    assert_close(g.x, numeric(function() return f({ x = x }) end, x), 'x')
  end)

  it('gives the gradients of nested params, mirroring them, and the value', function()
    local x = fused.randn({ 3, 4 }, o)
    local params = { w = fused.randn({ 4, 2 }, o), more = { b = fused.randn({ 2 }, o), unused = fused.randn({ 2 }, o) } }
    local function f(p, input) return input:matmul(p.w):add(p.more.b):tanh():pow(2):mean() end
    local grads, value = fused.grad(f)(params, x)
    assert.are.equal('number', type(value))
    assert.is_true(math.abs(value - f(params, x)) < 1e-12)
    local function loss() return f(params, x) end
    assert_close(grads.w, numeric(loss, params.w), 'w')
    assert_close(grads.more.b, numeric(loss, params.more.b), 'more.b')
    assert_close(grads.more.unused, fused.zeros({ 2 }, o), 'more.unused')
  end)

  it('names a bad argument and a bad value', function()
    assert.has_error(function() fused.grad(3) end, "fused.grad: argument 'f' expected a function, got number")
    local df = fused.grad(function(p) return p.w end)
    local ok, err = pcall(df, { w = fused.randn({ 2 }, o) })
    assert.matches('fused.grad: f returned a tensor of 2 elements; expected a number or a one%-element tensor', err)
    ok, err = pcall(df, { w = 'x' })
    assert.matches("fused.grad: argument 'params' expected a tensor or a table of tensors, got string at params.w", err)
  end)
end)

describe('the tape', function()
  local Plain = nn.Module:extend('Plain')
  function Plain:forward(f, ...) return f(...) end

  local function refused(f, ...)
    local ok, err = pcall(Plain().forward, Plain(), f, ...)
    assert.is_false(ok)
    return err
  end

  it('refuses t[k] = v, {out = t} and a write into a tensor a recorded op read', function()
    local x = fused.randn({ 2, 3 }, o)
    assert.matches('t%[k%] = v: an in%-place op', refused(function(a) local y = a:exp(); y[1] = 0; return y end, x))
    assert.matches('exp: an in%-place op', refused(function(a) local y = a:mul(2); fused.exp(a, { out = y }); return y end, x))
    local c = fused.ones({ 2, 3 }, o)
    assert.matches('fill_: an in%-place op', refused(function(a) local y = a:mul(c); c:fill_(2); return y end, x))
    assert.matches('copy_: an in%-place op', refused(function(a) local y = fused.zeros({ 2, 3 }, o); y:copy_(a); return y end, x))
    -- Before the tape reads it, a tensor of its own may be written in place.
    local m = Plain()
    m:forward(function(a) local k = fused.zeros({ 2, 3 }, o); k:fill_(3); return a:mul(k) end, x)
    assert_close(select(2, m:backward(fused.ones({ 2, 3 }, o))), fused.full({ 2, 3 }, 3, o), 'x')
  end)

  it('refuses an op without a rule, or a refused one, on a recorded tensor, naming it', function()
    -- (Every op of the op layer, fused.functional and fused.sparse has a rule or a reason now:
    -- the rules spec walks them; a function guarded without a rule stands for a new one.)
    local new = require('fused.autograd.tape').guard({ twice = function(t) return t:mul(2) end }, 'fused.new.')
    local err = refused(function(a) return new.twice(a) end, fused.randn({ 2, 3 }, o))
    assert.matches('fused.new.twice: no gradient rule yet', err)
    local targets = fused.tensor({ 1, 2 }, { dtype = 'int64' })
    err = refused(function(a) return fused.functional.cross_entropy_backward(a, targets) end, fused.randn({ 2, 3 }, o))
    assert.matches('fused.functional.cross_entropy_backward: read a tensor of a recorded forward: a backward function', err)
  end)

  it('goes back through a forward of several results, and Torch7\'s updateOutput', function()
    local Two = nn.Module:extend('Two')
    function Two:forward(x, y) return x:mul(y), x:exp() end
    local m, x, y = Two(), fused.randn({ 3 }, o), fused.randn({ 3 }, o)
    m:forward(x, y)
    local d_y1, d_y2 = fused.randn({ 3 }, o), fused.randn({ 3 }, o)
    local dx, dy = m:backward(d_y1, d_y2)
    assert_close(dx, d_y1:mul(y):add(d_y2:mul(x:exp())), 'x')
    assert_close(dy, d_y1:mul(x), 'y')

    local Scale = nn.Module:extend('Scale')
    function Scale:__init() self:parameter('weight', { 3 }, o):fill_(2) end
    function Scale:updateOutput(input) return input:mul(self.weight) end
    local s = Scale()
    s:forward(x)
    assert_close(s:backward(x, d_y1, 0.5), d_y1:mul(2), 'input')
    assert_close(s.grad.weight, d_y1:mul(x):mul(0.5), 'weight, scale 0.5')
    s:zero_grad()
    s:forward(x)
    assert_close(s:updateGradInput(x, d_y1), d_y1:mul(2), 'updateGradInput')
    assert_close(s.grad.weight, fused.zeros({ 3 }, o), 'weight before accGradParameters')
    s:accGradParameters(x, d_y1, 2)
    assert_close(s.grad.weight, d_y1:mul(x):mul(2), 'weight, accGradParameters scale 2')
  end)

  it('lets fused.grad add into the gradients of module parameters not in params', function()
    local gate, x = Gate(4), fused.randn({ 3, 4 }, o)
    gate:zero_grad()
    local grads = fused.grad(function(p) return gate(p.x):sum() end)({ x = x })
    local d_weight, d_proj = gate.grad.weight:clone(), gate.proj.grad.weight:clone()
    gate:zero_grad()
    gate:forward(x)
    local dx = gate:backward(fused.ones({ 3, 4 }, o))
    assert_close(grads.x, dx, 'x')
    assert_close(d_weight, gate.grad.weight, 'weight')
    assert_close(d_proj, gate.proj.grad.weight, 'proj.weight')
    assert.is_true(d_weight:abs():sum() > 0)
  end)
end)

describe('a second loaded copy of fused', function()
  it('records too (busted loads fused anew per spec file; the tensor metatype stays the first)', function()
    local saved = {}
    for k, v in pairs(package.loaded) do
      if k == 'fused' or k:match('^fused%.') then saved[k], package.loaded[k] = v, nil end
    end
    local ok, err = pcall(function()
      local again = require 'fused'
      assert.are_not.equal(fused, again)
      local w = again.randn({ 3 }, o)
      local grads = again.grad(function(p) return p.w:mul(p.w):sum() end)({ w = w })
      assert_close(grads.w, w:mul(2), 'w')
    end)
    for k in pairs(package.loaded) do
      if k == 'fused' or k:match('^fused%.') then package.loaded[k] = nil end
    end
    for k, v in pairs(saved) do package.loaded[k] = v end
    assert(ok, err)
  end)
end)

describe('a derived loss', function()
  local Loss = nn.Module:extend('SquaredError')
  function Loss:forward(y, target) return y:sub(target):pow(2):mean() end

  it('goes back from nothing or a number (1 by default, as loss.backward()), and names a missing gradient', function()
    local y, target = fused.randn({ 2, 3 }, o), fused.randn({ 2, 3 }, o)
    local m = Loss()
    m:forward(y, target)
    local d_y, d_target = m:backward()
    assert_close(d_y, y:sub(target):mul(2 / 6), 'y')
    assert_close(d_target, y:sub(target):mul(-2 / 6), 'target')
    m:forward(y, target)
    assert_close((m:backward(3)), y:sub(target):mul(6 / 6), 'y, gradient 3')
    local Two = nn.Module:extend('TwoResults')
    function Two:forward(x) return x:exp(), x:mul(2) end
    local two = Two()
    two:forward(y)
    local ok, err = pcall(two.backward, two)
    assert.is_false(ok)
    assert.matches('TwoResults:backward: expected a gradient per result of forward %(2%), got none', err)
    local Exp = nn.Module:extend('Exp')
    function Exp:forward(x) return x:exp() end -- a result of 6 elements: no default
    local e = Exp()
    e:forward(y)
    ok, err = pcall(e.backward, e)
    assert.matches('Exp:backward: expected a gradient per result of forward %(1%), got none', err)
  end)
end)
