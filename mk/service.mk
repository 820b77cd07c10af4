# mk/service.mk - the sweep service: build/gateway, build/worker, make up/down.
# Included by the top Makefile (uses its CC, CFLAGS, B, S, SAN_FLAGS,
# LDLIBS_COMMON).  Code shared by both programs lives in common/svc and is
# archived as build/libsvc.a; the SQL migrations are embedded in the gateway.

SVC_SRC  := $(wildcard common/svc/*.c)
GW_SRC   := $(wildcard gateway/*.c)
WK_SRC   := $(wildcard worker/*.c)
SQL_SRC  := $(sort $(wildcard sql/[0-9][0-9][0-9]_*.sql))
PQ_INC   := $(shell pkg-config --cflags libpq 2>/dev/null || echo -I/usr/include/postgresql)
LDLIBS_SVC := -lmicrohttpd -lzmq -lpq -lpthread $(LDLIBS_COMMON)

.PHONY: service up down keys

service: $(B)/gateway $(B)/worker

# built by `make test` before the suites start (they run in parallel)
BENCH_EXTRA += $(B)/gateway $(B)/worker
TEST_EXTRA += $(B)/gateway $(B)/worker $(S)/gateway $(S)/worker $(B)/tests/svc_test $(B)/tests/zmq_peer

# libpq's header lives outside the default include path on Debian.
$(B)/obj/common/svc/%.o $(B)/obj/gateway/%.o $(B)/obj/worker/%.o $(B)/obj/tests/integration/%.o: CFLAGS += $(PQ_INC) -pthread
$(S)/obj/common/svc/%.o $(S)/obj/gateway/%.o $(S)/obj/worker/%.o: SAN_FLAGS += $(PQ_INC) -pthread

# sql/NNN_name.sql -> a C table of {version, name, text} (db.h).
$(B)/gen/migrations.c: $(SQL_SRC) mk/service.mk
	@mkdir -p $(dir $@)
	@{ echo '/* generated from sql/NNN_name.sql by mk/service.mk - do not edit */'; \
	   echo '#include "svc/db.h"'; echo 'const db_migration db_migrations[] = {'; \
	   for f in $(SQL_SRC); do b=$$(basename $$f); v=$$(echo $$b | sed 's/^0*\([0-9]\)/\1/; s/_.*//'); \
	     echo "{ $$v, \"$$b\","; sed 's/\\/\\\\/g; s/"/\\"/g; s/^/"/; s/$$/\\n"/' $$f; echo '},'; done; \
	   echo '};'; echo 'const int db_nmigrations = sizeof db_migrations / sizeof db_migrations[0];'; } > $@

$(B)/gen/migrations.o: $(B)/gen/migrations.c
	$(CC) $(CFLAGS) $(PQ_INC) -c $< -o $@

$(B)/libsvc.a: $(call objs,$(B),$(SVC_SRC))
	@rm -f $@; ar rcs $@ $^

$(B)/gateway: $(call objs,$(B),$(GW_SRC)) $(B)/gen/migrations.o $(B)/libsvc.a $(B)/libcommon.a $(B)/libmbs.a
	$(CC) $(CFLAGS) -pthread -o $@ $^ $(LDLIBS_SVC) -lz

$(B)/worker: $(call objs,$(B),$(WK_SRC)) $(B)/libsvc.a $(B)/libcommon.a $(B)/libmbs.a
	$(CC) $(CFLAGS) -pthread -o $@ $^ $(LDLIBS_SVC)

# Sanitizer builds of the service (ASan + UBSan), for the suite's smoke run.
$(S)/gen/migrations.o: $(B)/gen/migrations.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(SAN_FLAGS) -Icommon $(PQ_INC) -c $< -o $@
$(S)/libsvc.a: $(call objs,$(S),$(SVC_SRC))
	@rm -f $@; ar rcs $@ $^
$(S)/gateway: $(call objs,$(S),$(GW_SRC)) $(S)/gen/migrations.o $(S)/libsvc.a $(S)/libcommon.a $(S)/libmbs.a
	$(CC) $(SAN_FLAGS) -pthread -o $@ $^ $(LDLIBS_SVC) -lz
$(S)/worker: $(call objs,$(S),$(WK_SRC)) $(S)/libsvc.a $(S)/libcommon.a $(S)/libmbs.a
	$(CC) $(SAN_FLAGS) -pthread -o $@ $^ $(LDLIBS_SVC)

# Unit tests of common/svc (design expansion, Sobol', messages, reductions;
# the metrics' names beside the CLI's, hence libmbs).
$(B)/tests/svc_test: $(B)/obj/tests/integration/svc_test.o $(B)/libsvc.a $(B)/libcommon.a $(B)/libmbs.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -pthread -o $@ $^ $(LDLIBS_SVC)

# A hostile worker for tests/integration/test_zmq_security.sh.
$(B)/tests/zmq_peer: $(B)/obj/tests/integration/zmq_peer.o $(B)/libsvc.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ -ljansson -lzmq -lm

# CurveZMQ keys of `make up` (run/keys: server.key, server.pub, worker.key,
# workers.allow); existing files are kept.  KEYS=DIR for another place.
keys: $(B)/gateway
	@mkdir -p $${KEYS:-run/keys}
	@$(B)/gateway --curve-keygen-dir $${KEYS:-run/keys}

up:
	@bash scripts/up.sh

down:
	@bash scripts/down.sh

# docker-compose.yml run for real under podman, 2 gateways and 3 workers
# (scripts/compose_check.sh; minutes, root; not part of `make test`)
.PHONY: compose-check
compose-check:
	@bash scripts/deps.sh --compose
	@bash scripts/compose_check.sh
