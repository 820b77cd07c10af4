# mk/ida.mk - SUNDIALS IDA side by side with our BDF (bench/ida_compare.c,
# issue 9 item 6).  Included by the top Makefile.  Not part of `make` or
# `make test`: built by `make bench` (BENCH_EXTRA) when the Debian package
# libsundials-dev is installed (`bash scripts/deps.sh --bench` installs it),
# or explicitly with `make build/bench/ida_compare`.

LDLIBS_IDA := -lsundials_ida -lsundials_nvecserial -lsundials_sunlinsoldense -lsundials_sunlinsolband \
              -lsundials_sunmatrixdense -lsundials_sunmatrixband

ifneq ($(wildcard /usr/include/ida/ida.h),)
BENCH_EXTRA += $(B)/bench/ida_compare
endif

$(B)/bench/ida_compare: bench/ida_compare.c $(B)/libcommon.a $(B)/libmbs.a mk/ida.mk
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $(filter %.c %.a,$^) $(LDLIBS_IDA) $(LDLIBS_COMMON)
