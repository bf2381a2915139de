-- 0-d tensors (no dims, one element) and empty tensors (a size 0, no elements), as PyTorch has
-- them: the values in the comments are what PyTorch 1.13 gives for the same calls. Each case
-- runs on the CPU and on the CUDA device (the emulator under make test).
local helper = require 'spec.helper'
local fused = helper.fused

local dir = os.tmpname()
os.remove(dir)
os.execute('mkdir -p ' .. dir)

local function all_equal(t, v)
  for _, x in ipairs(t:view(-1):totable()) do if x ~= v then return false end end
  return true
end

for _, device in ipairs({ 'cpu', 'cuda' }) do
  local test = device == 'cuda' and helper.gpu_it or it
  local opts = { device = device }
  local function on(o) o.device = device; return o end

  describe('0-d tensors on ' .. device, function()
    test('fused.tensor(3.5) has no dims and one element', function()
      local s = fused.tensor(3.5, opts) -- torch.tensor(3.5): dim 0, shape (), numel 1
      assert.are.equal(0, s:dim())
      assert.are.same({}, s:shape())
      assert.are.same({}, s:stride())
      assert.are.equal(fused.Size({}), s:size())
      assert.are.equal(1, s:numel())
      assert.are.equal(3.5, s:item())
      assert.are.equal(3.5, s:totable()) -- tolist() of a 0-d tensor is its element
      assert.is_true(s:is_contiguous())
      assert.are.equal(true, fused.tensor(true, opts):item())
      assert.are.equal('bool', fused.tensor(true, opts).dtype)
      assert.are.equal(-7, fused.tensor(-7, on({ dtype = 'int64' })):item())
      assert.are.equal(0, fused.zeros({}, opts):dim())
      -- s[1]: IndexError: invalid index of a 0-dim tensor
      helper.assert_error(function() return s[1] end, 'a 0-d tensor cannot be indexed', 't:item()')
      helper.assert_error(function() return fused.zeros({ 0, 3 }, opts):item() end, 'item: expected a tensor of one element, got 0 of size [0, 3]')
    end)

    test('prints its value and a size of ()', function()
      assert.are.equal('3.5000\n[fused.Tensor float32 ' .. device .. ' of size ()]',
                       tostring(fused.tensor(3.5, opts)))
    end)

    test('broadcasts with any shape in elementwise ops', function()
      local s = fused.tensor(3.5, opts)
      local y = s + fused.ones({ 2, 2 }, opts) -- tensor([[4.5, 4.5], [4.5, 4.5]])
      assert.are.same({ { 4.5, 4.5 }, { 4.5, 4.5 } }, y:totable())
      assert.are.same({ 2, 2 }, (fused.ones({ 2 }, opts) * fused.tensor(2, opts) + fused.zeros({ 2, 1 }, opts)):shape())
      local ss = s * s -- 0-d
      assert.are.equal(0, ss:dim())
      assert.are.equal(12.25, ss:item())
      assert.are.equal(0, s:exp():dim())
      assert.are.equal(3.5, s:sum())
    end)

    test('views and reshapes to and from 0-d where numel is 1', function()
      local s = fused.tensor(3.5, opts)
      assert.are.equal(0, s:view({}):dim())
      assert.are.same({ 1 }, s:view(1):shape())    -- tensor([3.5000])
      assert.are.same({ 1, 1 }, s:reshape(1, 1):shape())
      local back = fused.ones({ 1, 1 }, opts):view({}) -- tensor(1.)
      assert.are.equal(0, back:dim())
      assert.are.equal(1, back:item())
      assert.are.equal(0, fused.ones({ 1 }, opts):reshape({}):dim())
      assert.are.equal(0, fused.ones({ 1, 1 }, opts):squeeze():dim()) -- torch.Size([])
      assert.are.same({ 1 }, s:flatten():shape())                     -- torch.Size([1])
      assert.are.same({ 1 }, s:unsqueeze(1):shape())
      helper.assert_error(function() fused.ones({ 2 }, opts):view({}) end, 'view', 'expected 2 elements in all, got 1')
    end)

    test('moves between devices and dtypes', function()
      local s = fused.tensor(3.5, opts)
      local there = s:to('cpu'):to(device)
      assert.are.equal(0, there:dim())
      assert.are.equal(3.5, there:item())
      assert.are.equal(3.5, s:to('float64'):item())
      assert.are.equal(-2, fused.tensor(-2, opts):to('int64', 'cpu'):item())
    end)
  end)

  describe('empty tensors on ' .. device, function()
    test('have a size 0, no elements and PyTorch\'s strides', function()
      local e = fused.zeros({ 0, 3 }, opts) -- torch.zeros(0, 3): stride (3, 1)
      assert.are.same({ 0, 3 }, e:shape())
      assert.are.same({ 3, 1 }, e:stride())
      assert.are.equal(0, e:numel())
      assert.are.equal(2, e:dim())
      assert.is_true(e:is_contiguous())
      assert.are.same({}, e:totable())
      assert.are.same({ 0 }, fused.tensor({}, opts):shape())   -- torch.tensor([]).shape (0,)
      assert.are.same({ 2, 0 }, fused.tensor({ {}, {} }, opts):shape())
      assert.are.same({ 0, 2 }, fused.empty(0, 2, opts):shape())
      assert.are.same({ 4, 0 }, fused.rand({ 4, 0 }, opts):shape())
    end)

    test('print as [] with their size', function()
      assert.are.equal('[]\n[fused.Tensor float32 ' .. device .. ' of size 0x3]', tostring(fused.zeros({ 0, 3 }, opts)))
    end)

    test('elementwise ops and copies give empty results', function()
      local e = fused.zeros({ 0, 3 }, opts)
      for _, r in ipairs({ e + 1, e + e, e:exp(), e + fused.ones({ 3 }, opts), e + fused.tensor(2, opts),
                           e:clone(), e:t():contiguous():t(), e:eq(e), e:clamp(0, 1),
                           fused.where(e:gt(0), e, e), e:masked_fill(e:gt(0), 1) }) do
        assert.are.same({ 0, 3 }, r:shape())
      end
      assert.are.same({ 0, 3 }, fused.ones({ 1, 3 }, opts):expand({ 0, 3 }):shape())
      assert.are.same({ 0, 3 }, fused.empty({ 0, 3 }, opts):copy_(e):shape())
      assert.are.same({ 0, 3 }, e:fill_(2):shape())
      assert.are.same({ 0, 3 }, e:to('float64').dtype == 'float64' and e:to('float64'):shape())
      assert.are.same({ 0, 3 }, e:softmax(2):shape())
      assert.are.same({ 0, 3 }, e:softmax(1):shape()) -- three columns of length 0: nothing read
      assert.are.same({ 0, 3 }, e:log_softmax(1):shape())
    end)

    test('sum of none is 0, prod 1, mean NaN; along a dim of size 0, zeros and ones', function()
      local e = fused.zeros({ 0, 3 }, opts)
      assert.are.equal(0, e:sum())                       -- tensor(0.)
      assert.are.equal(1, fused.zeros({ 0 }, opts):prod()) -- tensor(1.)
      local mean = e:mean()
      assert.is_true(mean ~= mean)                       -- tensor(nan)
      local var = e:var()
      assert.is_true(var ~= var)                         -- tensor(nan)
      assert.are.equal(0, e:norm())                      -- tensor(0.)
      assert.are.same({ { 0, 0, 0 } }, e:sum(1):totable()) -- sum(0, keepdim=True)
      assert.are.same({ { 1, 1, 1 } }, e:prod(1):totable())
      assert.are.same({ 0, 1 }, e:sum(2):shape())
      assert.are.same({ { 1 }, { 1 } }, fused.zeros({ 2, 0 }, opts):prod(2):totable())
    end)

    test('max, min and argmax of none are errors, as PyTorch\'s', function()
      local e = fused.zeros({ 0, 3 }, opts)
      for _, fn in ipairs({ 'max', 'min', 'argmax', 'argmin' }) do
        helper.assert_error(function() return e[fn](e) end, fn .. ": argument 'input' expected a tensor with elements",
                            'the ' .. fn .. ' of no elements is undefined')
      end
      helper.assert_error(function() return e:max(1) end, "max: argument 'input' expected a non-zero size in dim 1")
      local values, indices = e:max(2) -- max(1, keepdim=True): empty values and indices
      assert.are.same({ 0, 1 }, values:shape())
      assert.are.same({ 0, 1 }, indices:shape())
    end)

    test('cat with empty parts, narrow to length 0, index_select with an empty index', function()
      local e, o = fused.zeros({ 0, 3 }, opts), fused.ones({ 2, 3 }, opts)
      assert.are.same(o:totable(), fused.cat({ e, o }):totable())
      assert.are.same(o:totable(), fused.cat({ o, fused.tensor({}, opts), e }):totable()) -- a 1-D (0,) joins as nothing
      assert.are.same({ 0, 3 }, fused.cat({ e, e }):shape())
      assert.are.same({ 2, 6 }, fused.cat({ o, fused.zeros({ 2, 0 }, opts), o }, 2):shape())
      assert.are.same({ 0 }, fused.ones({ 3 }, opts):narrow(1, 4, 0):shape()) -- narrow(0, 3, 0)
      assert.are.same({ 3, 0 }, o:t():narrow(2, 2, 0):shape())
      local pieces = e:chunk(2) -- torch.zeros(0, 3).chunk(2): two empty pieces
      assert.are.equal(2, #pieces)
      assert.are.same({ 0, 3 }, pieces[2]:shape())
      assert.are.equal(1, #e:split(1))                    -- (tensor([], size=(0, 3)),)
      local parts = o:split({ 0, 2, 0 })                 -- sizes 0 are empty pieces
      assert.are.same({ 0, 3 }, parts[1]:shape())
      assert.are.same({ 0, 3 }, parts[3]:shape())
      local none = fused.tensor({}, on({ dtype = 'int64' }))
      assert.are.same({ 0, 3 }, o:index_select(1, none):shape())
      assert.are.same({ 0, 2 }, e:index_select(2, fused.tensor({ 1, 3 }, on({ dtype = 'int64' }))):shape())
      assert.are.same({ 2, 0 }, o:gather(2, fused.zeros({ 2, 0 }, on({ dtype = 'int64' }))):shape())
    end)

    test('views at an offset of a tensor with a size-0 dim, with PyTorch\'s shapes', function()
      local function shapes(list)
        local r = {}
        for i, v in ipairs(list) do r[i] = v:shape() end
        return r
      end
      local z = fused.zeros({ 4, 0 }, opts) -- torch.zeros(4, 0), strides (1, 1)
      assert.are.same({ 2, 0 }, z:narrow(1, 3, 2):shape())          -- narrow(0, 2, 2): (2, 0)
      assert.are.same({ 1, 1 }, z:narrow(1, 3, 2):stride())
      assert.are.same({ 0, 0 }, z:narrow(1, 5, 0):shape())          -- narrow(0, 4, 0): (0, 0)
      assert.are.same({ 0 }, z:select(1, 3):shape())                -- z[2]: (0,)
      assert.are.same({ 0 }, z[4]:shape())
      assert.are.same({ 2, 0 }, z[{ { 2, 3 } }]:shape())            -- z[1:3]: (2, 0)
      assert.are.same({ 1, 0 }, z[{ { -1 }, {} }]:shape())          -- z[-1:]: (1, 0)
      assert.are.same({ { 2, 0 }, { 2, 0 } }, shapes(z:split(2)))    -- split(2): two (2, 0)
      assert.are.same({ { 1, 0 }, { 3, 0 } }, shapes(z:split({ 1, 3 })))
      assert.are.same({ { 2, 0 }, { 2, 0 } }, shapes(z:chunk(3)))    -- chunk(3): two (2, 0)
      assert.are.same({ { 1, 0 }, { 1, 0 }, { 1, 0 }, { 1, 0 } }, shapes(z:chunk(4)))
      assert.are.same({ { 0 }, { 0 }, { 0 }, { 0 } }, shapes(z:unbind())) -- unbind(0): four (0,)
      assert.are.same({}, shapes(z:unbind(2)))                       -- unbind(1): ()
      assert.are.same({ 0, 2 }, z:narrow(1, 2, 2):transpose(1, 2):shape())
      assert.are.same({ 0, 2 }, z:narrow(1, 2, 2):t():shape())
      assert.are.same({ 3, 2, 0 }, z:narrow(1, 2, 2):expand(3, 2, 0):shape())
      assert.are.same({ 0 }, z:narrow(1, 3, 2):view(-1):shape())    -- view(-1): (0,)
      assert.are.same({ 0, 5 }, z:narrow(1, 3, 2):view(0, 5):shape())
      assert.are.same({ 2, 0, 1 }, z:narrow(1, 3, 2):unsqueeze(3):shape())
      assert.are.same({ 2, 0 }, z:narrow(1, 3, 2):contiguous():shape())
      local w = fused.zeros({ 0, 6 }, opts) -- along a dim whose size is not 0
      assert.are.same({ 0, 2 }, w:narrow(2, 5, 2):shape())          -- w[:, 4:6]: (0, 2)
      assert.are.same({ { 0, 4 }, { 0, 2 } }, shapes(w:split(4, 2)))
      assert.are.same({ { 0, 3 }, { 0, 3 } }, shapes(w:chunk(2, 2)))
      assert.are.same({ 0, 2 }, w[{ {}, { 3, 4 } }]:shape())
      assert.are.same({ 0 }, w:select(2, 6):shape())                -- w[:, 5]: (0,)
      assert.are.same(6, #w:unbind(2))
      -- the views read and write as any empty tensor
      local v = w:narrow(2, 5, 2)
      assert.are.same({}, (v + 1):totable())
      assert.are.same({ 0, 2 }, v:fill_(3):copy_(fused.ones({ 2 }, opts)):shape())
      assert.are.same({ 0, 2 }, v:clone():shape())
      -- a size-0 dim has no index to take (PyTorch: IndexError, index 0 is out of bounds)
      helper.assert_error(function() return w:select(1, 1) end,
                          "select: argument 'index' got 1, but dim 1 has size 0: no index to select")
      helper.assert_error(function() return w[1] end, 'index 1 is out of range for dim 1 of size 0 (it has no index to take)')
      helper.assert_error(function() return w[{ { 1, 1 } }] end, 'of size 0 (it has no index to take)')
      -- a non-empty tensor narrowed past its end then narrowed again (PyTorch: offset 18 > 16)
      assert.are.same({ 0, 2 }, fused.zeros({ 4, 4 }, opts):narrow(1, 5, 0):narrow(2, 3, 2):shape())
    end)

    test('matrix products with a 0 size: zeros for an inner 0, empty otherwise', function()
      local z = fused.ones({ 2, 0 }, opts):matmul(fused.ones({ 0, 3 }, opts)) -- zeros(2, 3)
      assert.are.same({ { 0, 0, 0 }, { 0, 0, 0 } }, z:totable())
      assert.are.same({ 0, 3 }, fused.ones({ 0, 4 }, opts):matmul(fused.ones({ 4, 3 }, opts)):shape())
      assert.are.same({ 2, 0 }, fused.ones({ 2, 4 }, opts):matmul(fused.ones({ 4, 0 }, opts)):shape())
      -- addmm(bias, (2, 0), (0, 3), beta=2) = 2 * bias on each row
      local y = fused.addmm(fused.tensor({ 1, 2, 3 }, opts), fused.ones({ 2, 0 }, opts), fused.ones({ 0, 3 }, opts),
                            { beta = 2 })
      assert.are.same({ { 2, 4, 6 }, { 2, 4, 6 } }, y:totable())
    end)

    test('a batch of none through nn: empty outputs, a NaN mean loss as PyTorch\'s', function()
      local linear = fused.nn.Linear(3, 2)
      local embedding = fused.nn.Embedding(5, 2)
      if device == 'cuda' then linear:cuda(); embedding:cuda() end
      assert.are.same({ 0, 2 }, linear:forward(fused.zeros({ 0, 3 }, opts)):shape())
      assert.are.same({ 0, 2 }, embedding:forward(fused.tensor({}, on({ dtype = 'int64' }))):shape())
      local loss = fused.nn.CrossEntropyLoss():forward(fused.zeros({ 0, 3 }, opts),
                                                       fused.tensor({}, on({ dtype = 'int64' })))
      assert.is_true(loss ~= loss) -- cross_entropy of (0, 3) logits: tensor(nan)
      -- logsumexp over a dim of size 0 is -inf, the log of an empty sum
      assert.are.same({ -math.huge, -math.huge, -math.huge }, fused.zeros({ 0, 3 }, opts):logsumexp(1):totable())
      -- the sequence engine refuses an empty batch or sequence (PyTorch runs them)
      local lstm = fused.nn.LSTM(3, 4)
      if device == 'cuda' then lstm:cuda() end
      helper.assert_error(function() lstm:forward(fused.zeros({ 5, 0, 3 }, opts)) end,
                          "LSTM:forward: argument 'xs' expected T x B x 3 (T, B >= 1: the sequence engine "
                          .. 'takes no empty sequence or batch yet; input_size 3), got [5, 0, 3]')
    end)

    test('move between devices and dtypes', function()
      local e = fused.zeros({ 0, 3 }, opts)
      assert.are.same({ 0, 3 }, e:to('cpu'):shape())
      assert.are.same({ 0, 3 }, e:to('cpu'):to(device):shape())
      assert.are.same({ 0, 3 }, e:to('int64'):shape())
    end)

    test('save and load as .npy and safetensors, 0-d with shape ()', function()
      for i, t in ipairs({ fused.tensor(3.5, opts), fused.zeros({ 0, 3 }, opts),
                           fused.tensor({}, on({ dtype = 'int64' })), fused.tensor(true, opts) }) do
        local npy, st = dir .. '/t' .. i .. '.npy', dir .. '/t' .. i .. '.safetensors'
        fused.save_npy(npy, t)
        fused.save(st, { t = t, other = fused.ones({ 2 }) })
        local loaded = fused.load(st)
        for _, u in ipairs({ fused.load_npy(npy), loaded.t }) do
          assert.are.same(t:shape(), u:shape())
          assert.are.equal(t.dtype, u.dtype)
          if t:numel() == 1 then assert.are.equal(t:item(), u:item()) end
        end
        assert.are.same({ 1, 1 }, loaded.other:totable())
      end
      -- the header fused writes for a 0-d tensor, as NumPy's: 'shape': ()
      assert.truthy(helper.read(dir .. '/t1.npy'):find("'shape': (), }", 1, true))
      assert.truthy(helper.read(dir .. '/t1.safetensors'):find('"shape":[]', 1, true))
      assert.truthy(helper.read(dir .. '/t2.safetensors'):find('"shape":[0,3]', 1, true))
    end)
  end)
end

describe('empty results of the CPU\'s selection ops', function()
  it('nonzero of none is 0 x ndim', function()
    assert.are.same({ 0, 1 }, fused.zeros(3):nonzero():shape())   -- torch.zeros(3).nonzero().shape (0, 1)
    assert.are.same({ 0, 2 }, fused.zeros(2, 3):nonzero():shape())
    assert.are.same({ 0, 2 }, fused.zeros(0, 3):nonzero():shape())
  end)

  it('t[mask] and masked_select selecting nothing, unique of nothing, an empty arange', function()
    local o = fused.ones(3)
    assert.are.same({ 0 }, o[o:lt(0)]:shape())                  -- tensor([])
    assert.are.same({ 0 }, fused.zeros(0, 3)[fused.zeros(0, 3):gt(0)]:shape())
    assert.are.same({ 0 }, fused.tensor({}):unique():shape())   -- tensor([])
    local values, inverse, counts = fused.tensor({}):unique({ return_inverse = true, return_counts = true })
    assert.are.same({ 0 }, values:shape())
    assert.are.same({ 0 }, inverse:shape())
    assert.are.same({ 0 }, counts:shape())
    assert.are.same({ 0 }, fused.arange(0):shape())             -- torch.arange(0)
    assert.are.same({ 0 }, fused.arange(2, 2):shape())
    assert.are.same({ 0 }, fused.zeros(0):sort():shape())
    assert.are.same({ 0, 3 }, fused.zeros(0, 3):cumsum(1):shape())
    local values, indices = fused.ones(3):topk(0) -- torch.ones(3).topk(0): empty values and indices
    assert.are.same({ 0 }, values:shape())
    assert.are.same({ 0 }, indices:shape())
  end)

  it('.npy files NumPy writes for 0-d and empty arrays load', function()
    -- np.save of np.array(7.0) and np.zeros((2, 0)): version 1, headers padded to 64 bytes
    local function npy(dict, data)
      dict = dict .. string.rep(' ', 64 - 10 - #dict - 1) .. '\n'
      return '\147NUMPY\1\0' .. string.char(#dict % 256, math.floor(#dict / 256)) .. dict .. data
    end
    local f = assert(io.open(dir .. '/np0.npy', 'wb'))
    f:write(npy("{'descr': '<f8', 'fortran_order': False, 'shape': (), }", '\0\0\0\0\0\0\28\64'))
    f:close()
    f = assert(io.open(dir .. '/npe.npy', 'wb'))
    f:write(npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 0), }", ''))
    f:close()
    local s = fused.load_npy(dir .. '/np0.npy')
    assert.are.equal(0, s:dim())
    assert.are.equal(7, s:item())
    assert.are.same({ 2, 0 }, fused.load_npy(dir .. '/npe.npy'):shape())
  end)
end)
