# mbsweep - top-level build.
#
#   make            build build/mbs (and the service programs when present)
#   make test       install what is missing, build, run every test suite
#   make bench      run the benchmarks (figures go to bench/README.md by hand)
#   make fuzz       longer libFuzzer runs of the mechanism parser, the solver and the sweep designs
#   make check-layers  no include under common/ goes up a layer (common/mbs/README.md)
#   make up / down  local service (see README)
#
# Two builds share the sources: build/ (optimised, -O2) and build/san/
# (AddressSanitizer + UndefinedBehaviorSanitizer) for the test suite.

CC      ?= cc
CSTD    := -std=c11 -D_GNU_SOURCE
WARN    := -Wall -Wextra -Wshadow -Wno-unused-parameter
OPT     ?= -O2 -g
CFLAGS  += $(CSTD) $(WARN) $(OPT) -Icommon -MMD -MP
LDLIBS_MBS := -lklu -lspqr -lcholmod -llapacke -llapack -lblas -lm
LDLIBS_COMMON := -ljansson $(LDLIBS_MBS)

SAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

B := build

# the solver: one folder per layer (common/mbs/README.md), the parser in common/mechanism
MBS_SRC    := $(wildcard common/mbs/*/*.c common/mbs/*/*/*.c)
COMMON_SRC := $(wildcard common/mechanism/*.c)
CLI_SRC    := $(wildcard cli/*.c)
TEST_SRC   := $(wildcard tests/unit/*_test.c)

define objs
$(patsubst %.c,$(1)/obj/%.o,$(2))
endef

.SECONDARY:
.PHONY: all test test-unit test-cli test-san bench fuzz up down clean deps check-layers
all: $(B)/mbs

deps:
	@bash scripts/deps.sh

# ---- optimised build -------------------------------------------------------------
$(B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(B)/libmbs.a: $(call objs,$(B),$(MBS_SRC))
	@rm -f $@; ar rcs $@ $^

$(B)/libcommon.a: $(call objs,$(B),$(COMMON_SRC))
	@rm -f $@; ar rcs $@ $^

$(B)/mbs: $(call objs,$(B),$(CLI_SRC)) $(B)/libcommon.a $(B)/libmbs.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS_COMMON)

$(B)/tests/%: $(B)/obj/tests/unit/%.o $(B)/libcommon.a $(B)/libmbs.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS_COMMON)

# ---- sanitizer build ---------------------------------------------------------------
S := $(B)/san
$(S)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(SAN_FLAGS) -Icommon -MMD -MP -c $< -o $@

$(S)/libmbs.a: $(call objs,$(S),$(MBS_SRC))
	@rm -f $@; ar rcs $@ $^
$(S)/libcommon.a: $(call objs,$(S),$(COMMON_SRC))
	@rm -f $@; ar rcs $@ $^
$(S)/mbs: $(call objs,$(S),$(CLI_SRC)) $(S)/libcommon.a $(S)/libmbs.a
	$(CC) $(SAN_FLAGS) -o $@ $^ $(LDLIBS_COMMON)
$(S)/tests/%: $(S)/obj/tests/unit/%.o $(S)/libcommon.a $(S)/libmbs.a
	@mkdir -p $(dir $@)
	$(CC) $(SAN_FLAGS) -o $@ $^ $(LDLIBS_COMMON)

UNIT_BINS     := $(patsubst tests/unit/%.c,$(B)/tests/%,$(TEST_SRC))
UNIT_SAN_BINS := $(patsubst tests/unit/%.c,$(S)/tests/%,$(TEST_SRC))

# ---- fuzzing (clang libFuzzer) -------------------------------------------------------
FUZZ_FLAGS := -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Icommon $(CSTD)
$(B)/fuzz_mechanism: tests/fuzz/fuzz_mechanism.c $(COMMON_SRC) $(MBS_SRC)
	@mkdir -p $(B)
	clang $(FUZZ_FLAGS) -o $@ $^ $(LDLIBS_COMMON)
# the parser, model build and a short run together (tests/fuzz/fuzz_solve.c),
# with mutations that keep the JSON valid (json_mutator.c)
$(B)/fuzz_solve: tests/fuzz/fuzz_solve.c tests/fuzz/json_mutator.c $(COMMON_SRC) $(MBS_SRC)
	@mkdir -p $(B)
	clang $(FUZZ_FLAGS) -o $@ $^ $(LDLIBS_COMMON)

# Service programs (gateway, worker), make up/down, the variant builds and
# the benchmark programs live in mk/*.mk so that the solver build above stays
# readable.  Included before the test and bench rules: their prerequisite
# lists (TEST_EXTRA, BENCH_EXTRA) are expanded when the rules are read.
-include mk/*.mk

# the sweep design expansion the gateway runs on every posted sweep (common/svc/design.c)
$(B)/fuzz_design: tests/fuzz/fuzz_design.c tests/fuzz/json_mutator.c common/svc/design.c common/svc/sobol.c common/svc/rng.c
	@mkdir -p $(B)
	clang $(FUZZ_FLAGS) -o $@ $^ -ljansson -lm

# ---- tests -------------------------------------------------------------------------
test: deps check-layers
	@$(MAKE) --no-print-directory -j2 all $(UNIT_BINS) $(UNIT_SAN_BINS) $(S)/mbs $(B)/fuzz_mechanism $(B)/fuzz_solve $(B)/fuzz_design $(TEST_EXTRA)
	@bash tests/run_all.sh

# no include under common/ goes up a layer (the list: common/mbs/README.md);
# suite_cli runs it again with its self-test
check-layers:
	@bash scripts/check_layers.sh

test-unit: $(UNIT_BINS)
	@for t in $(UNIT_BINS); do $$t || exit 1; done

$(B)/bench/solver_bench: bench/solver_bench.c $(B)/libcommon.a $(B)/libmbs.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $(filter %.c %.a,$^) $(LDLIBS_COMMON)

# the relative formulation's mass matrix beside its forward dynamics (bench/README.md)
$(B)/bench/relative_mass_cost: bench/relative_mass_cost.c $(B)/libcommon.a $(B)/libmbs.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $(filter %.c %.a,$^) $(LDLIBS_COMMON)

bench: all $(B)/bench/solver_bench $(BENCH_EXTRA)
	@bash bench/run.sh

fuzz: $(B)/fuzz_mechanism $(B)/fuzz_solve $(B)/fuzz_design
	@mkdir -p $(B)/fuzz-corpus $(B)/fuzz-corpus-solve $(B)/fuzz-corpus-design
	$(B)/fuzz_mechanism -max_total_time=$${FUZZ_SECONDS:-300} -max_len=65536 $(B)/fuzz-corpus examples tests/fuzz/corpus
	$(B)/fuzz_solve -max_total_time=$${FUZZ_SECONDS:-300} -max_len=65536 -timeout=10 $(B)/fuzz-corpus-solve examples tests/fuzz/corpus
	$(B)/fuzz_design -max_total_time=$${FUZZ_SECONDS:-300} -max_len=65536 -timeout=10 $(B)/fuzz-corpus-design tests/fuzz/corpus_design examples/sweeps

clean:
	rm -rf $(B)


-include $(shell find $(B) -name '*.d' 2>/dev/null)
