# mk/siconos.mk - Siconos numerics side by side with our contact solver
# (bench/siconos/fc3d_compare.c, issue 14).  Included by the top Makefile.
# Not part of `make` or `make test`: built by `make bench` (BENCH_EXTRA) when
# the Debian package libsiconos-numerics-dev is installed (`bash
# scripts/deps.sh --bench` installs it), or explicitly with
# `make build/bench/siconos_fc3d`.

ifneq ($(wildcard /usr/include/siconos/numerics/fc3d_Solvers.h),)
BENCH_EXTRA += $(B)/bench/siconos_fc3d
endif

$(B)/bench/siconos_fc3d: bench/siconos/fc3d_compare.c $(B)/libcommon.a $(B)/libmbs.a mk/siconos.mk
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -I/usr/include/siconos -I/usr/include/siconos/numerics -o $@ $(filter %.c %.a,$^) -lsiconos_numerics $(LDLIBS_COMMON)
