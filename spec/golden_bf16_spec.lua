-- compute = 'bfloat16' against PyTorch's float64 golden vectors (golden/README.md): every output
-- and gradient of every case of the recurrent sets, on every device and CPU vector path, within
-- the bfloat16 rule (helper.golden_tolerance: max(1e-5, 4·e), e being PyTorch's own error under
-- CPU autocast to bfloat16 on that case and tensor), and apart from fused's float32 results by
-- more than float32 noise, so that a compute option that did nothing fails.
local fused = require 'fused'
local helper = require 'spec.helper'
local golden_rnn = require 'spec.golden_rnn'

local SETS = { 'lltm_cell', 'lltm_seq', 'lstm_cell', 'gru_cell', 'lstm_seq', 'gru_seq' }

-- Two float32 runs are each within the float32 rule's bound of the reference, so within twice
-- it of each other; every case's bfloat16 run differs from its float32 run by at least 242 times
-- that bound in some tensor (measured), so 16 times it tells a compute option that did nothing.
local APART = 16

local runnable = {}
for _, path in ipairs(helper.runnable_cpu_paths()) do runnable[path] = true end

-- The devices, each with the ways it runs (the CPU: its vector paths, the avx512 one multiplying
-- with AVX512_BF16 where the CPU has it, the others through the float32 fallback; CUDA: one,
-- cublasGemmEx, on the emulated device under make test), why a way cannot run here (nil: it
-- can), and how to run f that way.
local DEVICES = {
  { name = 'cpu', ways = helper.cpu_paths, under = helper.under_cpu_capability,
    missing = function(path)
      return not runnable[path] and 'this CPU has no ' .. path .. ' path' or nil
    end },
  { name = 'cuda', ways = { 'cublasGemmEx' }, under = function(_, f) return f() end,
    missing = function()
      return not helper.has_cuda() and 'no CUDA device: ' .. fused.cuda.why() or nil
    end },
}

describe("compute = 'bfloat16' against the golden vectors", function()
  for _, device in ipairs(DEVICES) do
    for _, way in ipairs(device.ways) do
      for _, setname in ipairs(SETS) do
        for _, case in ipairs(golden_rnn.sets[setname].cases) do
          local path = setname .. '/' .. case
          it(string.format('%s on %s %s: within the bfloat16 rule, apart from float32', path,
                           device.name, way), function()
            local why = device.missing(way)
            if why then
              pending(why)
              return
            end
            local bf, f32 = device.under(way, function()
              return golden_rnn.run(setname, case, 'float32', device.name,
                                    { compute = 'bfloat16' }),
                     golden_rnn.run(setname, case, 'float32', device.name)
            end)
            local ref, apart = helper.golden_case(path, 'float64'), 0
            for _, name in ipairs(helper.sorted_keys(bf)) do
              helper.assert_close(bf[name], ref[name],
                                  helper.golden_tolerance(path, name, 'bfloat16'), name)
              apart = math.max(apart, helper.rel_error(bf[name], f32[name])
                                      / helper.golden_tolerance(path, name, 'float32'))
            end
            assert(apart > APART, string.format('bfloat16 results within %.3g times the float32 '
                                                .. 'bound of float32 ones: compute ignored?',
                                                apart))
          end)
        end
      end
    end
  end
end)
