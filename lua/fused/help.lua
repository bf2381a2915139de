-- The doc line of every public name, for the REPL's help(x) and ?x: its signature, then what it
-- does. Kept here, one table, rather than read from the source, so that help works installed and
-- says the same as docs/. spec/help_spec.lua fails for a public name of fused, fused.nn or
-- fused.optim without an entry.
--
--   help.text(fused.tanh), help.text('tanh'), help.text(fused.nn.LSTM)  -- text, or nil and why
local M = {}

-- [name] = 'signature: what it does'. {opts} is an options table; every op that makes a tensor
-- takes {out = t} in it.
M.entries = {
  -- Modules
  ['fused'] = 'fused: tensors, ops, nn modules and optimizers over libfused (docs/README.md)',
  ['fused.nn'] = 'fused.nn: modules with forward/backward, parameters() and state_dict() (docs/nn.md)',
  ['fused.optim'] = 'fused.optim: optimizers over (params, grads) lists, and clip_grad_norm (docs/nn.md)',
  ['fused.cuda'] = 'fused.cuda: the CUDA device: whether it runs, its memory, synchronisation (docs/cuda.md)',
  ['fused.functional'] = 'fused.functional: the fused ops behind nn and optim as functions (forward returns a ctx for backward)',
  ['fused.sparse'] = 'fused.sparse: sparse matrices in CSR form and their product with dense ones (docs/graph.md)',
  ['fused.distributed'] = 'fused.distributed: data-parallel training over the processes mpirun starts (docs/distributed.md)',
  ['fused.cell'] = 'fused.cell: recurrent cells from their equations, fused.cell.define (docs/extending.md)',
  ['fused.ext'] = 'fused.ext: your own C and CUDA ops and recurrent cells, compiled and bound at run time (docs/extending.md)',
  ['fused.debug'] = 'fused.debug: counters for the specs',
  ['fused.C'] = 'fused.C: the FFI namespace of libfused (c/fused.h), status-returning C functions',
  ['fused.version'] = "fused.version: the library's version string (the rockspec's)",

  -- Dtypes
  ['fused.float32'] = "fused.float32: the dtype name 'float32' (the default), for {dtype = ...} and t:to()",
  ['fused.float64'] = "fused.float64: the dtype name 'float64', for {dtype = ...} and t:to()",
  ['fused.bfloat16'] = "fused.bfloat16: the dtype name 'bfloat16' (ops compute in float32 and round each result once, as PyTorch)",
  ['fused.float16'] = "fused.float16: the dtype name 'float16' (ops compute in float32 and round each result once, as PyTorch)",
  ['fused.int64'] = "fused.int64: the dtype name 'int64' (indices, class targets), for {dtype = ...} and t:to()",
  ['fused.bool'] = "fused.bool: the dtype name 'bool' (comparisons, masks), for {dtype = ...} and t:to()",

  -- Tensors: making them
  ['fused.Tensor'] = 'fused.Tensor: the tensor class (docs/tensors.md); fused.Tensor(2, 3) makes float32 zeros as Torch7 does; its methods are the ops of fused (t:add(b)) and these:',
  ['fused.FloatTensor'] = "fused.FloatTensor(sizes... | values): Torch7's constructor: float32 zeros of the sizes, or a tensor of the nested Lua list",
  ['fused.DoubleTensor'] = "fused.DoubleTensor(sizes... | values): Torch7's constructor, float64",
  ['fused.BFloat16Tensor'] = "fused.BFloat16Tensor(sizes... | values): PyTorch's class name, bfloat16",
  ['fused.HalfTensor'] = "fused.HalfTensor(sizes... | values): PyTorch's class name, float16",
  ['fused.LongTensor'] = "fused.LongTensor(sizes... | values): Torch7's constructor, int64",
  ['fused.BoolTensor'] = 'fused.BoolTensor(sizes... | values): the same, bool',
  ['fused.Size'] = 'fused.Size(list): the sizes of a tensor as t:size() gives them: a list that prints as fused.Size({2, 3})',
  ['fused.is_tensor'] = 'fused.is_tensor(x): whether x is a fused tensor',
  ['fused.tensor'] = 'fused.tensor(data, {dtype=, device=}): a tensor of nested Lua lists of numbers or booleans (float32 default, bool for booleans); a number alone gives a 0-d tensor, {} an empty 1-D one',
  ['fused.empty'] = 'fused.empty(sizes..., {dtype=, device=}): an uninitialised tensor; sizes as numbers or one list',
  ['fused.zeros'] = 'fused.zeros(sizes..., {dtype=, device=}): a tensor of zeros (a size may be 0: an empty tensor; {} gives 0-d)',
  ['fused.ones'] = 'fused.ones(sizes..., {dtype=, device=}): a tensor of ones',
  ['fused.full'] = 'fused.full(shape, value, {dtype=, device=}): a tensor filled with value',
  ['fused.rand'] = 'fused.rand(sizes..., {dtype=, device=}): uniform in [0, 1) from fused\'s generator',
  ['fused.randn'] = 'fused.randn(sizes..., {dtype=, device=}): standard normal from fused\'s generator',
  ['fused.arange'] = 'fused.arange(n) | (a, b) | (a, b, step), {opts}: a, a+step, ... before b; int64 when every argument is an integer',
  ['fused.linspace'] = 'fused.linspace(a, b, steps, {opts}): steps evenly spaced values from a to b inclusive',
  ['fused.eye'] = 'fused.eye(n[, m], {opts}): the n x m identity matrix',
  ['fused.manual_seed'] = 'fused.manual_seed(n): seeds the one generator (rand, randn, Dropout, init): the same numbers on every device',
  ['fused.clone'] = 'fused.clone(t) | t:clone(): a contiguous copy with its own storage',

  -- Files
  ['fused.save'] = 'fused.save(path, {name = tensor}, metadata): a safetensors file, written whole or not at all; metadata values are strings',
  ['fused.load'] = 'fused.load(path): the {name = tensor} of a safetensors file (CPU tensors) and its metadata',
  ['fused.save_npy'] = 'fused.save_npy(path, t): t as a NumPy .npy file',
  ['fused.load_npy'] = 'fused.load_npy(path): the tensor of a NumPy .npy file (<f4, <f8, <i8 or |b1)',

  -- Elementwise, unary (float; neg and abs also int64)
  ['fused.neg'] = 'fused.neg(t, {opts}) | t:neg() | -t: negation; t:neg_() in place',
  ['fused.neg_'] = 'fused.neg_(t) | t:neg_(): negates t in place, returns t',
  ['fused.abs'] = 'fused.abs(t, {opts}) | t:abs(): |t| elementwise; t:abs_() in place',
  ['fused.abs_'] = 'fused.abs_(t) | t:abs_(): |t| in place, returns t',
  ['fused.exp'] = 'fused.exp(t, {opts}) | t:exp(): e^t elementwise (float); t:exp_() in place',
  ['fused.exp_'] = 'fused.exp_(t) | t:exp_(): e^t in place, returns t',
  ['fused.log'] = 'fused.log(t, {opts}) | t:log(): natural log elementwise (float); t:log_() in place',
  ['fused.log_'] = 'fused.log_(t) | t:log_(): natural log in place, returns t',
  ['fused.sqrt'] = 'fused.sqrt(t, {opts}) | t:sqrt(): square root elementwise (float); t:sqrt_() in place',
  ['fused.sqrt_'] = 'fused.sqrt_(t) | t:sqrt_(): square root in place, returns t',
  ['fused.tanh'] = 'fused.tanh(t, {opts}) | t:tanh(): tanh elementwise (float); t:tanh_() in place',
  ['fused.tanh_'] = 'fused.tanh_(t) | t:tanh_(): tanh in place, returns t',
  ['fused.sigmoid'] = 'fused.sigmoid(t, {opts}) | t:sigmoid(): 1 / (1 + e^-t) elementwise (float); t:sigmoid_() in place',
  ['fused.sigmoid_'] = 'fused.sigmoid_(t) | t:sigmoid_(): sigmoid in place, returns t',
  ['fused.relu'] = 'fused.relu(t, {opts}) | t:relu(): max(t, 0) elementwise (float); t:relu_() in place',
  ['fused.relu_'] = 'fused.relu_(t) | t:relu_(): relu in place, returns t',
  ['fused.elu'] = 'fused.elu(t, alpha, {opts}) | t:elu(alpha): t if t > 0, else alpha (e^t - 1); alpha defaults to 1',
  ['fused.elu_'] = 'fused.elu_(t, alpha) | t:elu_(alpha): ELU in place, returns t',
  ['fused.d_exp'] = "fused.d_exp(t, {opts}): exp's derivative at t (e^t), for a backward written by hand",
  ['fused.d_exp_'] = "fused.d_exp_(t): exp's derivative at t, in place",
  ['fused.d_log'] = "fused.d_log(t, {opts}): log's derivative at t (1 / t)",
  ['fused.d_log_'] = "fused.d_log_(t): log's derivative at t, in place",
  ['fused.d_tanh'] = "fused.d_tanh(t, {opts}): tanh's derivative at t (1 - tanh(t)^2)",
  ['fused.d_tanh_'] = "fused.d_tanh_(t): tanh's derivative at t, in place",
  ['fused.d_sigmoid'] = "fused.d_sigmoid(t, {opts}): sigmoid's derivative at t (s (1 - s))",
  ['fused.d_sigmoid_'] = "fused.d_sigmoid_(t): sigmoid's derivative at t, in place",
  ['fused.d_relu'] = "fused.d_relu(t, {opts}): relu's derivative at t (1 where t > 0, else 0)",
  ['fused.d_relu_'] = "fused.d_relu_(t): relu's derivative at t, in place",
  ['fused.d_elu'] = "fused.d_elu(t, alpha, {opts}): ELU's derivative at t (1 where t > 0, else alpha e^t)",
  ['fused.d_elu_'] = "fused.d_elu_(t, alpha): ELU's derivative at t, in place",

  -- Elementwise, binary (broadcast; either operand may be a number; promoted as PyTorch)
  ['fused.add'] = 'fused.add(a, b, {alpha =, out =}) | a:add(b) | a + b: a + alpha * b, a new tensor (Torch7\'s in-place add is a:add_(b))',
  ['fused.add_'] = 'fused.add_(a, b, {alpha =}) | a:add_(b): a = a + alpha * b in place, keeping a\'s dtype and shape; returns a',
  ['fused.sub'] = 'fused.sub(a, b, {alpha =, out =}) | a:sub(b) | a - b: a - alpha * b (not Torch7\'s sub, which is narrow)',
  ['fused.sub_'] = 'fused.sub_(a, b, {alpha =}) | a:sub_(b): a = a - alpha * b in place, returns a',
  ['fused.mul'] = 'fused.mul(a, b, {opts}) | a:mul(b) | a * b: elementwise product',
  ['fused.mul_'] = 'fused.mul_(a, b) | a:mul_(b): a = a * b in place, returns a',
  ['fused.div'] = 'fused.div(a, b, {opts}) | a:div(b) | a / b: true division (int64 / int64 is float32)',
  ['fused.div_'] = 'fused.div_(a, b) | a:div_(b): a = a / b in place (a floating a), returns a',
  ['fused.pow'] = 'fused.pow(a, b, {opts}) | a:pow(b) | a ^ b: elementwise power (int64 ^ int64 stays int64; a negative int64 exponent is an error)',
  ['fused.pow_'] = 'fused.pow_(a, b) | a:pow_(b): a = a ^ b in place, returns a',
  ['fused.maximum'] = 'fused.maximum(a, b, {opts}) | a:maximum(b): the elementwise larger',
  ['fused.maximum_'] = 'fused.maximum_(a, b) | a:maximum_(b): a = max(a, b) in place, returns a',
  ['fused.minimum'] = 'fused.minimum(a, b, {opts}) | a:minimum(b): the elementwise smaller',
  ['fused.minimum_'] = 'fused.minimum_(a, b) | a:minimum_(b): a = min(a, b) in place, returns a',
  ['fused.clamp'] = 'fused.clamp(t, min, max, {opts}) | t:clamp(min, max): t limited to [min, max]; either bound may be nil',
  ['fused.clamp_'] = 'fused.clamp_(t, min, max) | t:clamp_(min, max): clamp in place, returns t',

  -- Comparisons and selection
  ['fused.eq'] = 'fused.eq(a, b, {opts}) | a:eq(b): a == b elementwise, a bool tensor (broadcast; b may be a number)',
  ['fused.ne'] = 'fused.ne(a, b, {opts}) | a:ne(b): a ~= b elementwise, a bool tensor',
  ['fused.lt'] = 'fused.lt(a, b, {opts}) | a:lt(b): a < b elementwise, a bool tensor (Lua\'s a < b is an error)',
  ['fused.le'] = 'fused.le(a, b, {opts}) | a:le(b): a <= b elementwise, a bool tensor',
  ['fused.gt'] = 'fused.gt(a, b, {opts}) | a:gt(b): a > b elementwise, a bool tensor',
  ['fused.ge'] = 'fused.ge(a, b, {opts}) | a:ge(b): a >= b elementwise, a bool tensor',
  ['fused.where'] = 'fused.where(cond, a, b, {opts}): a where the bool tensor cond is true, else b (all three broadcast)',
  ['fused.masked_fill'] = 'fused.masked_fill(t, mask, value, {opts}) | t:masked_fill(mask, value): a copy of t with value (a number or a 0-d tensor) where mask is true',
  ['fused.masked_fill_'] = 'fused.masked_fill_(t, mask, value) | t:masked_fill_(mask, value): in place, returns t',
  ['fused.floor'] = 'fused.floor(t, {opts}) | t:floor(): rounded down elementwise (int64: t itself, as values)',
  ['fused.floor_'] = 'fused.floor_(t) | t:floor_(): in place, returns t',
  ['fused.ceil'] = 'fused.ceil(t, {opts}) | t:ceil(): rounded up elementwise (int64: unchanged)',
  ['fused.ceil_'] = 'fused.ceil_(t) | t:ceil_(): in place, returns t',
  ['fused.round'] = 'fused.round(t, {opts}) | t:round(): rounded to the nearest, halves to even as PyTorch (int64: unchanged)',
  ['fused.round_'] = 'fused.round_(t) | t:round_(): in place, returns t',
  ['fused.trunc'] = 'fused.trunc(t, {opts}) | t:trunc(): rounded toward zero (int64: unchanged)',
  ['fused.trunc_'] = 'fused.trunc_(t) | t:trunc_(): in place, returns t',
  ['fused.sign'] = 'fused.sign(t, {opts}) | t:sign(): -1, 0 or 1 elementwise (NaN gives 0, as PyTorch)',
  ['fused.sign_'] = 'fused.sign_(t) | t:sign_(): in place, returns t',
  ['fused.scan'] = 'fused.scan(a, b, h0, {lengths=, resets=, reverse=}): every h_t = a_t * h_{t-1} + b_t over the first dim of a, b (T, ...); h0 one step (nil: zeros); lengths, resets (bool T x B) on a (T, B, ...) layout',
  ['fused.scan_backward'] = 'fused.scan_backward(d_h, a, h, h0, opts) -> d_a, d_b, d_h0: the gradients of fused.scan from the forward h and its opts',
  ['fused.linear_scan'] = 'fused.linear_scan(A, b, h0, {lengths=, resets=, reverse=}): h_t = A_t h_{t-1} + b_t with S coupled states per channel: A (T, B, S, S, D), b (T, B, S, D), h0 (B, S, D)',
  ['fused.linear_scan_backward'] = 'fused.linear_scan_backward(d_h, A, h, h0, opts) -> d_A, d_b, d_h0: the gradients of fused.linear_scan',
  ['fused.cumsum'] = 'fused.cumsum(t, dim, {out=}) | t:cumsum(dim): cumulative sum along dim (int64 and bool give int64; float32 adds in float64); CPU only',
  ['fused.cumprod'] = 'fused.cumprod(t, dim, {out=}) | t:cumprod(dim): cumulative product along dim; CPU only',
  ['fused.d_cumsum'] = "fused.d_cumsum(grad, dim) | grad:d_cumsum(dim): cumsum's gradient, a cumulative sum from the last element",
  ['fused.sort'] = 'fused.sort(t, dim = -1, descending = false, {out = {values, indices}}) | t:sort(...) -> values, indices: stable, int64 indices from 1, NaN above every number; CPU only',
  ['fused.topk'] = 'fused.topk(t, k, dim = -1, largest = true, sorted = true) | t:topk(...) -> values, indices: the k largest (or smallest) along dim, sorted, indices from 1; CPU only',
  ['fused.nonzero'] = 'fused.nonzero(t, {out=}) | t:nonzero(): the positions of the nonzero elements, an N x ndim int64 tensor counted from 1 (0 x ndim when none); CPU only',
  ['fused.unique'] = 'fused.unique(t, {sorted =, return_inverse =, return_counts =}) | t:unique(...): the distinct elements in ascending order, with the inverse (from 1) and counts on request; CPU only',
  ['fused.repeat'] = "fused.repeat(t, sizes...) (write fused['repeat'] or t:repeatTensor: repeat is a Lua keyword): PyTorch's Tensor.repeat, t tiled sizes times per dim (a copy; leading dims added)",
  ['fused.repeatTensor'] = "fused.repeatTensor(t, sizes...) | t:repeatTensor(sizes...): Torch7's name for repeat (a Lua keyword)",
  ['fused.masked_select'] = 'fused.masked_select(t, mask) | t:masked_select(mask) | t[mask]: a 1-D copy of the elements where the bool mask (broadcast to t) is true, in row-major order',
  ['fused.masked_scatter_'] = "fused.masked_scatter_(t, mask, source) | t:masked_scatter_(mask, source): t's elements where mask is true take source's first elements, in order",
  ['fused.index_put_'] = 'fused.index_put_(t, indices, values, accumulate) | t:index_put_(indices, values, accumulate): values[k] at t[indices[1][k], ..., indices[n][k]] (int64, from 1); adds when accumulate',
  ['fused.index_add_'] = 'fused.index_add_(t, dim, index, source) | t:index_add_(dim, index, source): adds source[..., k, ...] into t[..., index[k], ...] along dim (from 1)',
  ['fused.index_select'] = 'fused.index_select(t, dim, index, {opts}) | t:index_select(dim, index): the slices of t along dim at index (int64 tensor or list, from 1)',
  ['fused.gather'] = 'fused.gather(t, dim, index, {opts}) | t:gather(dim, index): out[i][j] = t[i][index[i][j]] for dim 2 (index int64, from 1)',

  -- Matrix products
  ['fused.matmul'] = 'fused.matmul(a, b, {opts}): the matrix product of two matrices (float)',
  ['fused.addmm'] = 'fused.addmm(bias, a, b, {beta=1, alpha=1, out=}): beta * bias + alpha * a @ b; a vector bias is added to every row',
  ['fused.addmm_'] = 'fused.addmm_(t, a, b, {beta=1, alpha=1}) | t:addmm_(a, b): t = beta * t + alpha * a @ b in place',
  ['fused.mv'] = 'fused.mv(A, v, {opts}): A (m x n) times the vector v (n), a vector (m)',
  ['fused.outer'] = 'fused.outer(a, b, {opts}): the outer product of vectors a (n) and b (m), n x m',
  ['fused.bmm'] = 'fused.bmm(a, b, {opts}): batches of matrix products, B x n x k by B x k x m',

  -- Reductions
  ['fused.sum'] = 'fused.sum(t[, dim], {opts}) | t:sum(dim): all elements\' sum as a number, or along dim kept with size 1 (bool counts, in int64)',
  ['fused.mean'] = 'fused.mean(t[, dim], {opts}) | t:mean(dim): the mean, of all elements (a number) or along dim',
  ['fused.prod'] = 'fused.prod(t[, dim], {opts}) | t:prod(dim): the product, of all elements (a number) or along dim',
  ['fused.max'] = 'fused.max(t[, dim], {out = {values, indices}}) | t:max(dim): the largest element, or along dim the values and int64 indices from 1 (of no elements: an error)',
  ['fused.min'] = 'fused.min(t[, dim], {out = {values, indices}}) | t:min(dim): the smallest element, or along dim the values and int64 indices',
  ['fused.argmax'] = 'fused.argmax(t[, dim], {opts}) | t:argmax(dim): the index (from 1) of the largest: flat without dim, int64 along dim',
  ['fused.argmin'] = 'fused.argmin(t[, dim], {opts}) | t:argmin(dim): the index (from 1) of the smallest: flat without dim, int64 along dim',
  ['fused.var'] = 'fused.var(t[, dim], {opts}) | t:var(dim): the unbiased variance (n - 1)',
  ['fused.std'] = 'fused.std(t[, dim], {opts}) | t:std(dim): the unbiased standard deviation',
  ['fused.norm'] = 'fused.norm(t[, p[, dim]], {opts}) | t:norm(p, dim): the p-norm (p = 2 by default, math.huge for max |t|)',
  ['fused.sum_squares'] = 'fused.sum_squares(t) | t:sum_squares(): the sum of squares as a number, accumulated in float64 (contiguous t)',
  ['fused.softmax'] = 'fused.softmax(t, dim, {opts}) | t:softmax(dim): exp(t) / sum(exp(t)) along dim, max subtracted (stable)',
  ['fused.log_softmax'] = 'fused.log_softmax(t, dim, {opts}) | t:log_softmax(dim): t - logsumexp(t) along dim, stable for any input',
  ['fused.logsumexp'] = 'fused.logsumexp(t, dim[, keepdim], {opts}) | t:logsumexp(dim): log(sum(exp(t))) along dim, stable; dim dropped unless keepdim',
  ['fused.softmax_backward'] = "fused.softmax_backward(grad_output, output, dim, {opts}): softmax's input gradient from its output y: y * (g - sum(g * y))",
  ['fused.log_softmax_backward'] = "fused.log_softmax_backward(grad_output, output, dim, {opts}): log_softmax's input gradient from its output y: g - exp(y) * sum(g)",
  ['fused.logsumexp_backward'] = "fused.logsumexp_backward(grad_output, input, output, dim[, keepdim], {opts}): logsumexp's input gradient, g * exp(input - output)",
  ['fused.sum_to_size'] = 'fused.sum_to_size(grad, shape): grad summed down to shape, the gradient of a broadcast operand',

  -- Joining
  ['fused.cat'] = 'fused.cat({a, b, ...}, dim, {opts}): tensors joined along dim; their other sizes agree',
  ['fused.stack'] = 'fused.stack({a, b, ...}, dim, {opts}): tensors of one shape joined along a new dim',

  -- The process
  ['fused.config'] = 'fused.config(): what this process computes with (CPU vector path, threads, BLAS, CUDA), printing as one line',
  ['fused.set_num_threads'] = 'fused.set_num_threads(n): threads for the CPU kernels and OpenBLAS (0 to 1024; 0: all cores)',
  ['fused.get_num_threads'] = 'fused.get_num_threads(): threads the CPU kernels use',
  ['fused.set_cpu_capability'] = "fused.set_cpu_capability(name): the CPU kernels' vector path: 'avx512', 'avx2' or 'default'",
  ['fused.set_gemm'] = "fused.set_gemm(name): which library runs the CPU's products: 'openblas', 'onednn', 'packed' (the sequence engine's per-step products and weight gradients on its own kernel) or 'auto' (each shape class on the fastest, measured once per machine; FUSED_GEMM at load)",
  ['fused.grad'] = 'fused.grad(f): df, where grads, value = df(params, ...) are the gradients of f(params, ...) (a number) for every tensor of params (nested tables; grads mirrors them)',
  ['fused.gradcheck'] = 'fused.gradcheck({forward = f, backward = g}, inputs, {eps=, atol=, rtol=}): ok, worst: analytic against central differences in float64',

  -- Tensor methods (the ops above are methods too: t:add(b) is fused.add(t, b))
  ['fused.Tensor.size'] = 't:size() | t:size(dim): the sizes as a fused.Size, or one size as a number',
  ['fused.Tensor.shape'] = 't:shape(): the sizes as a plain list',
  ['fused.Tensor.stride'] = "t:stride(): the strides as a list, in elements",
  ['fused.Tensor.dim'] = 't:dim(): the number of dims',
  ['fused.Tensor.numel'] = 't:numel(): the number of elements',
  ['fused.Tensor.is_contiguous'] = 't:is_contiguous(): whether t is row-major without gaps',
  ['fused.Tensor.type'] = "t:type() | t:type(name): Torch7's class name ('fused.FloatTensor'), or t converted to that class",
  ['fused.Tensor.item'] = 't:item(): the value of a one-element tensor as a Lua value',
  ['fused.Tensor.totable'] = 't:totable(): nested Lua tables of the elements',
  ['fused.Tensor.to'] = "t:to(dtype), t:to(device), t:to(dtype, device): t converted (t itself when nothing changes)",
  ['fused.Tensor.float'] = "t:float(): t:to('float32')",
  ['fused.Tensor.split'] = 't:split(size_or_sizes, dim = 1): a list of views of that size along dim (the last smaller), or of the listed sizes',
  ['fused.Tensor.long'] = "t:long(): t:to('int64') (Torch7's LongTensor)",
  ['fused.Tensor.nDimension'] = "t:nDimension(): Torch7's name for t:dim()",
  ['fused.Tensor.nElement'] = "t:nElement(): Torch7's name for t:numel()",
  ['fused.Tensor.masked_select'] = 't:masked_select(mask): fused.masked_select(t, mask)',
  ['fused.Tensor.masked_scatter_'] = 't:masked_scatter_(mask, source): fused.masked_scatter_(t, mask, source)',
  ['fused.Tensor.index_put_'] = 't:index_put_(indices, values, accumulate): fused.index_put_(t, indices, values, accumulate)',
  ['fused.Tensor.index_add_'] = 't:index_add_(dim, index, source): fused.index_add_(t, dim, index, source)',
  ['fused.Tensor.double'] = "t:double(): t:to('float64')",
  ['fused.Tensor.bfloat16'] = "t:bfloat16(): t:to('bfloat16') (ops on it compute in float32, rounded once)",
  ['fused.Tensor.half'] = "t:half(): t:to('float16') (ops on it compute in float32, rounded once)",
  ['fused.Tensor.cpu'] = "t:cpu(): t:to('cpu')",
  ['fused.Tensor.cuda'] = "t:cuda(): t:to('cuda')",
  ['fused.Tensor.contiguous'] = 't:contiguous(): t if contiguous, else a contiguous copy',
  ['fused.Tensor.copy_'] = "t:copy_(src): src, broadcast to t's shape and converted to t's dtype and device, into t; returns t",
  ['fused.Tensor.copy'] = "t:copy(src): Torch7's name of t:copy_(src)",
  ['fused.Tensor.fill_'] = 't:fill_(v): every element v, returns t',
  ['fused.Tensor.fill'] = "t:fill(v): Torch7's name of t:fill_(v)",
  ['fused.Tensor.zero_'] = 't:zero_(): every element 0, returns t',
  ['fused.Tensor.zero'] = "t:zero(): Torch7's name of t:zero_()",
  ['fused.Tensor.uniform_'] = 't:uniform_(low = 0, high = 1): uniform numbers from fused\'s generator, in place',
  ['fused.Tensor.uniform'] = "t:uniform(low, high): Torch7's name of t:uniform_",
  ['fused.Tensor.normal_'] = 't:normal_(mean = 0, std = 1): normal numbers from fused\'s generator, in place',
  ['fused.Tensor.normal'] = "t:normal(mean, std): Torch7's name of t:normal_",
  ['fused.Tensor.narrow'] = 't:narrow(dim, start, length): a view of elements start .. start+length-1 along dim',
  ['fused.Tensor.select'] = 't:select(dim, index): a view of the slice at index, without dim',
  ['fused.Tensor.unbind'] = 't:unbind(dim = 1): the list of views t:select(dim, i), one per index along dim',
  ['fused.Tensor.chunk'] = 't:chunk(n, dim): n views along dim, the last smaller when the size does not divide',
  ['fused.Tensor.transpose'] = 't:transpose(d1, d2): a view with dims d1 and d2 swapped',
  ['fused.Tensor.t'] = 't:t(): the transpose of a matrix, a view',
  ['fused.Tensor.view'] = 't:view(sizes...): a view with another shape of the same numel (one size may be -1); t contiguous',
  ['fused.Tensor.reshape'] = 't:reshape(sizes...): t:contiguous():view(sizes...)',
  ['fused.Tensor.squeeze'] = 't:squeeze([dim]): a view without the dims of size 1 (0-d if all are; or without dim, if its size is 1)',
  ['fused.Tensor.unsqueeze'] = 't:unsqueeze(dim): a view with a dim of size 1 inserted at dim',
  ['fused.Tensor.permute'] = 't:permute(dims...): a view whose dim d is dim dims[d] of t',
  ['fused.Tensor.expand'] = 't:expand(sizes...): a stride-0 view repeating the dims of size 1 (-1 keeps a size)',
  ['fused.Tensor.flatten'] = 't:flatten(start_dim = 1, end_dim = -1): dims start..end merged into one (a copy when they do not merge)',

  -- fused.cuda
  ['fused.cuda.is_available'] = 'fused.cuda.is_available(): whether a GPU answers (false on the CUDA emulator)',
  ['fused.cuda.is_emulated'] = 'fused.cuda.is_emulated(): whether cuda tensors run on the CUDA emulator (FUSED_CUDA_EMULATOR=1)',
  ['fused.cuda.why'] = 'fused.cuda.why(): the device in use, or why CUDA is unavailable',
  ['fused.cuda.synchronize'] = 'fused.cuda.synchronize(): waits for every queued op',
  ['fused.cuda.memory_stats'] = "fused.cuda.memory_stats(): the caching allocator's bytes {in_use=, reserved=, peak=, cuda_mallocs=}",
  ['fused.cuda.empty_cache'] = 'fused.cuda.empty_cache(): gives the cached blocks back to the device',
  ['fused.cuda.set_tf32'] = 'fused.cuda.set_tf32(enabled): float32 matrix products on TF32 tensor cores (default false)',
  ['fused.cuda.emulator_seed'] = "fused.cuda.emulator_seed(n): the emulator's thread order: 0 in order, others shuffled (default 1)",

  -- fused.sparse
  ['fused.sparse.csr'] = 'fused.sparse.csr(row_ptr, col_idx, values, {N, M}): a CSR matrix (row_ptr from 0, col_idx from 1), checked',
  ['fused.sparse.from_coo'] = 'fused.sparse.from_coo(rows, cols, values, {N, M}): a CSR matrix from triples counted from 1; repeats summed',
  ['fused.sparse.from_dense'] = 'fused.sparse.from_dense(A): the CSR matrix of a dense matrix',
  ['fused.sparse.is_sparse'] = 'fused.sparse.is_sparse(x): whether x is a fused.sparse matrix',
  ['fused.sparse.mm'] = "fused.sparse.mm(S, X, {bias=, activation = 'relu', out=}): act(S @ X + bias), one pass over the rows",
  ['fused.sparse.normalize_adjacency'] = 'fused.sparse.normalize_adjacency(A): D^-1/2 (A + I) D^-1/2, sparse in, sparse out',

  -- fused.distributed
  ['fused.distributed.init'] = 'fused.distributed.init(): rank, size; joins the processes mpirun started (alone: 0, 1, no MPI)',
  ['fused.distributed.rank'] = "fused.distributed.rank(): this process's rank, from 0",
  ['fused.distributed.size'] = 'fused.distributed.size(): the number of processes',
  ['fused.distributed.launcher'] = "fused.distributed.launcher(): 'NAME=value' of the variable that says mpirun started this process, or nil",
  ['fused.distributed.allreduce'] = "fused.distributed.allreduce(t, 'sum' | 'mean'): t reduced over the processes, in place",
  ['fused.distributed.broadcast'] = "fused.distributed.broadcast(t, root = 0): root's t into every process's, in place",
  ['fused.distributed.barrier'] = 'fused.distributed.barrier(): waits for every process',
  ['fused.distributed.DataParallel'] = 'fused.distributed.DataParallel(model, {bucket_bytes = 25 MiB}): averages the gradients in buckets started during backward',

  -- fused.ext
  ['fused.ext.load'] = 'fused.ext.load{name=, sources = {...}, cflags=, cuda_cflags=, cdef=, cache_dir=, verbose=}: your C/CUDA sources compiled (cached) and bound',
  ['fused.ext.cell'] = "fused.ext.cell{name=, sources=, gates=, state = 'h' | 'hc' | {names}, params = {names}, outputs=, cuda_sources=, ...}: a recurrent cell from your C steps, for nn.RNN (on CUDA with cuda_sources: the same steps compiled as CUDA)",
  ['fused.ext.check'] = "fused.ext.check(status): raises fused's last error unless an extension function returned 0",
  ['fused.ext.has_cuda'] = 'fused.ext.has_cuda(): whether .cu sources can be built and run here',
  ['fused.ext.cache_root'] = 'fused.ext.cache_root{cache_dir=}: the build cache folder (cache_dir, $FUSED_EXT_CACHE, $XDG_CACHE_HOME/fused/ext or ~/.cache/fused/ext)',
  -- fused.cell
  ['fused.cell.define'] = "fused.cell.define{name=, gates=, state = 'h' | 'hc' | {'h', 'c', ...}, step = function(gx, gh, h[, c]) ... end (a list: function(gx, gh, s, p) ... return {h =, c =, ...} end), params = {'w_ci', ...}, init = {w_ci = 'zeros' | 'ones' | 'uniform'}, output = name | {names}, linear = true (step = function(gx, s, p, x, reset): new states linear in the old ones; the scan engine, no recurrent weights, forward's {resets =}), cache_dir=, verbose=}: a recurrent cell from its equations (backward derived, C generated and cached; compiled as CUDA too on its first CUDA run), for nn.RNN on the CPU and CUDA",
  ['fused.cell.source'] = 'fused.cell.source(cell): the generated C of a cell from fused.cell.define, the text compiled for the CPU and for CUDA alike',
  ['fused.cell.sigmoid'] = 'fused.cell.sigmoid(x): 1 / (1 + exp(-x)) in a cell step',
  ['fused.cell.tanh'] = 'fused.cell.tanh(x): tanh in a cell step',
  ['fused.cell.relu'] = 'fused.cell.relu(x): max(x, 0) in a cell step (NaN stays NaN; gradient 0 at 0, as PyTorch)',
  ['fused.cell.elu'] = 'fused.cell.elu(x): x > 0 and x or exp(x) - 1 (alpha 1) in a cell step',
  ['fused.cell.exp'] = 'fused.cell.exp(x): e^x in a cell step',
  ['fused.cell.log'] = 'fused.cell.log(x): the natural log in a cell step (log(1 + exp(x)) becomes softplus)',
  ['fused.cell.softplus'] = 'fused.cell.softplus(x): log(1 + exp(x)), without overflow, in a cell step',
  ['fused.cell.abs'] = 'fused.cell.abs(x): |x| in a cell step (gradient 0 at 0, as PyTorch)',
  ['fused.cell.sqrt'] = 'fused.cell.sqrt(x): the square root in a cell step',
  ['fused.cell.min'] = 'fused.cell.min(a, b): the smaller, per element, in a cell step (torch.minimum: NaN wins, half the gradient to each at a tie)',
  ['fused.cell.max'] = 'fused.cell.max(a, b): the larger, per element, in a cell step (torch.maximum: NaN wins, half the gradient to each at a tie)',
  ['fused.cell.logsigmoid'] = 'fused.cell.logsigmoid(x): log(sigmoid(x)), without overflow, in a cell step (torch.nn.functional.logsigmoid)',
  ['fused.cell.sin'] = 'fused.cell.sin(x): sin in a cell step',
  ['fused.cell.cos'] = 'fused.cell.cos(x): cos in a cell step',
  ['fused.cell.stop_gradient'] = 'fused.cell.stop_gradient(x): x, with no gradient reaching x, in a cell step (torch.Tensor.detach)',
  ['fused.cell.lt'] = 'fused.cell.lt(a, b): a < b, the condition of fused.cell.where in a cell step (no value of its own)',
  ['fused.cell.le'] = 'fused.cell.le(a, b): a <= b, the condition of fused.cell.where in a cell step (no value of its own)',
  ['fused.cell.gt'] = 'fused.cell.gt(a, b): a > b, the condition of fused.cell.where in a cell step (no value of its own)',
  ['fused.cell.ge'] = 'fused.cell.ge(a, b): a >= b, the condition of fused.cell.where in a cell step (no value of its own)',
  ['fused.cell.eq'] = 'fused.cell.eq(a, b): a == b, the condition of fused.cell.where in a cell step (no value of its own)',
  ['fused.cell.where'] = 'fused.cell.where(cond, a, b): a where the comparison cond holds, else b, per element, in a cell step (the gradient goes to the chosen branch)',

  -- fused.debug
  ['fused.debug.allocations'] = 'fused.debug.allocations(): the storages made since the library loaded',

  -- fused.functional
  ['fused.functional.lltm_forward'] = 'fused.functional.lltm_forward(x, W, b, h, c, {out=}): new_h, new_c, ctx: one LLTM step',
  ['fused.functional.lltm_backward'] = 'fused.functional.lltm_backward(ctx, grad_h, grad_c): d_x, d_W, d_b, d_h, d_c',
  ['fused.functional.lltm_backward_accumulate'] = 'fused.functional.lltm_backward_accumulate(ctx, grad_h, grad_c, gradWeight, gradBias): d_x, d_h, d_c, adding into the gradients',
  ['fused.functional.lltm_seq_forward'] = 'fused.functional.lltm_seq_forward(xs, W, b, h0, c0, {lengths=, reverse=, compute=}): hs, c_T, ctx: the LLTM over a sequence',
  ['fused.functional.lltm_seq_backward'] = 'fused.functional.lltm_seq_backward(ctx, d_hs, d_hT, d_cT): d_xs, d_W, d_b, d_h0, d_c0',
  ['fused.functional.lltm_seq_backward_accumulate'] = 'fused.functional.lltm_seq_backward_accumulate(ctx, d_hs, d_hT, d_cT, gradWeight, gradBias): adding into the gradients',
  ['fused.functional.rnn_forward'] = 'fused.functional.rnn_forward(cell, xs, w_ih, w_hh, b_ih, b_hh, h0, c0, {lengths=, reverse=, compute=, heads=}): hs, h_n, c_n, ctx',
  ['fused.functional.rnn_backward'] = 'fused.functional.rnn_backward(ctx, d_hs, d_hn, d_cn): d_xs, d_w_ih, d_w_hh, d_b_ih, d_b_hh, d_h0, d_c0',
  ['fused.functional.rnn_backward_accumulate'] = 'fused.functional.rnn_backward_accumulate(ctx, d_hs, d_hn, d_cn, grads): adding into grads',
  ['fused.functional.embedding'] = 'fused.functional.embedding(indices, weight, {out=}): the rows of weight at indices (from 1)',
  ['fused.functional.embedding_backward_accumulate'] = "fused.functional.embedding_backward_accumulate(d_out, indices, gradWeight): adds d_out's rows into gradWeight",
  ['fused.functional.cross_entropy'] = "fused.functional.cross_entropy(logits, targets, {ignore_index=, reduction = 'mean'|'sum'|'none', label_smoothing=, out=}): the cross-entropy of N x C logits against N int64 classes from 1",
  ['fused.functional.cross_entropy_backward'] = 'fused.functional.cross_entropy_backward(logits, targets, {ignore_index=, reduction=, label_smoothing=, grad_output=, out=}): its gradient with respect to logits',
  ['fused.functional.nll_loss'] = "fused.functional.nll_loss(log_probs, targets, {ignore_index=, reduction = 'mean'|'sum'|'none'}): -log_probs[i, targets[i]] of N x C log-probabilities, reduced",
  ['fused.functional.nll_loss_backward'] = 'fused.functional.nll_loss_backward(log_probs, targets, {ignore_index=, reduction=, grad_output=}): its gradient with respect to log_probs',
  ['fused.functional.sgd_step'] = 'fused.functional.sgd_step(param, grad, momentum_buffer, lr, momentum, dampening, weight_decay, nesterov, first_step): one SGD update in place',
  ['fused.functional.rmsprop_step'] = 'fused.functional.rmsprop_step(param, grad, square_avg, momentum_buffer, lr, alpha, eps, momentum, weight_decay): one RMSprop update',
  ['fused.functional.adam_step'] = 'fused.functional.adam_step(param, grad, exp_avg, exp_avg_sq, lr, beta1, beta2, eps, weight_decay, decoupled, step): one Adam update (decoupled: AdamW)',

  -- fused.nn
  ['fused.nn.Module'] = "fused.nn.Module: the base of every module: forward, backward, parameter(name, shape, {dtype=, device=}) (declares self[name] and its gradient self.grad[name]; gradWeight and gradBias alias grad.weight and grad.bias), parameters(), named_parameters(), zero_grad() (zeroGradParameters()), state_dict(), load_state_dict(), to(), train()/eval() and the training flag; m(x) is m:forward(x); backward(gradOutput) or Torch7's backward(input, gradOutput[, scale]), updateGradInput and accGradParameters, each call kept until its backward (max_pending); a subclass may define Torch7's updateOutput/updateGradInput/accGradParameters instead",
  ['fused.nn.Sequential'] = 'fused.nn.Sequential(m1, m2, ...) | Sequential():add(m): a chain of modules; parameters named by position from 0',
  ['fused.nn.Linear'] = 'fused.nn.Linear(in_features, out_features, {bias = true, dtype=, device=}): y = x weightᵀ + bias on ... x in inputs',
  ['fused.nn.ReLU'] = 'fused.nn.ReLU(): y = max(x, 0) elementwise',
  ['fused.nn.Scan'] = 'fused.nn.Scan({reverse=}): forward(a, b, h0, {lengths=, resets=}) = fused.scan; backward(d_h) -> d_a, d_b, d_h0',
  ['fused.nn.Tanh'] = 'fused.nn.Tanh(): y = tanh(x) elementwise',
  ['fused.nn.Sigmoid'] = 'fused.nn.Sigmoid(): y = sigmoid(x) elementwise',
  ['fused.nn.Dropout'] = 'fused.nn.Dropout(p = 0.5): inverted dropout in training (scales by 1/(1-p)), identity after :evaluate()',
  ['fused.nn.LayerNorm'] = 'fused.nn.LayerNorm(normalized_shape, {eps = 1e-5, elementwise_affine = true, dtype=, device=}): over the last dim',
  ['fused.nn.Embedding'] = 'fused.nn.Embedding(num_embeddings, embedding_dim, {padding_idx=, dtype=, device=}): row i of weight for index i (from 1); padding_idx (from 1, PyTorch\'s + 1) a zero row with no gradient',
  ['fused.nn.MSELoss'] = 'fused.nn.MSELoss(): forward(input, target) is mean((input - target)^2), a number; backward(input, target) its gradient',
  ['fused.nn.CrossEntropyLoss'] = "fused.nn.CrossEntropyLoss({ignore_index=, reduction = 'mean'|'sum'|'none', label_smoothing=}): forward(logits, targets), logits class-last or PyTorch's (N, C, d...), classes from 1; backward(logits, targets[, d_loss])",
  ['fused.nn.NLLLoss'] = "fused.nn.NLLLoss({ignore_index=, reduction = 'mean'|'sum'|'none'}): forward(log_probs, targets) is -log_probs[target] reduced, layouts as CrossEntropyLoss; backward(log_probs, targets[, d_loss])",
  ['fused.nn.Softmax'] = 'fused.nn.Softmax(dim): forward(x) is softmax along dim (stable); backward(d_y) from the output it kept',
  ['fused.nn.LogSoftmax'] = 'fused.nn.LogSoftmax(dim): forward(x) is log_softmax along dim (stable), the input of NLLLoss; backward(d_y)',
  ['fused.nn.LLTMCell'] = 'fused.nn.LLTMCell(input_features, state_size, {dtype=, device=}): the fused LLTM cell: forward(x, h, c) -> new_h, new_c',
  ['fused.nn.LLTMCellComposed'] = 'fused.nn.LLTMCellComposed(input_features, state_size, {opts}): the LLTM cell from public tensor ops, the reference for LLTMCell',
  ['fused.nn.LLTM'] = 'fused.nn.LLTM(input_size, hidden_size, {num_layers=, bidirectional=, batch_first=, dropout=, bias=, dtype=, device=, compute=}): the LLTM fused over a sequence: forward(xs, h0, c0, {lengths=}) -> hs, h_n, c_n',
  ['fused.nn.LSTM'] = 'fused.nn.LSTM(input_size, hidden_size, {num_layers=, bidirectional=, batch_first=, dropout=, bias=, dtype=, device=, compute=, heads=}): PyTorch\'s LSTM, fused: forward(xs, h0, c0, {lengths=}) -> hs, h_n, c_n',
  ['fused.nn.GRU'] = 'fused.nn.GRU(input_size, hidden_size, {num_layers=, bidirectional=, batch_first=, dropout=, bias=, dtype=, device=, compute=, heads=}): PyTorch\'s GRU, fused: forward(xs, h0, {lengths=}) -> hs, h_n',
  ['fused.nn.LSTMCell'] = 'fused.nn.LSTMCell(input_size, hidden_size, {dtype=, device=}): one LSTM step: forward(x, h, c) -> new_h, new_c',
  ['fused.nn.GRUCell'] = 'fused.nn.GRUCell(input_size, hidden_size, {dtype=, device=}): one GRU step: forward(x, h) -> new_h',
  ['fused.nn.RNN'] = 'fused.nn.RNN(input_size, hidden_size, {cell = fused.ext.cell{...}, num_layers=, bidirectional=, heads=}): your own cell on the cell engine; a linear cell (fused.cell.define{linear = true}) on the scan engine, with no recurrent weights (so no heads) and forward\'s {resets = a bool T x B tensor}',
  ['fused.nn.RNNCell'] = 'fused.nn.RNNCell(input_size, hidden_size, {cell = spec, dtype=, device=}): one step of your own cell (fused.cell.define, fused.ext.cell) as a cell module: forward(x, h[, c]), for nn.Recurrent',
  ['fused.nn.RNNBase'] = 'fused.nn.RNNBase: the base of LSTM, GRU, LLTM and RNN: stacked, bidirectional layers and ragged batches',
  ['fused.nn.RNNCellBase'] = 'fused.nn.RNNCellBase: the base of LSTMCell and GRUCell: one step of the cell engine',
  ['fused.nn.Recurrent'] = 'fused.nn.Recurrent(cell): any cell module (LSTMCell, GRUCell, LLTMCell, ...) unrolled over time step by step: forward(xs, h0[, c0], {lengths=}) -> hs, h_T[, c_T]',
  ['fused.nn.GraphConv'] = "fused.nn.GraphConv(in_features, out_features, {activation = 'relu', dtype=, device=}): forward(A, X) = act(A X Wᵀ + b), A dense or sparse; weight out x in (Linear's, and GCNConv's lin.weight)",

  -- fused.optim
  ['fused.optim.Optimizer'] = 'fused.optim.Optimizer: the base of the optimizers: step(), zero_grad(), state_dict(), load_state_dict()',
  ['fused.optim.SGD'] = 'fused.optim.SGD(params, grads, {lr = 0.01, momentum = 0, dampening = 0, weight_decay = 0, nesterov = false}): as torch.optim.SGD; opt:step()',
  ['fused.optim.Adam'] = 'fused.optim.Adam(params, grads, {lr = 1e-3, betas = {0.9, 0.999}, eps = 1e-8, weight_decay = 0}): as torch.optim.Adam (weight decay as L2)',
  ['fused.optim.AdamW'] = 'fused.optim.AdamW(params, grads, {lr = 1e-3, betas = {0.9, 0.999}, eps = 1e-8, weight_decay = 1e-2}): as torch.optim.AdamW (decoupled weight decay)',
  ['fused.optim.RMSprop'] = 'fused.optim.RMSprop(params, grads, {lr = 0.01, alpha = 0.99, eps = 1e-8, momentum = 0, weight_decay = 0}): as torch.optim.RMSprop',
  ['fused.optim.clip_grad_norm'] = 'fused.optim.clip_grad_norm(params or grads, max_norm, {norm_type = 2, error_if_nonfinite = false}) -> total_norm: scales the gradients (of the parameters given, or the gradients given) in place when their joint norm exceeds max_norm',
}

-- The tables under which a bare name is looked for: help('tanh') is fused.tanh, help('view')
-- the method t:view.
local PREFIXES = { '', 'fused.', 'fused.nn.', 'fused.optim.', 'fused.Tensor.' }

-- The value a dotted name stands for in fused, or nil; never raises (fused and its lazy tables
-- raise on an unknown name).
local function resolve(fused, name)
  local value = fused
  for part in name:gmatch('[^%.]+') do
    if part ~= 'fused' or value ~= fused then
      local ok, v = pcall(function() return value[part] end)
      if not ok then return nil end
      value = v
    end
  end
  return value
end

-- The entry's name for x, a name or a value.
local function find(fused, x)
  if type(x) == 'string' then
    local bare = x:gsub('^%?', ''):gsub('^[%w_]+:', '')   -- '?tanh', 't:tanh' read as 'tanh'
    for _, prefix in ipairs(PREFIXES) do
      if M.entries[prefix .. bare] then return prefix .. bare end
    end
    return nil
  end
  if type(x) == 'number' or type(x) == 'boolean' or x == nil then return nil end
  -- A value: the entry whose name stands for it, or its class's (a module, an optimizer, a tensor).
  local names = {}
  for name in pairs(M.entries) do names[#names + 1] = name end
  table.sort(names)
  local seen = {}
  while x ~= nil and not seen[x] do
    seen[x] = true
    for _, name in ipairs(names) do
      if rawequal(resolve(fused, name), x) then return name end
    end
    if fused.is_tensor(x) then return 'fused.Tensor' end
    local mt = getmetatable(x)
    x = type(mt) == 'table' and rawget(mt, '__index') or nil
  end
end

-- The names under a module's entry ('fused.nn' -> 'fused.nn.Linear', ...), sorted.
local function members(module)
  local list = {}
  for name in pairs(M.entries) do
    local rest = name:sub(#module + 2)
    if name:sub(1, #module + 1) == module .. '.' and not rest:find('.', 1, true) then
      list[#list + 1] = rest
    end
  end
  table.sort(list)
  return list
end

local USAGE = [[help(x) or ?x prints what x is: help(fused.tanh), help('tanh'), ?fused.nn.LSTM.
Modules: fused, fused.nn, fused.optim, fused.cuda, fused.functional, fused.sparse,
fused.distributed, fused.ext, fused.cell (help(fused.nn) lists its names). docs/README.md has the manual.]]

-- The help text of x (a value, or a name such as 'tanh' or 'fused.nn.LSTM'); nil and a message
-- when there is no entry. Without x, how to use help.
function M.text(fused, x, given)
  if not given then return USAGE end
  local name = find(fused, x)
  if not name then
    if x == nil then return nil, 'help: got nil (a name not defined?); help() says what has an entry' end
    local what = type(x) == 'string' and string.format("'%s'", x) or 'this ' .. type(x)
    return nil, string.format('help: no entry for %s; help() says what has one', what)
  end
  local text = M.entries[name]
  local line = ''
  for _, member in ipairs(members(name)) do -- wrapped at 96 columns
    if #line + #member > 94 then
      text, line = text .. '\n ' .. line, ''
    end
    line = line .. ' ' .. member
  end
  if line ~= '' then text = text .. '\n ' .. line end
  return text
end

return M
