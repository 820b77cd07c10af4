# mk/work_precision.mk - the work-precision diagram of `make bench`
# (bench/work_precision.c, which includes tests/unit/tolerance_test.c for the
# mechanism table and references; bench/work_precision_plot.py draws the SVG).
# Included by the top Makefile (uses its CC, CFLAGS, B, LDLIBS_COMMON).

BENCH_EXTRA += $(B)/bench/work_precision

$(B)/bench/work_precision: bench/work_precision.c tests/unit/tolerance_test.c tests/unit/testutil.h $(B)/libcommon.a $(B)/libmbs.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(filter %.a,$^) $(LDLIBS_COMMON)
