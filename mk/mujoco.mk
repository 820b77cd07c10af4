# mk/mujoco.mk - MuJoCo side-by-side benchmark (bench/mujoco/fourbar.c).
# Included by the top Makefile.  Not part of `make` or `make test`: built only by
# `make bench-mujoco` (or `make build/bench/mujoco_fourbar`), and by bench/run.sh
# when the Debian package libmujoco-dev is installed (apt-get install libmujoco-dev).

.PHONY: bench-mujoco

$(B)/bench/mujoco_fourbar: bench/mujoco/fourbar.c mk/mujoco.mk
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(OPT) -o $@ $< -lmujoco -ljansson -lm

bench-mujoco: $(B)/bench/mujoco_fourbar
	@$(B)/bench/mujoco_fourbar
