# mk/mujoco.mk - MuJoCo side-by-side benchmarks (bench/mujoco/fourbar.c, balls_box.c).
# Included by the top Makefile.  Not part of `make` or `make test`: built only by
# `make bench-mujoco` (or `make build/bench/mujoco_fourbar`), and by bench/run.sh
# when the Debian package libmujoco-dev is installed (apt-get install libmujoco-dev).

.PHONY: bench-mujoco

$(B)/bench/mujoco_fourbar: bench/mujoco/fourbar.c mk/mujoco.mk
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(OPT) -o $@ $< -lmujoco -ljansson -lm

bench-mujoco: $(B)/bench/mujoco_fourbar
	@$(B)/bench/mujoco_fourbar

# the rigid-contact scene of an example (bench/mujoco/balls_box.c; issue 14),
# run beside build/mbs by bench/contact_mujoco.sh
$(B)/bench/mujoco_balls_box: bench/mujoco/balls_box.c bench/mujoco/mjutil.h mk/mujoco.mk
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(OPT) -o $@ $< -lmujoco -ljansson -lm

# the spatial open chain of issue 12's speed criterion (bench/mujoco/chain.c),
# run beside build/mbs by bench/relative_chain.py
$(B)/bench/mujoco_chain: bench/mujoco/chain.c bench/mujoco/mjutil.h mk/mujoco.mk
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(OPT) -o $@ $< -lmujoco -lm
