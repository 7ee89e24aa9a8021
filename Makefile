# feedscope - plain Makefile. `make` builds build/feedscope; see README.md.
#
#   make            build into build/
#   make test       install missing Debian packages, build, run every test
#   make demo       record the bundled example training job and print the result
#   make bench      print the recorder's own cost (figures, never asserted)
#   make scenarios  the ground-truth scenario suite (root; tests/scenarios/README.md)
#   make scenarios-all  the same suite, each scenario REPEAT times (stable verdicts?)
#   make tune-tests feedscope tune on jobs whose best setting is known (root; tests/tune/README.md)
#   make asan       ASan+UBSan build in build/asan, and run the tests with it
#   make clang-check  the whole tree compiled by clang too (make test does it)
#   make tsan       the I/O tracer and a threaded job, and run --export, under ThreadSanitizer
#   make fuzz       libFuzzer targets (clang) in build/fuzz, FUZZ_SECONDS each
#   make install PREFIX=/usr/local
#   make MPI=1      build/mpi/feedscope with OpenMPI, for `mpirun ... feedscope bench`

CC      ?= gcc
BUILD   ?= build
PREFIX  ?= /usr/local
VERSION := 0.1.0

CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow -Wvla \
           -Isrc -DFS_VERSION='"$(VERSION)"' -MMD -MP
LDLIBS  += -lsqlite3 -ldl -lm -lpthread -luring -lyaml -lncursesw -lmicrohttpd
# libhdf5 (Debian's libhdf5-dev: serial, under its own include directory) for
# bench generate's hdf5 format; only src/bench/format/gen_hdf5.c includes it
HDF5_CFLAGS := $(shell pkg-config --cflags hdf5 2>/dev/null)

# A machine without the build's Debian packages: say which, before the
# compiler fails on a missing header. Not for the targets that install them
# (`make demo`, `make test`, ... run scripts/deps.sh first, then a make of
# their own that reads this file again, with the packages there), nor for
# `make clean`. NO_DEPS_CHECK=1 skips it (another distribution).
DEPS_SETTING_GOALS := deps deps-test test demo bench asan clean fuzz
ifeq ($(filter $(DEPS_SETTING_GOALS),$(MAKECMDGOALS))$(NO_DEPS_CHECK),)
MISSING_DEPS := $(strip $(shell scripts/deps.sh missing $(if $(filter 0,$(HAVE_BPF)),core,build) 2>/dev/null))
ifneq ($(MISSING_DEPS),)
$(error missing Debian packages: $(MISSING_DEPS). Install them with `sudo make deps` (scripts/deps.sh) or `sudo apt-get install $(MISSING_DEPS)`; `make demo` and `make test` install what they need themselves)
endif
endif
LDLIBS  += $(shell pkg-config --libs hdf5 2>/dev/null || echo -lhdf5)

# make MPI=1: the same sources built with Debian's OpenMPI (mpicc, -DFS_MPI)
# into build/mpi/feedscope, for `mpirun -n K feedscope bench ...` (src/bench/emu/mpi.h).
ifeq ($(MPI),1)
override BUILD  := $(if $(filter %/mpi,$(BUILD)),$(BUILD),$(BUILD)/mpi)
override CC     := mpicc
override CFLAGS += -DFS_MPI
.DEFAULT_GOAL   := $(BUILD)/feedscope
endif

ifeq ($(SANITIZE),1)
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,undefined
endif
ifeq ($(SANITIZE),thread)
CFLAGS  += -fsanitize=thread -DFS_TRACE_ATOMIC_ONLY
LDFLAGS += -fsanitize=thread
TRACE_PROG_SAN := -fsanitize=thread
endif
# libFuzzer coverage + ASan + UBSan (clang only; `make fuzz` sets this).
ifeq ($(SANITIZE),fuzz)
CFLAGS  += -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
           -fno-sanitize-recover=all -fsanitize-recover=float-cast-overflow
LDFLAGS += -fsanitize=fuzzer,address,undefined
endif

# The job source's BPF path for thread states (src/source/bpf/, docs/schema.md
# "How states are read"): built when clang, bpftool, libbpf-dev and the
# kernel's BTF are here (scripts/deps.sh build installs the packages). The
# BPF object is clang's whatever CC is; vmlinux.h and the skeleton are
# generated into $(BUILD)/bpf, never committed. Without them jobbpf.c says
# "built without BPF" and the /proc path is used.
BPF_CLANG ?= clang
BPFTOOL   ?= $(firstword $(wildcard /usr/sbin/bpftool /usr/bin/bpftool) bpftool)
ifeq ($(origin HAVE_BPF),undefined) # HAVE_BPF=0 builds without it
HAVE_BPF  := $(shell command -v $(BPF_CLANG) >/dev/null 2>&1 && command -v $(BPFTOOL) >/dev/null 2>&1 && \
               test -f /usr/include/bpf/libbpf.h && test -r /sys/kernel/btf/vmlinux && echo 1)
endif
BPF_ARCH  := $(patsubst x86_64,x86,$(patsubst aarch64,arm64,$(shell uname -m)))
ifeq ($(HAVE_BPF),1)
BPF_DIR   := $(BUILD)/bpf
LDLIBS    += -lbpf -lelf -lz
endif

SRC      := $(shell find src -name '*.c' -not -path 'src/marker/*' -not -path 'src/trace/*' -not -name '*.bpf.c' | sort)
LIB_SRC  := $(filter-out src/main.c,$(SRC))
MARKER   := $(BUILD)/libfeedscope-marker.a $(BUILD)/libfeedscope-marker.so
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
MAIN_OBJ := $(BUILD)/obj/src/main.o

TEST_LIB_SRC := $(wildcard tests/lib/*.c)
TEST_LIB_OBJ := $(TEST_LIB_SRC:%.c=$(BUILD)/obj/%.o)
UNIT_SRC     := $(wildcard tests/unit/test_*.c)
UNIT_BIN     := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
TOOL_SRC     := $(wildcard tests/tools/*.c)
TOOL_BIN     := $(TOOL_SRC:tests/tools/%.c=$(BUILD)/tests/%)
FAKE_NVML    := $(BUILD)/tests/nvml/full/libnvidia-ml.so.1 \
                $(BUILD)/tests/nvml/minimal/libnvidia-ml.so.1

# The I/O tracer (LD_PRELOAD): only the interposed functions are exported.
TRACE_LIB    := $(BUILD)/libfeedscope-trace.so
TRACE_SRC    := $(wildcard src/trace/*.c)
TRACE_OBJ    := $(TRACE_SRC:%.c=$(BUILD)/obj/pic/%.o)
TRACE_CFLAGS := -fPIC -fvisibility=hidden
TRACE_PROG   := $(patsubst tests/trace/%.c,$(BUILD)/tests/trace/%,$(wildcard tests/trace/*.c))

.PHONY: all test unit demo bench asan tsan clang-check install clean deps deps-test scenarios scenarios-all tune-tests fuzz fuzz-targets fuzz-replay

all: $(BUILD)/feedscope $(MARKER) $(TRACE_LIB)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@
$(BUILD)/obj/src/bench/format/gen_hdf5.o: CFLAGS += $(HDF5_CFLAGS)

$(BUILD)/libfeedscope.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/feedscope: $(MAIN_OBJ) $(BUILD)/libfeedscope.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

ifeq ($(HAVE_BPF),1)
$(BPF_DIR)/vmlinux.h:
	@mkdir -p $(dir $@)
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c >$@.tmp && mv $@.tmp $@
$(BPF_DIR)/jobstates.bpf.o: src/source/bpf/jobstates.bpf.c src/source/bpf/jobstates.h $(BPF_DIR)/vmlinux.h
	$(BPF_CLANG) -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(BPF_ARCH) -Wall -Werror -I$(BPF_DIR) \
		-Isrc/source/bpf -c $< -o $@
$(BPF_DIR)/jobstates.skel.h: $(BPF_DIR)/jobstates.bpf.o
	$(BPFTOOL) gen skeleton $< name fs_jobstates >$@.tmp && mv $@.tmp $@
JOBBPF_OBJ := $(addprefix $(BUILD)/obj/src/source/,jobbpf.o jobbpfcost.o jobbpfsample.o)
$(JOBBPF_OBJ): $(BPF_DIR)/jobstates.skel.h
$(JOBBPF_OBJ): CFLAGS += -DFS_HAVE_BPF -I$(BPF_DIR)
endif

# The C marker API (include/feedscope.h) for training loops to link with.
$(BUILD)/obj/marker/marker.o: src/marker/marker.c include/feedscope.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -Iinclude -c $< -o $@
$(BUILD)/libfeedscope-marker.a: $(BUILD)/obj/marker/marker.o
	@rm -f $@
	ar rcs $@ $^
$(BUILD)/libfeedscope-marker.so: $(BUILD)/obj/marker/marker.o
	$(CC) $(LDFLAGS) -shared -Wl,-soname,libfeedscope-marker.so -o $@ $^ -lpthread

$(BUILD)/obj/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(TRACE_CFLAGS) -c $< -o $@
$(TRACE_LIB): $(TRACE_OBJ)
	$(CC) $(LDFLAGS) -shared -Wl,-soname,libfeedscope-trace.so -Wl,-z,nodelete -o $@ $^ -ldl -lpthread

# Programs the tracer tests run under it (tests/trace/*.c): the job, not the
# code under test, so no sanitizer (but TSan's, for `make tsan`).
TRACE_PROG_CFLAGS := -O2 -g -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror
$(BUILD)/tests/trace/%: tests/trace/%.c
	@mkdir -p $(dir $@)
	$(CC) $(TRACE_PROG_CFLAGS) $(TRACE_PROG_SAN) -o $@ $< -lpthread

$(BUILD)/tests/%: tests/unit/%.c $(TEST_LIB_OBJ) $(BUILD)/libfeedscope.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/lib $(LDFLAGS) -o $@ $< $(TEST_LIB_OBJ) $(BUILD)/libfeedscope.a $(LDLIBS)

$(BUILD)/tests/%: tests/tools/%.c $(TEST_LIB_OBJ) $(BUILD)/libfeedscope.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/lib $(LDFLAGS) -o $@ $< $(TEST_LIB_OBJ) $(BUILD)/libfeedscope.a $(LDLIBS)

# The tests' stand-in for NVIDIA's library: same soname, same C ABI, scripted
# values. "minimal" lacks every optional symbol.
$(BUILD)/tests/nvml/full/libnvidia-ml.so.1: tests/fake_nvml/fake_nvml.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -fPIC -shared \
		-Wl,-soname,libnvidia-ml.so.1 -o $@ $<
$(BUILD)/tests/nvml/minimal/libnvidia-ml.so.1: tests/fake_nvml/fake_nvml.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -fPIC -shared \
		-DFAKE_NVML_MINIMAL -Wl,-soname,libnvidia-ml.so.1 -o $@ $<

unit: $(BUILD)/feedscope $(MARKER) $(UNIT_BIN) $(TOOL_BIN) $(FAKE_NVML) $(TRACE_LIB) $(TRACE_PROG)

deps:
	@scripts/deps.sh build

deps-test:
	@scripts/deps.sh test

# The builds in parallel (a make of its own each, so the tests below run
# one at a time whatever -j was given: many time the job they record).
NPROC := $(shell nproc 2>/dev/null || echo 2)
test: deps-test
	$(MAKE) -j$(NPROC) unit
	$(MAKE) -j$(NPROC) clang-check
	$(MAKE) -j$(NPROC) unit BUILD=$(BUILD)/asan SANITIZE=1
	FEEDSCOPE_BUILD=$(BUILD) FEEDSCOPE_ASAN_BUILD=$(BUILD)/asan tests/run.sh
	$(MAKE) tsan
	$(MAKE) scenarios
	$(MAKE) tune-tests

# The ground-truth scenario suite (root): real bottlenecks, real PyTorch jobs,
# feedscope's verdict checked against each. When not root (or a prerequisite
# is missing) the suite is skipped (exit 77): said loudly and never counted as
# passed; under CI=true a skip fails.
scenarios: all $(FAKE_NVML)
	@FEEDSCOPE_BUILD=$(BUILD) tests/scenarios/run.sh; rc=$$?; \
	if [ $$rc -eq 77 ]; then \
		echo "make scenarios: SKIPPED, not passed: no scenario ran (reason above)" >&2; \
		[ "$${CI:-}" != true ] || { echo "make scenarios: FAIL: CI=true runs everything" >&2; exit 1; }; \
	elif [ $$rc -ne 0 ]; then exit $$rc; fi

# The whole scenario suite (what `make scenarios` runs, the core scenarios
# and their --no-hook twins with every verdict both ways, and the whole broad
# suite of jobs the verdict was not tuned on), each REPEAT times (default 1):
# are the verdicts stable? Exits 1 on any wrong verdict
# (tests/scenarios/README.md).
scenarios-all: all $(FAKE_NVML)
	@FEEDSCOPE_BUILD=$(BUILD) REPEAT=$${REPEAT:-1} tests/scenarios/run.sh --all; rc=$$?; \
	if [ $$rc -eq 77 ]; then \
		echo "make scenarios-all: SKIPPED, not passed: no scenario ran (reason above)" >&2; \
		[ "$${CI:-}" != true ] || { echo "make scenarios-all: FAIL: CI=true runs everything" >&2; exit 1; }; \
	elif [ $$rc -ne 0 ]; then exit $$rc; fi

# feedscope tune on jobs built to have a known best DataLoader setting
# (tests/tune/run.sh; TUNE_TRUTH=1 adds the job's own sweeps). A skip (77:
# not root, a prerequisite missing) is said and never counted as passed;
# under CI=true it fails.
tune-tests: all $(FAKE_NVML)
	@FEEDSCOPE_BUILD=$(BUILD) tests/tune/run.sh; rc=$$?; \
	if [ $$rc -eq 77 ]; then \
		echo "make tune-tests: SKIPPED, not passed: no tune test ran (reason above)" >&2; \
		[ "$${CI:-}" != true ] || { echo "make tune-tests: FAIL: CI=true runs everything" >&2; exit 1; }; \
	elif [ $$rc -ne 0 ]; then exit $$rc; fi

# ThreadSanitizer: the tracer and its threaded test program built with
# -fsanitize=thread in $(BUILD)/tsan, the program run under the tracer; and
# feedscope itself, recording with its exporter scraped (tests/serve/).
tsan: $(BUILD)/tests/trace_dump
	$(MAKE) BUILD=$(BUILD)/tsan SANITIZE=thread $(BUILD)/tsan/libfeedscope-trace.so \
		$(BUILD)/tsan/tests/trace/threads $(BUILD)/tsan/tests/trace/peers $(BUILD)/tsan/feedscope
	tests/trace/tsan.sh $(BUILD)/tsan $(BUILD)
	tests/serve/tsan_exporter.sh $(BUILD)/tsan

# Fuzzing (tests/fuzz/, not part of `make test`): every tests/fuzz/fuzz_*.c
# built with clang's libFuzzer, ASan and UBSan in $(BUILD)/fuzz, then each
# run for FUZZ_SECONDS from its seed corpus (tests/fuzz/run.sh).
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_BIN     := $(patsubst tests/fuzz/%.c,$(BUILD)/%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_OBJ     := $(BUILD)/obj/tests/fuzz/runfile_common.o $(BUILD)/obj/tests/lib/dump.o

fuzz:
	@scripts/deps.sh fuzz
	@command -v $(FUZZ_CC) >/dev/null || { echo "make fuzz: needs $(FUZZ_CC) (Debian: apt-get install clang)" >&2; exit 2; }
	$(MAKE) BUILD=$(BUILD)/fuzz CC=$(FUZZ_CC) SANITIZE=fuzz fuzz-targets
	tests/fuzz/run.sh $(BUILD)/fuzz $(FUZZ_SECONDS)

fuzz-targets: $(FUZZ_BIN)

# The same targets with a plain main() (tests/fuzz/standalone.c), built by
# the usual compiler: tests/integration/fuzz_seeds.sh replays the seeds.
FUZZ_REPLAY := $(patsubst tests/fuzz/fuzz_%.c,$(BUILD)/tests/fuzz_replay_%,$(wildcard tests/fuzz/fuzz_*.c))
fuzz-replay: $(FUZZ_REPLAY)
$(BUILD)/tests/fuzz_replay_%: tests/fuzz/fuzz_%.c tests/fuzz/standalone.c $(FUZZ_OBJ) $(BUILD)/libfeedscope.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/lib $(LDFLAGS) -o $@ $< tests/fuzz/standalone.c $(FUZZ_OBJ) \
		$(BUILD)/libfeedscope.a $(LDLIBS)

$(BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_OBJ) $(BUILD)/libfeedscope.a
	$(CC) $(CFLAGS) -Itests/lib $(LDFLAGS) -o $@ $< $(FUZZ_OBJ) $(BUILD)/libfeedscope.a $(LDLIBS)

# The whole tree (the program, its libraries, the tests and the fuzz
# targets' replayers) compiled by clang as well, warnings as errors, into
# $(BUILD)/clang: code only one compiler accepts fails `make test` here,
# not in `make fuzz` later. Built, not run (the tests run on gcc's build).
CLANG_CC ?= clang
clang-check:
	$(MAKE) BUILD=$(BUILD)/clang CC=$(CLANG_CC) unit fuzz-replay

asan: deps-test
	$(MAKE) unit BUILD=$(BUILD)/asan SANITIZE=1
	FEEDSCOPE_BUILD=$(BUILD)/asan tests/run.sh

# deps first, then a make of their own: this file's flags (HDF5's include
# directory, whether BPF is built) are read when make starts, so a make
# that installed the packages must read it again to see them.
demo: deps-test
	$(MAKE) all
	scripts/demo.sh $(BUILD)/feedscope $(BUILD)

bench: deps-test
	$(MAKE) all $(TOOL_BIN)
	bench/run.sh $(BUILD)/feedscope

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include \
		$(DESTDIR)$(PREFIX)/share/feedscope/python/feedscope \
		$(DESTDIR)$(PREFIX)/share/feedscope/python/feedscope_hook
	install -m 755 $(BUILD)/feedscope $(DESTDIR)$(PREFIX)/bin/feedscope
	install -m 644 $(BUILD)/libfeedscope-marker.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(BUILD)/libfeedscope-marker.so $(DESTDIR)$(PREFIX)/lib/
	install -d $(DESTDIR)$(PREFIX)/lib/feedscope
	install -m 755 $(TRACE_LIB) $(DESTDIR)$(PREFIX)/lib/feedscope/
	install -m 644 include/feedscope.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 python/feedscope/*.py $(DESTDIR)$(PREFIX)/share/feedscope/python/feedscope/
	install -m 644 python/feedscope_hook/*.py $(DESTDIR)$(PREFIX)/share/feedscope/python/feedscope_hook/

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
