/* Elementwise kernels: fill (any strides) and unary/binary ops on contiguous tensors. */

static int fill(fused_tensor *t, double value) {
  const scalar_t v = (scalar_t)value;
  strided_iter it;
  strided_iter_init(&it, t, NULL);
  if (fused_tensor_is_contiguous(t)) {
    scalar_t *x = (scalar_t *)t->data;
    int64_t n = fused_tensor_numel(t);
    PARALLEL_FOR(n, i, { x[i] = v; });
    return 0;
  }
  do {
    scalar_t *x = (scalar_t *)t->data + it.offset[0];
    for (int64_t i = 0; i < it.inner; i++) x[i * it.inner_stride[0]] = v;
  } while (strided_iter_next(&it));
  return 0;
}

static inline scalar_t sigmoid_of(scalar_t z) { return 1 / (1 + exp(-z)); }

/* Each case is its own loop so that the compiler vectorises it. */
#define MAP(EXPR)                     \
  PARALLEL_FOR(n, i, {                \
    const scalar_t z = x[i];          \
    y[i] = (EXPR);                    \
  });                                 \
  break

static int unary(fused_unary_op op, fused_tensor *out, const fused_tensor *in, double alpha_) {
  const scalar_t *x = (const scalar_t *)in->data, alpha = (scalar_t)alpha_;
  scalar_t *y = (scalar_t *)out->data;
  const int64_t n = fused_tensor_numel(in);
  switch (op) {
    case FUSED_NEG: MAP(-z);
    case FUSED_EXP: MAP(exp(z));
    case FUSED_LOG: MAP(log(z));
    case FUSED_TANH: MAP(tanh(z));
    case FUSED_SIGMOID: MAP(sigmoid_of(z));
    case FUSED_ELU: MAP(z > 0 ? z : alpha * expm1(z));
    case FUSED_RELU: MAP(z <= 0 ? 0 : z); /* NaN fails the test: relu(NaN) is NaN */
    case FUSED_SQRT: MAP(sqrt(z));
    case FUSED_ABS: MAP(fabs(z));
    case FUSED_D_EXP: MAP(exp(z));
    case FUSED_D_LOG: MAP(1 / z);
    case FUSED_D_TANH: MAP(1 - tanh(z) * tanh(z));
    case FUSED_D_SIGMOID: MAP(sigmoid_of(z) * (1 - sigmoid_of(z)));
    case FUSED_D_ELU: MAP(z > 0 ? 1 : alpha * exp(z));
    case FUSED_D_RELU: MAP(z > 0 ? 1 : z <= 0 ? 0 : z);
    default: return fused_error("unary: unknown op %d", (int)op);
  }
  return 0;
}
#undef MAP

static inline scalar_t apply_binary(fused_binary_op op, scalar_t a, scalar_t b) {
  switch (op) {
    case FUSED_ADD: return a + b;
    case FUSED_SUB: return a - b;
    case FUSED_MUL: return a * b;
    case FUSED_DIV: return a / b;
    case FUSED_RSUB: return b - a;
    case FUSED_RDIV: return b / a;
    case FUSED_POW: return pow(a, b);
    case FUSED_MAX: return a > b || a != a ? a : b;
    case FUSED_MIN: return a < b || a != a ? a : b;
    default: return 0;
  }
}

/* The op is a compile-time constant inside each case, so each loop vectorises. */
#define ZIP(OP, B)                                          \
  case OP:                                                  \
    PARALLEL_FOR(n, i, { y[i] = apply_binary(OP, a[i], (B)); }); \
    break

static int binary(fused_binary_op op, fused_tensor *out, const fused_tensor *ta,
                  const fused_tensor *tb) {
  const scalar_t *a = (const scalar_t *)ta->data, *b = (const scalar_t *)tb->data;
  scalar_t *y = (scalar_t *)out->data;
  const int64_t n = fused_tensor_numel(out);
  switch (op) {
    ZIP(FUSED_ADD, b[i]); ZIP(FUSED_SUB, b[i]); ZIP(FUSED_MUL, b[i]); ZIP(FUSED_DIV, b[i]);
    ZIP(FUSED_RSUB, b[i]); ZIP(FUSED_RDIV, b[i]); ZIP(FUSED_POW, b[i]); ZIP(FUSED_MAX, b[i]);
    ZIP(FUSED_MIN, b[i]);
    default: return fused_error("binary: unknown op %d", (int)op);
  }
  return 0;
}

static int binary_scalar(fused_binary_op op, fused_tensor *out, const fused_tensor *ta,
                         double scalar) {
  const scalar_t *a = (const scalar_t *)ta->data, s = (scalar_t)scalar;
  scalar_t *y = (scalar_t *)out->data;
  const int64_t n = fused_tensor_numel(out);
  switch (op) {
    ZIP(FUSED_ADD, s); ZIP(FUSED_SUB, s); ZIP(FUSED_MUL, s); ZIP(FUSED_DIV, s);
    ZIP(FUSED_RSUB, s); ZIP(FUSED_RDIV, s); ZIP(FUSED_POW, s); ZIP(FUSED_MAX, s);
    ZIP(FUSED_MIN, s);
    default: return fused_error("binary_scalar: unknown op %d", (int)op);
  }
  return 0;
}
#undef ZIP
