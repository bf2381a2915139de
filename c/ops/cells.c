/* The cells of the sequence engine: the built-in ones (their steps are c/cpu/generic/rnn.h's)
 * and those registered by extensions (docs/extending.md). */
#include <string.h>

#include "../core/error.h"
#include "../fused.h"


/* The built-in cells first (fused.h's FUSED_CELLS; the numbers are cell_layout.h's). They have
 * no step pointers: the CPU driver compiles their rows for each vector capability
 * (generic/rnn.h). */
#define BUILT_IN(id, name, gates, saved, has_c, d_ih, d_hh, h_prev) \
  [id] = {#name, gates, saved, has_c, d_ih, d_hh, h_prev, 0, 1, NULL, NULL, NULL, NULL},
static fused_cell_def cells[FUSED_CELLS_MAX] = {FUSED_CELLS(BUILT_IN)};
#undef BUILT_IN
static char names[FUSED_CELLS_MAX][FUSED_CELL_NAME_MAX + 1];
static int32_t count = FUSED_NUM_CELLS;

const fused_cell_def *fused_rnn_cell(int32_t cell) {
  if (cell < 0 || cell >= __atomic_load_n(&count, __ATOMIC_ACQUIRE)) return NULL;
  return &cells[cell];
}

/* A block window [at, at + n) inside the row of S blocks. */
static int check_block(const char *field, int32_t at, int32_t n, int32_t S) {
  if (at < 0 || at + n > S)
    return fused_error("rnn_register_cell: field '%s' expected a block in 0..%d (gates blocks "
                       "from it inside saved = %d), got %d", field, S - n, S, at);
  return 0;
}

int32_t fused_rnn_register_cell(const fused_cell_def *def) {
  const char *fn = "rnn_register_cell";
  if (!def) return fused_error("%s: argument 'def' expected a fused_cell_def, got NULL", fn);
  if (!def->name || !def->name[0] || strlen(def->name) > FUSED_CELL_NAME_MAX)
    return fused_error("%s: field 'name' expected a name of 1 to %d characters, got %zu", fn,
                       FUSED_CELL_NAME_MAX, def->name ? strlen(def->name) : 0);
  if (def->gates < 1 || def->gates > 64)
    return fused_error("%s: field 'gates' expected 1..64, got %d", fn, def->gates);
  if (def->saved <= def->gates || def->saved > FUSED_CELL_SAVED_MAX)
    return fused_error("%s: field 'saved' expected %d..%d (the gates and h_prev at least), "
                       "got %d", fn, def->gates + 1, FUSED_CELL_SAVED_MAX, def->saved);
  if (def->has_c < 0 || def->has_c > FUSED_CELL_SAVED_MAX)
    return fused_error("%s: field 'has_c' expected 0..%d (blocks of cell state), got %d", fn,
                       FUSED_CELL_SAVED_MAX, def->has_c);
  if (def->outputs < 0 || def->outputs > FUSED_CELL_SAVED_MAX)
    return fused_error("%s: field 'outputs' expected 0..%d (0 or 1: one), got %d", fn,
                       FUSED_CELL_SAVED_MAX, def->outputs);
  if (def->params < 0 || def->params > FUSED_CELL_SAVED_MAX)
    return fused_error("%s: field 'params' expected 0..%d, got %d", fn, FUSED_CELL_SAVED_MAX,
                       def->params);
  FUSED_TRY(check_block("h_prev", def->h_prev, 1, def->saved));
  FUSED_TRY(check_block("d_ih", def->d_ih, def->gates, def->saved));
  FUSED_TRY(check_block("d_hh", def->d_hh, def->gates, def->saved));
  if (def->d_hh + def->gates + def->params > def->saved)
    return fused_error("%s: field 'params' expected at most %d (their gradients take the blocks "
                       "after d_hh's %d gates, inside saved = %d), got %d", fn,
                       def->saved - def->d_hh - def->gates, def->gates, def->saved, def->params);
  /* x and d_x: both 0 (none), or blocks of their own after the gates (the input projection) */
  const int32_t x = def->x, dx = def->d_x, last = def->saved - 1;
  if (x < 0 || x > last || (x && (x < def->gates || x == def->h_prev)))
    return fused_error("%s: field 'x' expected 0 or a block in %d..%d other than h_prev's (%d), "
                       "got %d", fn, def->gates, last, def->h_prev, x);
  if (dx < 0 || dx > last || (dx && (dx < def->gates || dx == def->h_prev || dx == x)))
    return fused_error("%s: field 'd_x' expected 0 or a block in %d..%d other than h_prev's "
                       "(%d) and x's (%d), got %d", fn, def->gates, last, def->h_prev, x, dx);
  if (!x != !dx)
    return fused_error("%s: fields 'x' and 'd_x' expected both 0 or both blocks, got %d and %d",
                       fn, x, dx);
  if (def->h_prev < def->gates)
    return fused_error("%s: field 'h_prev' expected a block after the %d gate blocks, got %d",
                       fn, def->gates, def->h_prev);
  if (!def->forward_f32 || !def->backward_f32 || !def->forward_f64 || !def->backward_f64)
    return fused_error("%s: the fields forward_f32, backward_f32, forward_f64 and backward_f64 "
                       "expected functions, got NULL", fn);
  const int32_t id = __atomic_load_n(&count, __ATOMIC_ACQUIRE);
  if (id >= FUSED_CELLS_MAX)
    return fused_error("%s: a process holds %d cells, and all are taken (the %d built-in and %d "
                       "registered: each distinct cell registers once)", fn, FUSED_CELLS_MAX,
                       FUSED_NUM_CELLS, id - FUSED_NUM_CELLS);
  cells[id] = *def;
  strcpy(names[id], def->name);
  cells[id].name = names[id];
  __atomic_store_n(&count, id + 1, __ATOMIC_RELEASE);
  return id;
}

/* The CUDA steps of registered cells, by id: [dtype][backward]. Written once, before the id
 * is handed to a CUDA run (fused.ext registers them before it returns). */
static fused_cell_cuda_step cuda_steps[FUSED_CELLS_MAX][2][2];

int fused_rnn_register_cell_cuda(int32_t cell, fused_cell_cuda_step forward_f32,
                                 fused_cell_cuda_step backward_f32,
                                 fused_cell_cuda_step forward_f64,
                                 fused_cell_cuda_step backward_f64) {
  const char *fn = "rnn_register_cell_cuda";
  if (cell < FUSED_NUM_CELLS || !fused_rnn_cell(cell))
    return fused_error("%s: argument 'cell' expected a registered cell's id, got %d", fn, cell);
  if (!forward_f32 || !backward_f32 || !forward_f64 || !backward_f64)
    return fused_error("%s: the %s cell's steps expected functions, got NULL", fn,
                       cells[cell].name);
  fused_cell_cuda_step *s = &cuda_steps[cell][0][0];
  __atomic_store_n(&s[0], forward_f32, __ATOMIC_RELEASE);
  __atomic_store_n(&s[1], backward_f32, __ATOMIC_RELEASE);
  __atomic_store_n(&s[2], forward_f64, __ATOMIC_RELEASE);
  __atomic_store_n(&s[3], backward_f64, __ATOMIC_RELEASE);
  return 0;
}

fused_cell_cuda_step fused_rnn_cell_cuda(int32_t cell, int32_t dtype, int32_t backward) {
  if (!fused_rnn_cell(cell) || (dtype != FUSED_FLOAT32 && dtype != FUSED_FLOAT64)) return NULL;
  return __atomic_load_n(&cuda_steps[cell][dtype][backward != 0], __ATOMIC_ACQUIRE);
}
