-- Every public function of c/fused.h called through fused.C with NULL and with a released
-- tensor in each pointer argument: a clear error through fused_last_error() and the function's
-- error value, never a crash (run it under make test-asan too). Also the C API's size
-- arithmetic (checked, with readable messages) and views that reuse their source struct.
local ffi = require 'ffi'
local helper = require 'spec.helper'
local fused = helper.fused
local C = fused.C

local F64, I64 = { dtype = 'float64' }, { dtype = 'int64' }
local function t(...) return fused.zeros({ ... }, F64) end
local function ints(...) return ffi.new('int64_t[?]', select('#', ...), { ... }) end
local function ivec(...) return fused.tensor({ ... }, I64) end
local function izeros(n) return fused.zeros({ n }, I64) end
local function last_error() return ffi.string(C.fused_last_error()) end

local function released()
  local r = t(2, 3)
  C.fused_tensor_release(r)
  return r
end

local T, B, I, H = 2, 2, 3, 4
-- Each case: valid arguments (made afresh per call), the positions that must not be NULL and
-- those that must not be a released tensor (`released` defaults to `null`), with the argument
-- names the errors give; a rejected call returns -1. `ok` is what a valid call returns (0
-- unless given); `free` releases what it made outside Lua's collector.
local CASES = {
  fused_tensor_init = { function() return { ffi.new('fused_tensor'), 2, ints(2, 3), 1, 0 } end,
                        null = { 't', nil, 'sizes' }, released = {} }, -- t is filled, not read
  fused_tensor_new = { function() return { ffi.new('fused_tensor*[1]'), 2, ints(2, 3), 1, 0 } end,
                       null = { 'out', nil, 'sizes' }, released = {},
                       free = function(a) C.fused_tensor_free(a[1][0]) end },
  fused_tensor_view = { function() return { ffi.new('fused_tensor'), t(2, 3), 1, ints(3), ints(1), 0 } end,
                        null = { 'out', 'src', nil, 'sizes', 'strides' }, released = { [2] = 'src' } },
  fused_tensor_is_contiguous = { function() return { t(2) } end, null = { 't' }, ok = 1 },
  -- arg names the tensor in its errors: 't' here, as the cases' names expect.
  fused_check_writable = { function() return { 'fill_', 't', t(2) } end, null = { 'fn', 'arg', 't' },
                           released = { nil, nil, 't' } },
  fused_check_scalar = { function() return { 'fill_', 'value', 1, C.FUSED_INT64 } end, null = { 'fn', 'arg' },
                         released = {} },
  fused_tensor_numel = { function() return { t(2) } end, null = { 't' }, ok = 2 },
  fused_copy = { function() return { t(2, 3), t(2, 3) } end, null = { 'dst', 'src' },
                 released = { 'dst', 'src' } },
  fused_fill = { function() return { t(2), 1 } end, null = { 't' }, released = { 't' } },
  fused_unary = { function() return { C.FUSED_EXP, t(2), t(2), 1 } end,
                  null = { nil, 'out', 'in' }, released = { nil, 'out', 'in' } },
  fused_binary = { function() return { C.FUSED_ADD, t(2), t(2), t(2) } end,
                   null = { nil, 'out', 'a', 'b' }, released = { nil, 'out', 'a', 'b' } },
  fused_binary_scalar = { function() return { C.FUSED_ADD, t(2), t(2), 1 } end,
                          null = { nil, 'out', 'a' }, released = { nil, 'out', 'a' } },
  fused_addmm = { function() return { t(2, 4), t(4), t(2, 3), t(3, 4), 1, 1 } end,
                  null = { 'out', nil, 'a', 'b' }, released = { 'out', 'bias', 'a', 'b' } },
  fused_sum_dim = { function() return { t(1, 3), t(2, 3), 0 } end, null = { 'out', 'in' },
                    released = { 'out', 'in' } },
  fused_cat = { function()
                  local parts = { t(2, 3), t(2, 3) } -- kept alive by the arguments: the array does not
                  return { t(4, 3), ffi.new('const fused_tensor*[2]', parts), 2, 0, keep = parts }
                end,
                null = { 'out', 'inputs' }, released = { 'out' } },
  fused_compare = { function() return { C.FUSED_EQ, fused.zeros({ 2 }, { dtype = 'bool' }), t(2), t(2) } end,
                    null = { nil, 'out', 'a', 'b' }, released = { nil, 'out', 'a', 'b' } },
  fused_compare_scalar = { function() return { C.FUSED_LT, fused.zeros({ 2 }, { dtype = 'bool' }), t(2), 1 } end,
                           null = { nil, 'out', 'a' }, released = { nil, 'out', 'a' } },
  fused_uniform = { function() return { t(2), 0, 1 } end, null = { 't' }, released = { 't' } },
  fused_normal = { function() return { t(2), 0, 1 } end, null = { 't' }, released = { 't' } },
  fused_lltm_seq_forward = {
    function()
      return { t(T, B, H), t(B, H), t(B, H), t(T, B, 5 * H), t(T, B, I), t(B, H), t(B, H),
               t(3 * H, H + I), t(3 * H), ints(2, 1), 0, 0 }
    end,
    null = { 'hs', 'h_T', 'c_T', 'saved', 'xs', 'h0', 'c0', 'W', 'b' } },
  fused_lltm_seq_backward = {
    function()
      return { t(T, B, I), t(B, H), t(B, H), t(3 * H, H + I), t(3 * H), t(T, B, H), t(B, H), t(B, H),
               t(T, B, 5 * H), t(T, B, I), t(3 * H, H + I), ints(1, 2), 1, 0, 0 }
    end,
    -- d_hs, d_hT and d_cT may be NULL (zero gradients), not released
    null = { 'd_xs', 'd_h0', 'd_c0', 'd_W', 'd_b', nil, nil, nil, 'saved', 'xs', 'W' },
    released = { 'd_xs', 'd_h0', 'd_c0', 'd_W', 'd_b', 'd_hs', 'd_hT', 'd_cT', 'saved', 'xs', 'W' } },
  -- The LSTM (cell 1) through the engine, with lengths.
  fused_rnn_forward = {
    function()
      return { C.FUSED_CELL_LSTM, t(T, B, H), t(B, H), t(B, H), t(T, B, 7 * H), t(T, B, I), t(B, H),
               t(B, H), t(4 * H, I), t(4 * H, H), t(4 * H), t(4 * H), ints(2, 1), 1, 0 }
    end,
    null = { nil, 'hs', 'h_n', 'c_n', 'saved', 'xs', 'h0', 'c0', 'w_ih', 'w_hh', 'b_ih', 'b_hh' } },
  fused_rnn_backward = {
    function()
      return { C.FUSED_CELL_LSTM, t(T, B, I), t(B, H), t(B, H), t(4 * H, I), t(4 * H, H), t(4 * H),
               t(4 * H), t(T, B, H), t(B, H), t(B, H), t(T, B, 7 * H), t(T, B, I), t(4 * H, I),
               t(4 * H, H), ints(2, 1), 0, 0, 0 }
    end,
    -- d_hs, d_hn and d_cn may be NULL (zero gradients), not released
    null = { nil, 'd_xs', 'd_h0', 'd_c0', 'd_w_ih', 'd_w_hh', 'd_b_ih', 'd_b_hh', nil, nil, nil,
             'saved', 'xs', 'w_ih', 'w_hh' },
    released = { nil, 'd_xs', 'd_h0', 'd_c0', 'd_w_ih', 'd_w_hh', 'd_b_ih', 'd_b_hh', 'd_hs', 'd_hn',
                 'd_cn', 'saved', 'xs', 'w_ih', 'w_hh' } },
  fused_sgd_step = { function() return { t(3), t(3), t(3), 0.1, 0.9, 0, 0, 0, 1 } end,
                     null = { 'param', 'momentum_buffer', 'grad' } },
  fused_rmsprop_step = { function() return { t(3), t(3), t(3), t(3), 0.1, 0.9, 1e-8, 0.9, 0 } end,
                         null = { 'param', 'square_avg', 'momentum_buffer', 'grad' } },
  fused_adam_step = { function() return { t(3), t(3), t(3), t(3), 0.1, 0.9, 0.999, 1e-8, 0, 0, 1 } end,
                      null = { 'param', 'exp_avg', 'exp_avg_sq', 'grad' } },
  fused_sum_squares = { function() return { ffi.new('double[1]'), t(3) } end, null = { 'out', 't' },
                        released = { nil, 't' } },
  fused_cross_entropy_forward = {
    function() return { t(1), t(2, 3), fused.ones({ 2 }, I64) } end,
    null = { 'loss', 'logits', 'targets' } },
  fused_cross_entropy_backward = {
    function() return { t(2, 3), t(2, 3), fused.ones({ 2 }, I64), 1 } end,
    null = { 'd_logits', 'logits', 'targets' } },
  fused_embedding_forward = {
    function() return { t(2, 3), t(4, 3), fused.ones({ 2 }, I64) } end,
    null = { 'out', 'weight', 'indices' } },
  fused_set_cpu_capability = { function() return { ffi.string(C.fused_cpu_capability()) } end,
                              null = { 'name' }, released = {} },
  fused_set_gemm = { function() return { ffi.string(C.fused_gemm()) } end, null = { 'name' },
                    released = {} },
  fused_embedding_backward = {
    function() return { t(4, 3), t(2, 3), fused.ones({ 2 }, I64) } end,
    null = { 'grad_weight', 'grad_out', 'indices' } },
  fused_prod_dim = { function() return { t(1, 3), t(2, 3), 0 } end, null = { 'out', 'in' } },
  fused_softmax_forward = { function() return { t(2, 3), t(2, 3), 1, 1 } end, null = { 'out', 'in' } },
  fused_softmax_backward = { function() return { t(2, 3), t(2, 3), t(2, 3), 1, 0 } end,
                             null = { 'd_in', 'grad_out', 'out' } },
  fused_logsumexp_dim = { function() return { t(2, 1), t(2, 3), 1 } end, null = { 'out', 'in' } },
  -- indices may be NULL (values only), not released
  fused_max_dim = { function() return { t(2, 1), fused.zeros({ 2, 1 }, I64), t(2, 3), 1 } end,
                    null = { 'values', nil, 'in' }, released = { 'values', 'indices', 'in' } },
  fused_min_dim = { function() return { t(2, 1), fused.zeros({ 2, 1 }, I64), t(2, 3), 1 } end,
                    null = { 'values', nil, 'in' }, released = { 'values', 'indices', 'in' } },
  fused_cumsum = { function() return { t(2, 3), t(2, 3), 1, 0 } end, null = { 'out', 'in' } },
  fused_linear_scan = { function()
                          return { t(2, 1, 1, 3), t(2, 1, 1, 1, 3), t(2, 1, 1, 3), t(1, 1, 3),
                                   fused.zeros({ 2, 1 }, { dtype = 'bool' }), ints(2), 0 }
                        end,
                        null = { 'h', 'A', 'b' }, released = { 'h', 'A', 'b', 'h0', 'resets' } },
  fused_linear_scan_backward = { function()
                                   return { t(2, 1, 1, 1, 3), t(2, 1, 1, 3), t(1, 1, 3), t(2, 1, 1, 3),
                                            t(2, 1, 1, 1, 3), t(2, 1, 1, 3), t(1, 1, 3),
                                            fused.zeros({ 2, 1 }, { dtype = 'bool' }), ints(2), 0 }
                                 end,
                                 null = { 'd_A', 'd_b', nil, 'd_h', 'A', 'h' },
                                 released = { 'd_A', 'd_b', 'd_h0', 'd_h', 'A', 'h', 'h0', 'resets' } },
  fused_cumprod = { function() return { t(2, 3), t(2, 3), 1 } end, null = { 'out', 'in' } },
  fused_sort = { function() return { t(2, 3), fused.zeros({ 2, 3 }, I64), t(2, 3), 1, 0 } end,
                 null = { 'values', 'indices', 'in' } },
  fused_count_nonzero = { function() return { ffi.new('int64_t[1]'), ivec(1, 0, 2) } end,
                          null = { 'count', 'in' }, released = { nil, 'in' } },
  fused_nonzero = { function() return { fused.zeros({ 2, 1 }, I64), ivec(1, 0, 2) } end,
                    null = { 'out', 'in' } },
  fused_where = { function() return { t(2, 3), fused.zeros({ 2, 3 }, { dtype = 'bool' }), t(2, 3), t(2, 3) } end,
                  null = { 'out', 'cond', 'a', 'b' } },
  fused_index_select = { function() return { t(2, 1), t(2, 3), 1, fused.ones({ 1 }, I64) } end,
                         null = { 'out', 'in', nil, 'index' } },
  fused_gather = { function() return { t(2, 1), t(2, 3), 1, fused.ones({ 2, 1 }, I64) } end,
                   null = { 'out', 'in', nil, 'index' } },
  fused_masked_select = { function() return { t(1), t(2, 3), fused.tensor({ { true, false, false }, { false, false, false } }) } end,
                          null = { 'out', 'in', 'mask' } },
  fused_masked_scatter = { function() return { t(2, 3), fused.zeros({ 2, 3 }, { dtype = 'bool' }), t(1) } end,
                           null = { 't', 'mask', 'src' } },
  fused_index_put = { function()
                        local index = { ivec(1), ivec(2) } -- kept alive by the arguments, as fused_cat's
                        return { t(2, 3), ffi.new('const fused_tensor*[2]', index), 2, t(1), 0, keep = index }
                      end,
                      null = { 't', 'indices', nil, 'values' }, released = { 't', nil, nil, 'values' } },
  fused_index_add = { function() return { t(2, 3), 1, ivec(3), t(2, 1) } end,
                      null = { 't', nil, 'index', 'source' } },
  -- A 2 x 2 CSR matrix with one entry a row: offsets {0, 1, 2}, columns {1, 2}.
  fused_csr_check = { function() return { ivec(0, 1, 2), ivec(1, 2), t(2), 2 } end,
                      null = { 'row_ptr', 'col_idx', 'values' } },
  fused_csr_from_coo = {
    function() return { izeros(3), izeros(2), t(2), ffi.new('int64_t[1]'), ivec(1, 2), ivec(2, 1), t(2), 2 } end,
    null = { 'row_ptr', 'col_idx', 'values', 'nnz', 'rows', 'cols', 'coo_values' },
    released = { 'row_ptr', 'col_idx', 'values', nil, 'rows', 'cols', 'coo_values' } },
  fused_csr_transpose = {
    function() return { izeros(3), izeros(2), t(2), ivec(0, 1, 2), ivec(1, 2), t(2) } end,
    null = { 't_row_ptr', 't_col_idx', 't_values', 'row_ptr', 'col_idx', 'values' } },
  fused_spmm = {
    function() return { t(2, 3), ivec(0, 1, 2), ivec(1, 2), t(2), t(2, 3), t(3), 1 } end,
    null = { 'out', 'row_ptr', 'col_idx', 'values', 'x' }, -- bias may be NULL (none), not released
    released = { 'out', 'row_ptr', 'col_idx', 'values', 'x', 'bias' } },
}
-- Functions with no pointer argument, or none that can be wrong, checked below by hand.
local BY_HAND = {
  'fused_last_error', 'fused_tensor_release', 'fused_tensor_free', 'fused_dtype_size',
  'fused_dtype_info_of', 'fused_device_name', 'fused_unary_op_info_of', 'fused_binary_op_info_of',
  'fused_compare_op_info_of',
  'fused_bytes_in_use', 'fused_device_available', 'fused_device_unavailable_reason',
  'fused_set_device_unavailable', 'fused_set_num_threads', 'fused_get_num_threads',
  'fused_manual_seed', 'fused_sigint_install', 'fused_sigint_received', 'fused_sigint_restore',
  'fused_write_file_atomic', 'fused_file_open', 'fused_file_read', 'fused_file_close',
  'fused_rnn_saved_blocks', 'fused_rnn_register_cell', 'fused_rnn_cell',
  'fused_rnn_register_cell_cuda', 'fused_rnn_cell_cuda',
  'fused_cpu_capability', 'fused_cpu_vector_bits', 'fused_cpu_capability_flags',
  'fused_cpu_bf16_path', 'fused_set_cpu_cache_bytes', 'fused_cpu_cache_bytes',
  'fused_blas_config', 'fused_blas_core', 'fused_blas_threading',
  -- spec/gemm_choice_spec.lua checks these.
  'fused_gemm', 'fused_gemm_providers', 'fused_gemm_wisdom', 'fused_gemm_choices', 'fused_gemm_calls',
}

-- The functions declared between the header's ffi markers.
local function public_functions()
  local root = debug.getinfo(1, 'S').source:match('^@(.-)spec/[^/]*$') or ''
  local f = assert(io.open(root .. 'c/fused.h', 'rb'))
  local text = f:read('*a'):match('/%* ffi%-begin %*/(.*)/%* ffi%-end %*/')
  f:close()
  local names = {}
  for name in text:gmatch('[%w_%*]+%s+%**(fused_[%w_]+)%(') do names[#names + 1] = name end
  return names
end

local function call(name, args, n) return C[name](unpack(args, 1, n)) end
local function failed(rc) return tonumber(rc) == -1 end

describe('the C API', function()
  it('covers every public function of c/fused.h here', function()
    local known = {}
    for _, name in ipairs(BY_HAND) do known[name] = true end
    for name in pairs(CASES) do known[name] = true end
    local names = public_functions()
    assert(#names > 40, 'read ' .. #names .. ' function names from c/fused.h')
    for _, name in ipairs(names) do assert(known[name], name .. ' is not checked by c_api_spec') end
  end)

  for name, case in pairs(CASES) do
    it(name .. ' rejects NULL and released tensors with an error', function()
      local n = #case[1]()
      local ok_args = case[1]()
      assert.are.equal(case.ok or 0, tonumber(call(name, ok_args, n)),
                       name .. ' with valid arguments: ' .. last_error())
      if case.free then case.free(ok_args) end
      for i = 1, n do
        local arg = case.null[i]
        if arg then
          local args = case[1]()
          args[i] = nil
          assert(failed(call(name, args, n)), name .. ' accepted NULL ' .. arg)
          local msg = last_error()
          assert(msg:find("'" .. arg .. "'", 1, true) and (msg:find('nil', 1, true) or msg:find('NULL', 1, true)),
                 name .. ' NULL ' .. arg .. ': ' .. msg)
        end
        arg = (case.released or case.null)[i]
        if arg then
          local args = case[1]()
          args[i] = released()
          assert(failed(call(name, args, n)), name .. ' accepted a released ' .. arg)
          local msg = last_error()
          assert(msg:find("argument '" .. arg .. "' expected a tensor, got a released one", 1, true),
                 name .. ' released ' .. arg .. ': ' .. msg)
        end
      end
    end)
  end

  -- The parameters of each function as c/fused.h declares them.
  local function parameters()
    local root = debug.getinfo(1, 'S').source:match('^@(.-)spec/[^/]*$') or ''
    local f = assert(io.open(root .. 'c/fused.h', 'rb'))
    local text = f:read('*a'):match('/%* ffi%-begin %*/(.*)/%* ffi%-end %*/'):gsub('/%*.-%*/', '')
    f:close()
    local params = {}
    for name, list in text:gmatch('(fused_[%w_]+)%s*(%b())%s*;') do
      params[name] = {}
      for p in (list:sub(2, -2) .. ','):gmatch('([^,]+),') do params[name][#params[name] + 1] = p:match('([%w_]+)%s*$') end
    end
    return params
  end
  -- The name an error of each function starts with: its own without fused_, or the op of
  -- those that serve several (c/fused.h's conventions).
  local OPS = { fused_unary = 'exp', fused_binary = 'add', fused_binary_scalar = 'add', fused_compare = 'eq',
                fused_compare_scalar = 'lt', fused_softmax_forward = 'log_softmax',
                fused_softmax_backward = 'softmax_backward', fused_addmm = 'addmm', fused_cumsum = 'cumsum' }

  it('errors name the C function and the parameter as c/fused.h declares it', function()
    local params = parameters()
    for name, case in pairs(CASES) do
      local prefix = (OPS[name] or name:gsub('^fused_', '')) .. ': '
      local n = #case[1]()
      for i = 1, n do
        local arg = case.null[i]
        if arg then
          assert.are.equal(params[name][i], arg, name .. ': the case names parameter ' .. i)
          local args = case[1]()
          args[i] = nil
          assert(failed(call(name, args, n)))
          -- fused_check_writable names its caller's function (its fn) for t
          local want = (name == 'fused_check_writable' and arg == 't') and 'fill_: ' or prefix
          assert.are.equal(want, last_error():sub(1, #want), name .. ' NULL ' .. arg)
        end
      end
    end
  end)

  it('dims count from 0, as the dim arguments do', function()
    local cases = {
      { 'sum_dim', function(d) return C.fused_sum_dim(t(1, 3), t(2, 3), d) end },
      { 'prod_dim', function(d) return C.fused_prod_dim(t(1, 3), t(2, 3), d) end },
      { 'max_dim', function(d) return C.fused_max_dim(t(1, 3), nil, t(2, 3), d) end },
      { 'log_softmax', function(d) return C.fused_softmax_forward(t(2, 3), t(2, 3), d, 1) end },
      { 'softmax_backward', function(d) return C.fused_softmax_backward(t(2, 3), t(2, 3), t(2, 3), d, 0) end },
      { 'logsumexp_dim', function(d) return C.fused_logsumexp_dim(t(2, 1), t(2, 3), d) end },
      { 'cumsum', function(d) return C.fused_cumsum(t(2, 3), t(2, 3), d, 0) end },
      { 'sort', function(d) return C.fused_sort(t(2, 3), fused.zeros({ 2, 3 }, I64), t(2, 3), d, 0) end },
      { 'cat', function(d) return C.fused_cat(t(2, 3), ffi.new('const fused_tensor*[1]', { t(2, 3) }), 1, d) end },
      { 'index_select', function(d) return C.fused_index_select(t(2, 1), t(2, 3), d, fused.ones({ 1 }, I64)) end },
      { 'gather', function(d) return C.fused_gather(t(2, 1), t(2, 3), d, fused.ones({ 2, 1 }, I64)) end },
      { 'index_add', function(d) return C.fused_index_add(t(2, 3), d, ivec(1), t(2, 1)) end },
    }
    for _, c in ipairs(cases) do
      for _, d in ipairs({ -1, 2 }) do
        assert.are.equal(-1, c[2](d))
        assert.are.equal(c[1] .. ": argument 'dim' expected 0 to 1, got " .. d, last_error())
      end
    end
    -- dims named in other messages, and positions in C arrays
    assert.are.equal(-1, C.fused_max_dim(t(1, 3), nil, t(0, 3), 0))
    assert.truthy(last_error():find("max_dim: argument 'in' expected a non-zero size in dim 0", 1, true), last_error())
    assert.are.equal(-1, C.fused_cat(t(3, 3), ffi.new('const fused_tensor*[2]', { t(2, 3), t(2, 3) }), 2, 0))
    assert.truthy(last_error():find("cat: argument 'out' expected size 4 along dim 0, got 3", 1, true), last_error())
    assert.are.equal(-1, C.fused_cat(t(4, 3), ffi.new('const fused_tensor*[2]', { t(2, 3), t(2, 2) }), 2, 0))
    assert.truthy(last_error():find("cat: argument 'inputs[1]' expected shape [2, 3], got [2, 2]", 1, true), last_error())
    assert.are.equal(-1, C.fused_index_put(t(2), ffi.new('const fused_tensor*[1]', { t(1) }), 1, t(1), 0))
    assert.truthy(last_error():find("index_put: argument 'indices[0]' expected dtype int64", 1, true), last_error())
    assert.are.equal(-1, C.fused_tensor_init(ffi.new('fused_tensor'), 2, ints(1, -2), 0, 0))
    assert.truthy(last_error():find("tensor_init: argument 'sizes' expected sizes from 0 to 2^63-1, got -2 ", 1, true)
                  and last_error():find('in dim 1$'), last_error())
  end)

  it('and Lua, calling the same C, names its own functions and counts from 1', function()
    local x = fused.zeros({ 2, 3 })
    local lib = require 'fused.lib'
    assert.are.equal(-1, C.fused_sum_dim(t(1, 3), x, 2))
    assert.are.equal("sum: argument 'dim' expected 1 to 2, got 3", lib.last_error())
    assert.are.equal(-1, C.fused_max_dim(t(1, 3), nil, t(0, 3), 0))
    assert.truthy(lib.last_error():find("max: argument 'input' expected a non-zero size in dim 1", 1, true))
    helper.assert_error(function() fused.zeros({ 0, 3 }):max(1) end, "max: argument 'input' expected a non-zero size in dim 1")
    helper.assert_error(function() fused.cat({ x, fused.zeros({ 2, 2 }) }) end, "cat: argument 'tensors[2]' expected shape [2, 3], got [2, 2]")
  end)

  it('fused_cat rejects a NULL or released tensor in its list', function()
    for _, bad in ipairs({ false, true }) do
      local first, second = t(2, 3), bad and released() or nil
      local inputs = ffi.new('const fused_tensor*[2]')
      inputs[0], inputs[1] = first, second
      assert.are.equal(-1, C.fused_cat(t(4, 3), inputs, 2, 0))
      assert.truthy(last_error():find("cat: argument 'inputs[1]' expected a tensor, got " ..
                                      (bad and 'a released one' or 'nil'), 1, true))
    end
  end)

  it('the functions without tensors: error values, NULL strings, releases', function()
    assert.are.equal(0, tonumber(C.fused_dtype_size(7)))
    assert.truthy(last_error():find("dtype_size: argument 'dtype' expected 0 to 5, got 7", 1, true))
    assert.are.equal(8, tonumber(C.fused_dtype_size(C.FUSED_FLOAT64)))
    assert(C.fused_dtype_info_of(7) == nil and C.fused_dtype_info_of(-1) == nil)
    assert.are.equal('int64', ffi.string(C.fused_dtype_info_of(C.FUSED_INT64).name))
    assert.are.same({ 'int64_t*', 'LongTensor' }, { ffi.string(C.fused_dtype_info_of(C.FUSED_INT64).pointer_type),
                                                    ffi.string(C.fused_dtype_info_of(C.FUSED_INT64).torch7_class) })
    -- the lists' lookups: a row, or NULL past either end
    assert.are.equal('cuda', ffi.string(C.fused_device_name(C.FUSED_CUDA)))
    assert.are.equal('d_tanh', ffi.string(C.fused_unary_op_info_of(C.FUSED_D_TANH).name))
    assert.are.same({ 0, 1 }, { C.fused_unary_op_info_of(C.FUSED_ELU).integers, C.fused_unary_op_info_of(C.FUSED_ELU).alpha })
    assert.are.same({ 'sub', C.FUSED_RSUB }, { ffi.string(C.fused_binary_op_info_of(C.FUSED_SUB).name),
                                               C.fused_binary_op_info_of(C.FUSED_SUB).swapped })
    assert.are.equal(-1, C.fused_binary_op_info_of(C.FUSED_POW).swapped)
    assert.are.equal(C.FUSED_GT, C.fused_compare_op_info_of(C.FUSED_LT).swapped)
    for _, lookup in ipairs({ { 'fused_device_name', C.FUSED_NUM_DEVICES },
                              { 'fused_unary_op_info_of', C.FUSED_NUM_UNARY_OPS },
                              { 'fused_binary_op_info_of', C.FUSED_NUM_BINARY_OPS },
                              { 'fused_compare_op_info_of', C.FUSED_NUM_COMPARE_OPS } }) do
      assert(C[lookup[1]](-1) == nil and C[lookup[1]](lookup[2]) == nil, lookup[1])
    end
    assert.are.equal(-1, tonumber(C.fused_bytes_in_use(5)))
    assert.truthy(last_error():find("bytes_in_use: argument 'device' expected 0 to 1, got 5", 1, true))
    assert.are.equal(0, C.fused_device_available(-1))
    assert.are.equal('no such device', ffi.string(C.fused_device_unavailable_reason(-1)))
    C.fused_set_device_unavailable(C.FUSED_CUDA, nil)
    assert.truthy(last_error():find("set_device_unavailable: argument 'reason' expected a string, got NULL", 1, true))
    assert.are.equal(-1, C.fused_set_num_threads(-1))
    assert(C.fused_get_num_threads() >= 1)
    -- release and free take NULL, and a struct released twice
    C.fused_tensor_release(nil)
    C.fused_tensor_free(nil)
    local r = released()
    C.fused_tensor_release(r)
    assert(r.storage == nil)
    assert.are.equal(0, C.fused_sigint_received())
    assert.are.equal(-1, C.fused_write_file_atomic(nil, nil, nil, 0))
    assert.truthy(last_error():find("write_file_atomic: argument 'path' expected a file name, got NULL", 1, true), last_error())
    assert.are.equal(-1, C.fused_write_file_atomic('x', nil, nil, 1))
    assert.truthy(last_error():find("write_file_atomic: arguments 'chunks' and 'sizes' expected arrays of 1 entries, got NULL", 1, true), last_error())
    local fd, size = ffi.new('int32_t[1]'), ffi.new('int64_t[1]')
    assert.are.equal(-1, C.fused_file_open(nil, fd, size))
    assert.truthy(last_error():find("file_open: arguments 'path', 'fd' and 'size' expected pointers, got NULL", 1, true), last_error())
    assert.are.equal(-1, C.fused_file_read(-1, 0, nil, 1))
    assert.truthy(last_error():find("file_read: arguments 'offset' 0 and 'n' 1 expected >= 0 and 'dst' a buffer", 1, true), last_error())
    assert.are.equal(-1, C.fused_file_close(-1))
    assert.truthy(last_error():find('file_close: Bad file descriptor', 1, true), last_error())
    assert.are.same({ 5, 7, 7 }, { C.fused_rnn_saved_blocks(C.FUSED_CELL_LLTM),
      C.fused_rnn_saved_blocks(C.FUSED_CELL_LSTM), C.fused_rnn_saved_blocks(C.FUSED_CELL_GRU) })
    assert.are.equal(-1, C.fused_rnn_saved_blocks(1000))
    assert.truthy(last_error():find('rnn_saved_blocks: unknown cell 1000', 1, true), last_error())
    assert.are.equal('gru', ffi.string(C.fused_rnn_cell(C.FUSED_CELL_GRU).name))
    assert.is_true(C.fused_rnn_cell(1000) == nil)
    assert.are.equal(-1, C.fused_rnn_register_cell(nil))
    assert.truthy(last_error():find("argument 'def' expected", 1, true), last_error())
    local def = ffi.new('fused_cell_def', { name = 'bad', gates = 2, saved = 2 })
    assert.are.equal(-1, C.fused_rnn_register_cell(def))
    assert.truthy(last_error():find("field 'saved' expected 3..256", 1, true), last_error())
    assert.is_true(C.fused_rnn_cell_cuda(C.FUSED_CELL_LSTM, C.FUSED_FLOAT64, 0) == nil)
    assert.is_true(C.fused_rnn_cell_cuda(1000, C.FUSED_FLOAT32, 1) == nil)
    assert.are.equal(-1, C.fused_rnn_register_cell_cuda(C.FUSED_CELL_GRU, nil, nil, nil, nil))
    assert.truthy(last_error():find("rnn_register_cell_cuda: argument 'cell' expected a registered "
                                    .. "cell's id, got 2", 1, true), last_error())
  end)

  it('a view into its own source struct keeps one reference: no leak', function()
    collectgarbage()
    collectgarbage('stop')
    local before = tonumber(C.fused_bytes_in_use(0))
    local p = ffi.new('fused_tensor*[1]')
    assert.are.equal(0, C.fused_tensor_new(p, 1, ints(1000), C.FUSED_FLOAT64, 0))
    assert.are.equal(before + 8000, tonumber(C.fused_bytes_in_use(0)))
    assert.are.equal(0, C.fused_tensor_view(p[0], p[0], 2, ints(10, 10), ints(10, 1), 500))
    C.fused_tensor_free(p[0])
    local after = tonumber(C.fused_bytes_in_use(0))
    collectgarbage('restart')
    assert.are.equal(before, after)
  end)

  describe('size arithmetic', function()
    local base = t(4)

    it('a view whose extent overflows int64 is outside its storage', function()
      local view = ffi.new('fused_tensor')
      -- (2^62 + 1 - 1) * 4 = 2^64 wraps to 0 in unchecked arithmetic
      assert.are.equal(-1, C.fused_tensor_view(view, base, 1, ints(2 ^ 62 + 1), ints(4), 0))
      assert.truthy(last_error():find('reaches outside its storage of 4 elements', 1, true), last_error())
      assert.are.equal(-1, C.fused_tensor_view(view, base, 1, ints(2), ints(1), 2 ^ 62))
      assert.truthy(last_error():find('offset 4611686018427387904', 1, true), last_error())
      assert.are.equal(-1, C.fused_tensor_view(view, base, 1, ints(2), ints(2 ^ 62), 0))
      assert.are.equal(-1, C.fused_tensor_view(view, base, 2, ints(3, 2), ints(-2 ^ 62, 1), 2))
      assert.are.equal(-1, C.fused_tensor_view(view, base, 1, ints(1), ints(1), 0x7fffffffffffffffLL))
      assert(view.storage == nil, 'a failed view holds no reference')
    end)

    it('a view with more than 2^63-1 elements is an error, not a negative numel', function()
      local view = ffi.new('fused_tensor')
      assert.are.equal(-1, C.fused_tensor_view(view, base, 2, ints(2 ^ 32, 2 ^ 32), ints(0, 0), 0))
      assert.truthy(last_error():find('expected at most 2^63-1 elements in all, got sizes [4294967296, 4294967296]', 1, true), last_error())
    end)

    it('tensor_new refuses sizes whose bytes overflow, and shows huge sizes unsigned', function()
      local fresh = ffi.new('fused_tensor')
      assert.are.equal(-1, C.fused_tensor_init(fresh, 1, ints(2 ^ 61), C.FUSED_FLOAT64, 0))
      assert.truthy(last_error():find('expected at most 2^63-1 bytes in all, got sizes [2305843009213693952] of float64', 1, true), last_error())
      assert.are.equal(-1, C.fused_tensor_init(fresh, 2, ints(2 ^ 40, 2 ^ 40), C.FUSED_FLOAT32, 0))
      assert.truthy(last_error():find('2^63-1 elements', 1, true), last_error())
      local sizes = ffi.new('int64_t[1]')
      sizes[0] = ffi.cast('int64_t', 9223372036854775808ULL)
      assert.are.equal(-1, C.fused_tensor_init(fresh, 1, sizes, C.FUSED_FLOAT32, 0))
      assert.truthy(last_error():find('tensor_init: argument \'sizes\' expected sizes from 0 to 2^63-1, got -9223372036854775808 (9223372036854775808 read as unsigned) in dim 0', 1, true), last_error())
      assert(fresh.storage == nil)
    end)

    it('dim = INT32_MAX is reported, not overflowed', function()
      assert.are.equal(-1, C.fused_sum_dim(t(1, 3), t(2, 3), 0x7fffffff))
      assert.truthy(last_error():find("sum_dim: argument 'dim' expected 0 to 1, got 2147483647", 1, true), last_error())
    end)
  end)
end)
