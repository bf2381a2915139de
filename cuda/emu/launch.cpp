/* The emulator's kernel launches (cuda_runtime.h): the blocks of a grid over OpenMP threads,
 * the threads of a block as fibers on one of them, run in rounds: each runnable
 * thread, in an order shuffled by the seed, runs until it finishes or waits at a barrier; when
 * every live thread of the block (of the warp, for a shuffle or a vote) waits, they run again.
 * So a __syncthreads is a real barrier, and a kernel that reads another thread's write without
 * one sees it or not depending on the seed. */
#include <omp.h>
#include <stdio.h>
#include <sys/mman.h>

#include <vector>

#include "cuda_runtime.h"
#include "device.h"

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/common_interface_defs.h>
#define SWITCH_START(save, bottom, size) __sanitizer_start_switch_fiber(save, bottom, size)
#define SWITCH_FINISH(save, bottom, size) __sanitizer_finish_switch_fiber(save, bottom, size)
#else
#define SWITCH_START(save, bottom, size) ((void)(save), (void)(bottom), (void)(size))
#define SWITCH_FINISH(save, bottom, size) ((void)(save), (void)(bottom), (void)(size))
#endif

/* A fiber switch: saves the callee-saved registers on the current stack and its pointer in
 * *from, then continues on stack `to` where it was saved (or where start_stack set it up).
 * glibc's swapcontext also saves the signal mask, a system call each way: a million threads of a
 * pointwise kernel took 0.6 s in it. */
#if !defined(__x86_64__)
#error "the CUDA emulator's fiber switch is written for x86-64"
#endif
extern "C" __attribute__((visibility("hidden"))) void emu_switch(void **from, void *to);
asm(R"(
  .text
  .globl emu_switch
  .hidden emu_switch
  .type emu_switch, @function
emu_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size emu_switch, .-emu_switch
)");

namespace emu {
namespace {

/* A fiber's stack, aligned to its size (place_of_stack reads the Place at its lowest address);
 * NULL when there is no memory. */
void *new_stack(void) {
  char *p = (char *)mmap(nullptr, 2 * STACK_BYTES, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  char *stack = (char *)(((uintptr_t)p + STACK_BYTES - 1) & ~(uintptr_t)(STACK_BYTES - 1));
  if (stack > p) munmap(p, (size_t)(stack - p));
  munmap(stack + STACK_BYTES, (size_t)(p + STACK_BYTES - stack));
  return stack;
}

/* A stack whose first switch enters entry(), aligned as after a call. */
void *start_stack(void *stack, size_t bytes, void (*entry)(void)) {
  uintptr_t top = ((uintptr_t)stack + bytes) & ~(uintptr_t)15;
  void **sp = (void **)top;
  *--sp = nullptr;          /* entry's return address: it never returns */
  *--sp = (void *)entry;    /* where emu_switch's ret goes */
  for (int i = 0; i < 6; i++) *--sp = nullptr; /* rbp rbx r12-r15 */
  return sp;
}

constexpr unsigned MAX_THREADS = 1024, WARP = 32;
constexpr size_t MAX_SHARED_BYTES = 48 * 1024;
constexpr int64_t PARALLEL_THREADS = 1 << 15;

enum State { NOT_STARTED, RUNNABLE, AT_BLOCK_BARRIER, AT_WARP_BARRIER, DONE };

struct Fiber {
  void *sp = nullptr;    /* saved while switched out */
  void *stack = nullptr; /* from the pool while it runs or waits */
  Place place;
  State state = DONE;
  unsigned warp_mask = 0;
  void *fake_stack = nullptr; /* AddressSanitizer's, while switched out */
};

/* What an OS thread keeps for the blocks it runs, one at a time. A thread takes a stack when it
 * first runs and gives it back when it ends, so a kernel without barriers runs every thread on
 * one stack, warm in the cache. */
struct Block {
  void *scheduler_sp = nullptr;
  const void *scheduler_bottom = nullptr;
  size_t scheduler_size = 0;
  std::vector<Fiber> fibers;
  std::vector<void *> stacks; /* the free ones */
  uint64_t slots[MAX_THREADS]; /* warp_exchange's values, by thread */
  Fiber *current = nullptr;
  void (*body)(const void *) = nullptr;
  const void *arg = nullptr;
};

thread_local Block *block_of_thread;

uint64_t seed = 1;
uint64_t launches;

/* splitmix64: a thread order from (seed, launch, block). */
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/* The block whose thread runs on this stack (resume wrote it beside the Place). */
Block &block_of_stack(void) {
  uintptr_t sp;
  __asm__("movq %%rsp, %0" : "=r"(sp));
  return **(Block **)((sp & ~(uintptr_t)(STACK_BYTES - 1)) + sizeof(Place *));
}

void fiber_main(void) {
  Block &b = block_of_stack();
  SWITCH_FINISH(nullptr, &b.scheduler_bottom, &b.scheduler_size);
  b.body(b.arg);
  b.current->state = DONE;
  SWITCH_START(nullptr, b.scheduler_bottom, b.scheduler_size); /* this fiber's frames end */
  emu_switch(&b.current->sp, b.scheduler_sp);
}

/* From the running fiber back to the block's scheduler, waiting in state s. */
void wait(State s, unsigned mask) {
  Block &b = block_of_stack();
  Fiber *f = b.current;
  f->state = s;
  f->warp_mask = mask;
  SWITCH_START(&f->fake_stack, b.scheduler_bottom, b.scheduler_size);
  emu_switch(&f->sp, b.scheduler_sp);
  SWITCH_FINISH(f->fake_stack, nullptr, nullptr);
}

unsigned linear(const Place &p) {
  return p.thread.x + p.block_dim.x * (p.thread.y + p.block_dim.y * p.thread.z);
}

bool waiting(State s) { return s == AT_BLOCK_BARRIER || s == AT_WARP_BARRIER; }

/* Makes waiting threads runnable where their barrier is complete; false when none could be. */
bool release(Block &b, unsigned n) {
  unsigned live = 0, at_block = 0;
  for (unsigned i = 0; i < n; i++) {
    live += b.fibers[i].state != DONE;
    at_block += b.fibers[i].state == AT_BLOCK_BARRIER;
  }
  if (live > 0 && at_block == live) {
    for (unsigned i = 0; i < n; i++)
      if (b.fibers[i].state == AT_BLOCK_BARRIER) b.fibers[i].state = RUNNABLE;
    return true;
  }
  bool released = false;
  for (unsigned first = 0; first < n; first += WARP) {
    const unsigned end = first + WARP < n ? first + WARP : n;
    unsigned mask = 0;
    for (unsigned i = first; i < end; i++)
      if (b.fibers[i].state == AT_WARP_BARRIER) mask |= b.fibers[i].warp_mask;
    bool complete = mask != 0;
    for (unsigned i = first; i < end; i++)
      if (mask >> (i - first) & 1 && b.fibers[i].state != AT_WARP_BARRIER &&
          b.fibers[i].state != DONE)
        complete = false;
    if (!complete) continue;
    for (unsigned i = first; i < end; i++)
      if (b.fibers[i].state == AT_WARP_BARRIER) b.fibers[i].state = RUNNABLE;
    released = true;
  }
  return released;
}

/* Switches to fiber f until it waits or ends; false (with the error set) when no stack. */
bool resume(Block &b, Fiber &f, const char *name) {
  if (f.state == NOT_STARTED) {
    if (b.stacks.empty()) {
      void *stack = new_stack();
      if (!stack) {
        set_error(cudaErrorMemoryAllocation, "%s: no memory for the stacks of its threads", name);
        return false;
      }
      b.stacks.push_back(stack);
    }
    f.stack = b.stacks.back();
    b.stacks.pop_back();
    /* where place_of_stack and block_of_stack find them */
    *(const Place **)f.stack = &f.place;
    *(Block **)((char *)f.stack + sizeof(Place *)) = &b;
    f.sp = start_stack(f.stack, STACK_BYTES, fiber_main);
  }
  f.state = RUNNABLE;
  b.current = &f;
  void *fake = nullptr;
  SWITCH_START(&fake, f.stack, STACK_BYTES);
  emu_switch(&b.scheduler_sp, f.sp);
  SWITCH_FINISH(fake, nullptr, nullptr);
  if (f.state == DONE) b.stacks.push_back(f.stack);
  return true;
}

/* Runs one block to its end; false (with the error set) when its threads deadlock. */
bool run_block(const char *name, dim3 grid, dim3 block, uint3 index, uint64_t launch,
               void (*body)(const void *), const void *arg) {
  if (!block_of_thread) block_of_thread = new Block(); /* kept for the thread's life */
  Block &b = *block_of_thread;
  const unsigned n = block.x * block.y * block.z;
  if (b.fibers.size() < n) b.fibers.resize(n);
  b.body = body;
  b.arg = arg;
  unsigned i = 0;
  for (unsigned z = 0; z < block.z; z++)
    for (unsigned y = 0; y < block.y; y++)
      for (unsigned x = 0; x < block.x; x++, i++) {
        Fiber &f = b.fibers[i];
        f.place = {{x, y, z}, index, block, grid};
        f.state = NOT_STARTED;
      }
  const uint64_t block_id = index.x + (uint64_t)grid.x * (index.y + (uint64_t)grid.y * index.z);
  uint64_t rng = mix(seed ^ mix(launch ^ mix(block_id)));
  std::vector<unsigned> order;
  order.reserve(n);
  for (;;) {
    order.clear();
    for (unsigned k = 0; k < n; k++)
      if (b.fibers[k].state == NOT_STARTED || b.fibers[k].state == RUNNABLE) order.push_back(k);
    if (seed != 0)
      for (size_t k = order.size(); k > 1; k--) /* Fisher-Yates; Lemire's multiply for % k */
        std::swap(order[k - 1], order[(size_t)((unsigned __int128)(rng = mix(rng)) * k >> 64)]);
    for (unsigned k : order)
      if (!resume(b, b.fibers[k], name)) return false;
    unsigned live = 0;
    for (unsigned k = 0; k < n; k++) live += b.fibers[k].state != DONE;
    if (live == 0) return true;
    if (!release(b, n)) {
      set_error(cudaErrorLaunchFailure,
                "%s: the threads of block (%u, %u, %u) wait at barriers that cannot complete "
                "(a __syncthreads or a warp's shuffle not reached by all)",
                name, index.x, index.y, index.z);
      /* Their stacks are abandoned with them; the next block takes new ones. */
      for (unsigned k = 0; k < n; k++)
        if (waiting(b.fibers[k].state)) b.fibers[k].state = DONE;
      return false;
    }
  }
}

} // namespace

void syncthreads(void) { wait(AT_BLOCK_BARRIER, 0); }

uint64_t warp_exchange(unsigned mask, uint64_t bits, int src) {
  Block &b = *block_of_thread;
  const unsigned self = linear(b.current->place), first = self / WARP * WARP;
  b.slots[self] = bits;
  wait(AT_WARP_BARRIER, mask);
  const uint64_t v = b.slots[first + (unsigned)src % WARP];
  wait(AT_WARP_BARRIER, mask); /* nobody writes its slot again before every lane has read */
  return v;
}

unsigned warp_ballot(unsigned mask, int pred) {
  Block &b = *block_of_thread;
  const unsigned self = linear(b.current->place), first = self / WARP * WARP;
  b.slots[self] = pred != 0;
  wait(AT_WARP_BARRIER, mask);
  unsigned bits = 0;
  for (unsigned lane = 0; lane < WARP && first + lane < b.fibers.size(); lane++)
    if (mask >> lane & 1 && b.fibers[first + lane].state != DONE && b.slots[first + lane])
      bits |= 1u << lane;
  wait(AT_WARP_BARRIER, mask);
  return bits;
}

void launch(const char *name, dim3 grid, dim3 block, size_t shared_bytes, cudaStream_t stream,
            void (*body)(const void *), const void *arg) {
  const uint64_t threads = (uint64_t)block.x * block.y * block.z;
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || threads == 0 || threads > MAX_THREADS ||
      block.z > 64 || grid.y > 65535 || grid.z > 65535) {
    set_error(cudaErrorInvalidConfiguration,
              "%s: launch of grid (%u, %u, %u) and block (%u, %u, %u): a block holds 1 to %u "
              "threads (z up to 64), a grid's y and z up to 65535 blocks",
              name, grid.x, grid.y, grid.z, block.x, block.y, block.z, MAX_THREADS);
    return;
  }
  if (shared_bytes > MAX_SHARED_BYTES) {
    set_error(cudaErrorInvalidValue, "%s: %zu bytes of dynamic shared memory, over the %zu a "
              "block has", name, shared_bytes, MAX_SHARED_BYTES);
    return;
  }
  if (!stream_is_valid(stream)) {
    set_error(cudaErrorInvalidValue, "%s: launched on a stream that is not one", name);
    return;
  }
  const uint64_t launch = __atomic_fetch_add(&launches, 1, __ATOMIC_RELAXED);
  const int64_t blocks = (int64_t)grid.x * grid.y * grid.z;
  /* A parallel region costs more than a small grid's work (and a timeslice where the cores are
   * busy): a small grid runs on the calling thread. */
  const bool parallel = blocks > 1 && blocks * (int64_t)threads >= PARALLEL_THREADS;
  bool ok = true;
#pragma omp parallel for schedule(dynamic) reduction(&& : ok) if (parallel && !omp_in_parallel())
  for (int64_t k = 0; k < blocks; k++) {
    const uint3 index = {(unsigned)(k % grid.x), (unsigned)(k / grid.x % grid.y),
                         (unsigned)(k / ((int64_t)grid.x * grid.y))};
    if (ok) ok = run_block(name, grid, block, index, launch, body, arg);
  }
}

} // namespace emu

extern "C" void fused_cuda_emu_seed(uint64_t s) { emu::seed = s; }
