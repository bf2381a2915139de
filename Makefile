# fused: `make` builds the libraries, `make test` runs the specs (installing what is missing).
PREFIX ?= /usr/local
LUADIR ?= $(PREFIX)/share/lua/5.1
LIBDIR ?= $(PREFIX)/lib/lua/5.1
BINDIR ?= $(PREFIX)/bin
INCLUDEDIR ?= $(PREFIX)/include/fused
BUILD ?= build
CC ?= cc
NVCC ?= $(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
# NCCL ships with the CUDA toolkit: libfused_nccl.so is built where its header is.
NCCL_HEADER = $(wildcard $(dir $(NVCC))../include/nccl.h)
LUAJIT ?= luajit
BUSTED ?= $(shell command -v busted 2>/dev/null || echo /usr/bin/busted)

# CFLAGS and LDFLAGS are the user's (luarocks passes its own); what the build needs is in
# FUSED_CFLAGS and FUSED_LDFLAGS, which a command-line CFLAGS cannot drop.
CFLAGS ?= -O3
# -Werror=switch: a row of a list in fused.h without its case in a switch over it (c/maths/) is
# a compile error.
FUSED_CFLAGS = -Werror=implicit-function-declaration -Werror=switch -std=gnu11 -fPIC -fopenmp -Wall -Wextra \
  -Wno-unused-parameter
FUSED_LDFLAGS = -shared -fopenmp -Wl,-z,nodelete -Wl,-soname,libfused.so
# OpenBLAS on OpenMP, so that BLAS and our kernels share one thread pool (and BLAS runs on one
# thread inside our parallel regions): Debian's libopenblas0-openmp, found by its directory,
# since the system's default libopenblas.so.0 is the pthreads build. Elsewhere, the default.
OPENBLAS_OPENMP ?= $(firstword $(wildcard /usr/lib/*/openblas-openmp))
OPENBLAS_PATH = -L$(OPENBLAS_OPENMP) -Wl,-rpath,$(OPENBLAS_OPENMP)
# oneDNN (Debian's libdnnl-dev, scripts/install-deps.sh) runs the sequence engine's bfloat16
# products over all steps where the CPU has AVX512_BF16 (c/cpu/bf16.h); built without it
# (no header), bfloat16 compute takes the float32 fallback everywhere.
DNNL_HEADER ?= $(wildcard /usr/include/oneapi/dnnl/dnnl.h)
FUSED_CFLAGS += $(if $(DNNL_HEADER),-DFUSED_HAVE_DNNL)
LIBS = $(if $(OPENBLAS_OPENMP),$(OPENBLAS_PATH)) -lopenblas $(if $(DNNL_HEADER),-ldnnl) -lm
NVCCFLAGS ?= -O3 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90
NVCCFLAGS += -Xcompiler -fPIC,-Wall,-Wextra,-Wno-unused-parameter,-Werror=switch
SANITIZE = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g

# The CPU kernels (c/cpu/kernels_<dtype>.c) are compiled once per capability, each into its own
# tables; c/cpu/capability.c picks the best set the CPU runs when the library loads. No
# -march: one library runs on every x86-64 CPU.
CPU_CAPABILITIES = avx512 avx2 default
CAPABILITY_FLAGS_avx512 = -mavx512f -mavx512dq -mavx512vl -mavx512bw -mavx2 -mfma
CAPABILITY_FLAGS_avx2 = -mavx2 -mfma
CAPABILITY_FLAGS_default =
# capability.c returns them (fused_cpu_capability_flags), for fused.ext to compile with.
$(foreach build,obj asan/obj valgrind/obj,$(BUILD)/$(build)/c/cpu/capability.o): FUSED_CFLAGS += \
  $(foreach cap,$(CPU_CAPABILITIES),-DCAPABILITY_FLAGS_$(cap)='"$(CAPABILITY_FLAGS_$(cap))"')
KERNEL_SOURCES = $(wildcard c/cpu/kernels_*.c)
C_SOURCES = $(filter-out $(KERNEL_SOURCES),$(wildcard c/core/*.c c/ops/*.c c/cpu/*.c))
C_HEADERS = c/fused.h c/fused_ext.h c/fused_simd.h c/fused_launch.h c/fused_cell_cuda.h $(wildcard c/core/*.h c/maths/*.h c/cpu/*.h c/cpu/generic/*.h)
CU_SOURCES = $(wildcard cuda/*.cu)
CU_HEADERS = $(wildcard cuda/*.h cuda/*.cuh)
LUA_ENV = LUA_PATH='lua/?.lua;lua/?/init.lua;;'
SPECS ?= spec

.PHONY: all cuda emu test test-asan test-valgrind fuzz check-cdef deps install uninstall rock-check \
        bench bench-ffi bench-seq bench-compare bench-dist soak demo clean mpi mpi-asan

all: $(BUILD)/libfused.so lua/fused/cdef.lua lua/fused/cuda_cdef.lua $(if $(and $(NVCC),$(CU_SOURCES)),cuda) \
  emu mpi

# The objects of a build whose objects go under $(1): the kernels' under $(1)/<capability>/.
objects = $(C_SOURCES:%.c=$(1)/%.o) \
  $(foreach cap,$(CPU_CAPABILITIES),$(KERNEL_SOURCES:%.c=$(1)/$(cap)/%.o))
OBJECTS = $(call objects,$(BUILD)/obj)
ASAN_OBJECTS = $(call objects,$(BUILD)/asan/obj)
VALGRIND_OBJECTS = $(call objects,$(BUILD)/valgrind/obj)

# One rule per capability and build (plain, asan, valgrind: their extra flags).
define KERNEL_RULE
$(BUILD)/$(2)/$(1)/%.o: %.c $$(C_HEADERS)
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS) $$(FUSED_CFLAGS) $(3) $$(CAPABILITY_FLAGS_$(1)) -DFUSED_CPU_CAPABILITY=$(1) \
	  -c $$< -o $$@
endef
$(foreach cap,$(CPU_CAPABILITIES),$(eval $(call KERNEL_RULE,$(cap),obj,)) \
  $(eval $(call KERNEL_RULE,$(cap),asan/obj,$$(SANITIZE))) \
  $(eval $(call KERNEL_RULE,$(cap),valgrind/obj,-g)))

$(BUILD)/libfused.so: $(OBJECTS)
	$(CC) $(OBJECTS) -o $@ $(LDFLAGS) $(FUSED_LDFLAGS) $(LIBS)

$(BUILD)/obj/%.o: %.c $(C_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(FUSED_CFLAGS) -c $< -o $@

$(BUILD)/valgrind/libfused.so: $(VALGRIND_OBJECTS)
	$(CC) $(VALGRIND_OBJECTS) -o $@ $(LDFLAGS) $(FUSED_LDFLAGS) $(LIBS)

$(BUILD)/valgrind/obj/%.o: %.c $(C_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(FUSED_CFLAGS) -g -c $< -o $@

$(BUILD)/asan/libfused.so: $(ASAN_OBJECTS)
	$(CC) $(ASAN_OBJECTS) -o $@ $(LDFLAGS) $(FUSED_LDFLAGS) $(SANITIZE) $(LIBS)

$(BUILD)/asan/obj/%.o: %.c $(C_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(FUSED_CFLAGS) $(SANITIZE) -c $< -o $@

# The generator must not let an FMA change a rounding (see c/ops/random.c).
$(BUILD)/obj/c/ops/random.o $(BUILD)/asan/obj/c/ops/random.o $(BUILD)/valgrind/obj/c/ops/random.o: \
  FUSED_CFLAGS += -ffp-contract=off

cuda: $(BUILD)/libfused_cuda.so $(if $(NCCL_HEADER),$(BUILD)/libfused_nccl.so)

# One object per .cu file, so that `make -j` compiles them side by side.
CU_OBJECTS = $(CU_SOURCES:%.cu=$(BUILD)/obj/%.o)

# -z nodelete, as every library fused loads (../shared/TOOLCHAIN.md; spec/libraries_spec.lua):
# busted collects each spec file's handles while the device table points into the library.
# Linked again when this file changes, so that a build from before a flag gets it.
$(BUILD)/libfused_cuda.so: $(CU_OBJECTS) $(BUILD)/libfused.so Makefile
	$(NVCC) $(NVCCFLAGS) -shared $(CU_OBJECTS) -o $@ \
	  -L$(BUILD) -lfused -lcublas -lcusparse -Xlinker -rpath,'$$ORIGIN' -Xlinker -z,nodelete

$(BUILD)/obj/%.o: %.cu $(CU_HEADERS) $(C_HEADERS)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -c $< -o $@

# The CUDA emulator (cuda/emu/, docs/cuda.md): the same cuda/*.cu, built by the host C++
# compiler against the emulator's CUDA runtime, cuBLAS and cuSPARSE, into
# libfused_cuda_emu.so, which fused loads as the cuda device where no GPU answers and
# FUSED_CUDA_EMULATOR=1 is set (make test sets it). Built everywhere: it needs no nvcc.
EMU_SOURCES = $(wildcard cuda/emu/*.cpp)
EMU_HEADERS = $(wildcard cuda/emu/*.h)
EMU_PUBLIC_HEADERS = cuda/emu/cuda_runtime.h cuda/emu/cublas_v2.h cuda/emu/cusparse.h
EMU_FLAGS = -std=c++17 -fPIC -fopenmp -Werror=switch -Wall -Wextra -Wno-unused-parameter -Icuda/emu
emu_objects = $(CU_SOURCES:%.cu=$(1)/%.o) $(EMU_SOURCES:%.cpp=$(1)/%.o)
EMU_OBJECTS = $(call emu_objects,$(BUILD)/emu)
ASAN_EMU_OBJECTS = $(call emu_objects,$(BUILD)/asan/emu)
EMU_LINK = -shared -fopenmp -Wl,-z,nodelete -Wl,-soname,libfused_cuda_emu.so -lfused $(LIBS) \
  -Wl,-rpath,'$$ORIGIN'

# Its NCCL over MPI (cuda/emu/dist/), wherever Open MPI is.
emu: $(BUILD)/libfused_cuda_emu.so $(DIST_CDEFS)
	@if $(HAVE_MPI); then $(MAKE) --no-print-directory $(BUILD)/libfused_nccl_emu.so; fi

$(BUILD)/libfused_nccl_emu.so: cuda/dist/nccl.cu cuda/emu/dist/nccl.cpp cuda/emu/dist/nccl.h \
  cuda/dist/fused_nccl.h c/dist/check.h $(CU_HEADERS) $(C_HEADERS) $(EMU_HEADERS) \
  $(BUILD)/libfused_cuda_emu.so
	$(CXX) $(CFLAGS) $(EMU_FLAGS) -DOMPI_SKIP_MPICXX -Icuda/emu/dist -shared -Wl,-z,nodelete \
	  -x c++ cuda/dist/nccl.cu cuda/emu/dist/nccl.cpp -o $@ $(MPI_FLAGS) -L$(BUILD) \
	  -lfused_cuda_emu -lfused -Wl,-rpath,'$$ORIGIN' $(LDFLAGS)

$(BUILD)/libfused_cuda_emu.so: $(EMU_OBJECTS) $(BUILD)/libfused.so
	$(CXX) $(EMU_OBJECTS) -o $@ $(LDFLAGS) -L$(BUILD) $(EMU_LINK)

$(BUILD)/asan/libfused_cuda_emu.so: $(ASAN_EMU_OBJECTS) $(BUILD)/asan/libfused.so
	$(CXX) $(ASAN_EMU_OBJECTS) -o $@ $(LDFLAGS) $(SANITIZE) -L$(BUILD)/asan $(EMU_LINK)

# One pair of object rules per build (plain, asan: its extra flags), as KERNEL_RULE does.
define EMU_RULE
$(BUILD)/$(1)/%.o: %.cu $$(CU_HEADERS) $$(C_HEADERS) $$(EMU_HEADERS)
	@mkdir -p $$(@D)
	$$(CXX) $$(CFLAGS) $$(EMU_FLAGS) $(2) -x c++ -c $$< -o $$@

$(BUILD)/$(1)/%.o: %.cpp $$(EMU_HEADERS)
	@mkdir -p $$(@D)
	$$(CXX) $$(CFLAGS) $$(EMU_FLAGS) $(2) -c $$< -o $$@
endef
$(eval $(call EMU_RULE,emu,))
$(eval $(call EMU_RULE,asan/emu,$$(SANITIZE)))

# Distributed training (docs/distributed.md): libfused_mpi.so wherever Open MPI is, and
# libfused_nccl.so wherever nvcc and nccl.h are; libfused itself links neither. MPI's flags are
# read when a recipe runs, since `make test` installs Open MPI after this file is parsed.
HAVE_MPI = pkg-config --exists ompi-c
MPI_FLAGS = $$(pkg-config --cflags --libs ompi-c)
MPI_SOURCES = c/dist/mpi.c c/dist/fused_mpi.h c/dist/check.h
DIST_CDEFS = lua/fused/distributed/mpi_cdef.lua lua/fused/distributed/nccl_cdef.lua

mpi: $(BUILD)/libfused.so $(DIST_CDEFS)
	@if $(HAVE_MPI); then $(MAKE) --no-print-directory $(BUILD)/libfused_mpi.so; \
	else echo "Open MPI not found (pkg-config ompi-c): $(BUILD)/libfused_mpi.so not built"; fi

mpi-asan: $(BUILD)/asan/libfused.so $(DIST_CDEFS)
	@if $(HAVE_MPI); then $(MAKE) --no-print-directory $(BUILD)/asan/libfused_mpi.so; fi

$(BUILD)/libfused_mpi.so: $(MPI_SOURCES) $(C_HEADERS) $(BUILD)/libfused.so
	$(CC) $(CFLAGS) $(FUSED_CFLAGS) -shared -Wl,-z,nodelete -Wl,-soname,libfused_mpi.so $< -o $@ \
	  $(MPI_FLAGS) -L$(BUILD) -lfused -Wl,-rpath,'$$ORIGIN' $(LDFLAGS)

$(BUILD)/asan/libfused_mpi.so: $(MPI_SOURCES) $(C_HEADERS) $(BUILD)/asan/libfused.so
	$(CC) $(CFLAGS) $(FUSED_CFLAGS) $(SANITIZE) -shared -Wl,-z,nodelete -Wl,-soname,libfused_mpi.so \
	  $< -o $@ $(MPI_FLAGS) -L$(BUILD)/asan -lfused -Wl,-rpath,'$$ORIGIN' $(LDFLAGS)

$(BUILD)/libfused_nccl.so: cuda/dist/nccl.cu cuda/dist/fused_nccl.h c/dist/check.h $(CU_HEADERS) $(C_HEADERS) \
  $(BUILD)/libfused_cuda.so Makefile
	$(NVCC) $(NVCCFLAGS) -shared $< -o $@ -L$(BUILD) -lfused_cuda -lfused -lnccl \
	  -Xlinker -rpath,'$$ORIGIN' -Xlinker -z,nodelete

lua/fused/distributed/mpi_cdef.lua: c/dist/fused_mpi.h scripts/gen-cdef.sh
	scripts/gen-cdef.sh $< > $@

lua/fused/distributed/nccl_cdef.lua: cuda/dist/fused_nccl.h scripts/gen-cdef.sh
	scripts/gen-cdef.sh $< > $@

# The FFI declarations are the header's, copied between its ffi markers.
lua/fused/cdef.lua: c/fused.h scripts/gen-cdef.sh
	scripts/gen-cdef.sh $< > $@

lua/fused/cuda_cdef.lua: cuda/fused_cuda.h scripts/gen-cdef.sh
	scripts/gen-cdef.sh $< > $@

check-cdef:
	scripts/gen-cdef.sh c/fused.h | diff -u lua/fused/cdef.lua - \
	  || { echo "lua/fused/cdef.lua is stale: run make"; exit 1; }
	scripts/gen-cdef.sh cuda/fused_cuda.h | diff -u lua/fused/cuda_cdef.lua - \
	  || { echo "lua/fused/cuda_cdef.lua is stale: run make"; exit 1; }
	scripts/gen-cdef.sh c/dist/fused_mpi.h | diff -u lua/fused/distributed/mpi_cdef.lua - \
	  || { echo "lua/fused/distributed/mpi_cdef.lua is stale: run make"; exit 1; }
	scripts/gen-cdef.sh cuda/dist/fused_nccl.h | diff -u lua/fused/distributed/nccl_cdef.lua - \
	  || { echo "lua/fused/distributed/nccl_cdef.lua is stale: run make"; exit 1; }

deps:
	@scripts/install-deps.sh

# The specs' products run on OpenBLAS unless FUSED_GEMM names another provider (openblas,
# onednn, packed or auto: c/cpu/gemm_choice.c): a run then measures nothing, writes no wisdom
# file into the home folder, and gives the same numbers on every run; .ci/run runs the golden
# specs under onednn, packed and auto too.
FUSED_GEMM ?= openblas
TEST_ENV = $(LUA_ENV) FUSED_GEMM=$(FUSED_GEMM)

# The CUDA specs run on the GPU where one answers, else on the emulator.
test: deps all
	$(TEST_ENV) FUSED_CUDA_EMULATOR=1 $(LUAJIT) $(BUSTED) $(SPECS)

# The C core and the CUDA emulator under AddressSanitizer and UBSan; nvcc's CUDA library stays
# out (AddressSanitizer reports false errors inside libcublas), so the CUDA specs run on the
# emulator.
ASAN_ENV = $(TEST_ENV) FUSED_LIB=$(BUILD)/asan/libfused.so \
  FUSED_CUDA_LIB=$(BUILD)/asan/libfused_cuda_emu.so FUSED_CUDA_EMULATOR=1 \
  FUSED_MPI_LIB=$(BUILD)/asan/libfused_mpi.so \
  ASAN_OPTIONS=detect_leaks=0 \
  LD_PRELOAD="$$($(CC) -print-file-name=libasan.so) $$($(CC) -print-file-name=libgomp.so.1)"

test-asan: deps $(BUILD)/asan/libfused.so $(BUILD)/asan/libfused_cuda_emu.so lua/fused/cdef.lua mpi-asan
	$(ASAN_ENV) $(LUAJIT) $(BUSTED) $(SPECS) spec/asan/cuda_emu_bounds.lua

# Mutation fuzzing of the npy, safetensors and .t7 readers (scripts/fuzz.lua), N inputs from seed
# FUZZ_SEED, against the ASan build. FUZZ_SAVE=DIR keeps the first input of each error class
# there, to choose from for spec/fuzz/corpus (replayed by make test).
N ?= 1000000
FUZZ_SEED ?= 1
fuzz: deps $(BUILD)/asan/libfused.so lua/fused/cdef.lua
	$(ASAN_ENV) FUSED_NO_CUDA=1 $(LUAJIT) scripts/fuzz.lua $(N) $(FUZZ_SEED) $(FUZZ_SAVE)

# (The emulator is built for the specs whose child processes run CUDA code outside valgrind.)
test-valgrind: deps $(BUILD)/valgrind/libfused.so $(BUILD)/libfused_cuda_emu.so lua/fused/cdef.lua
	$(TEST_ENV) FUSED_LIB=$(BUILD)/valgrind/libfused.so FUSED_NO_CUDA=1 \
	  LD_PRELOAD="$$($(CC) -print-file-name=libgomp.so.1)" \
	  valgrind -q --error-exitcode=1 --leak-check=full --show-leak-kinds=definite \
	  --errors-for-leak-kinds=definite \
	  $(LUAJIT) $(BUSTED) $(SPECS)

install: $(BUILD)/libfused.so lua/fused/cdef.lua
	mkdir -p $(DESTDIR)$(LIBDIR) $(DESTDIR)$(LUADIR)
	cp $(BUILD)/libfused.so $(DESTDIR)$(LIBDIR)/
	for lib in libfused_cuda libfused_cuda_emu libfused_mpi libfused_nccl libfused_nccl_emu; do \
	  if [ -f $(BUILD)/$$lib.so ]; then cp $(BUILD)/$$lib.so $(DESTDIR)$(LIBDIR)/; fi; done
	cp -r lua/fused $(DESTDIR)$(LUADIR)/
	mkdir -p $(DESTDIR)$(BINDIR) && cp bin/fused $(DESTDIR)$(BINDIR)/
	# The extension headers (docs/extending.md), and where fused.ext finds them.
	mkdir -p $(DESTDIR)$(INCLUDEDIR)/cpu $(DESTDIR)$(INCLUDEDIR)/maths
	cp c/fused.h c/fused_ext.h c/fused_simd.h c/fused_launch.h c/fused_cell_cuda.h $(DESTDIR)$(INCLUDEDIR)/
	cp c/cpu/simd.h c/cpu/simd_math.h $(DESTDIR)$(INCLUDEDIR)/cpu/
	cp c/maths/hd.h c/maths/activations.h c/maths/lltm.h c/maths/cells.h c/maths/cell_layout.h \
	  $(DESTDIR)$(INCLUDEDIR)/maths/
	mkdir -p $(DESTDIR)$(INCLUDEDIR)/emu && cp $(EMU_PUBLIC_HEADERS) $(DESTDIR)$(INCLUDEDIR)/emu/
	echo "return '$(INCLUDEDIR)'" > $(DESTDIR)$(LUADIR)/fused/ext/include_dir.lua

uninstall:
	rm -rf $(DESTDIR)$(LIBDIR)/libfused.so $(DESTDIR)$(LIBDIR)/libfused_cuda.so \
	  $(DESTDIR)$(LIBDIR)/libfused_mpi.so $(DESTDIR)$(LIBDIR)/libfused_nccl.so $(DESTDIR)$(LUADIR)/fused \
	  $(DESTDIR)$(BINDIR)/fused $(DESTDIR)$(INCLUDEDIR)

# luarocks make into a scratch tree, then require 'fused' from elsewhere.
rock-check: all
	scripts/rock-check.sh

bench-ffi: deps all
	$(LUA_ENV) $(LUAJIT) bench/ffi_call.lua

bench: deps all
	$(LUA_ENV) $(LUAJIT) bench/lltm_cell.lua
	$(LUA_ENV) $(LUAJIT) bench/lltm_cell_cuda.lua

bench-seq: deps all
	$(LUA_ENV) $(LUAJIT) bench/sequence.lua

# compute = 'bfloat16' against float32, one thread pinned to CPU 0, alternating (docs/cells.md).
.PHONY: bench-bf16
bench-bf16: deps all
	$(LUA_ENV) taskset -c 0 $(LUAJIT) bench/bf16.lua

# heads = NH against the dense recurrent matrix, one thread pinned to CPU 0, alternating
# (docs/cells.md, Heads).
.PHONY: bench-heads
bench-heads: deps all
	$(LUA_ENV) taskset -c 0 $(LUAJIT) bench/heads.lua

# fused's sLSTM against xLSTM's vanilla loop in PyTorch, eager and compiled (bench/slstm.lua)
.PHONY: bench-slstm
bench-slstm: deps all
	$(LUA_ENV) taskset -c 0 $(LUAJIT) bench/slstm.lua

# Training steps of nn.LSTM and nn.GRU against PyTorch's (FUSED_TORCH_PYTHON names a python
# with torch 2.x), alternating, one thread pinned and all threads (docs/performance.md).
.PHONY: bench-scan
bench-scan: deps all
	$(LUA_ENV) $(LUAJIT) bench/scan.lua

.PHONY: bench-torch
bench-torch: deps all
	$(LUA_ENV) $(LUAJIT) bench/torch.lua

# fused.ext: compile, cached load and rebuild times; the LLTM as a user cell against ours.
.PHONY: bench-ext
bench-ext: deps all
	$(LUA_ENV) $(LUAJIT) bench/extension.lua

# Linear cells: a minGRU layer against minGRU-pytorch (eager, torch.compile), the SRU as a
# linear cell against the dense engine's (docs/extending.md).
.PHONY: bench-linear
bench-linear: deps all
	$(LUA_ENV) taskset -c 0 $(LUAJIT) bench/linear_cells.lua

# Cells from fused.cell.define against the built-in LSTM, GRU and LLTM.
.PHONY: bench-cell
bench-cell: deps all
	$(LUA_ENV) $(LUAJIT) bench/cell_define.lua

# GraphConv, sparse against dense, against PyTorch where it is installed (docs/graph.md).
.PHONY: bench-gc
bench-gc: deps all
	$(LUA_ENV) $(LUAJIT) bench/graph_conv.lua

# Steps/s of data-parallel training on 1 and 2 processes, and how much of the allreduce
# backward hides (docs/distributed.md).
bench-dist: deps all
	$(LUA_ENV) $(LUAJIT) bench/distributed.lua
	$(LUA_ENV) OMPI_MCA_plm_rsh_agent= mpirun --allow-run-as-root --oversubscribe --mca btl self,vader \
	  -np 2 $(LUAJIT) bench/distributed.lua

# This checkout against BASE (a revision), alternating in one run: make bench-compare BASE=main
# (THREADS=2 times two threads, DTYPE=float64 double).
bench-compare: deps all
	scripts/bench-compare.sh $(BASE) $(ROUNDS)

# 10,000 training steps with resident memory sampled (minutes; not part of `make test`).
soak: deps all
	$(LUA_ENV) $(LUAJIT) scripts/soak.lua

demo: deps all
	$(LUA_ENV) $(LUAJIT) examples/train.lua

clean:
	rm -rf $(BUILD)
