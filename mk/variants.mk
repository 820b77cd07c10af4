# mk/variants.mk - a second build of the solver tests for tests/suite_variants.sh
# (issue 9 item 3): the same sources compiled with -O3 -march=native
# -ffp-contract=fast (fused multiply-adds, other rounding than build/) into
# $(B)/o3.  Included by the top Makefile (uses its CC, CSTD, WARN, B,
# LDLIBS_COMMON).  `make variants` builds it; `make test` builds it before the
# suites start (TEST_EXTRA).  The BLAS variants need no build of their own:
# the suite runs the same binaries with LD_LIBRARY_PATH.

O3 := $(B)/o3
O3_FLAGS := -O3 -march=native -ffp-contract=fast -g
VARIANT_TESTS := reference_test robustness_test

.PHONY: variants

$(O3)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(O3_FLAGS) -Icommon -MMD -MP -c $< -o $@

$(O3)/libmbs.a: $(call objs,$(O3),$(MBS_SRC))
	@rm -f $@; ar rcs $@ $^
$(O3)/libcommon.a: $(call objs,$(O3),$(COMMON_SRC))
	@rm -f $@; ar rcs $@ $^
$(O3)/tests/%: $(O3)/obj/tests/unit/%.o $(O3)/libcommon.a $(O3)/libmbs.a
	@mkdir -p $(dir $@)
	$(CC) $(O3_FLAGS) -o $@ $^ $(LDLIBS_COMMON)

variants: $(addprefix $(O3)/tests/,$(VARIANT_TESTS)) $(B)/tests/robustness_test

TEST_EXTRA += $(addprefix $(O3)/tests/,$(VARIANT_TESTS))
