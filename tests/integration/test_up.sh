#!/usr/bin/env bash
# `make up` and `make down` as a user runs them (scripts/up.sh, scripts/down.sh),
# in a temporary run directory on free ports (MBSWEEP_RUN, PORT, ZMQ_PORT,
# MBSWEEP_WORKERS=2): the token and the CurveZMQ keys (secret files 0600, the
# worker allow-listed), PostgreSQL, the gateway and the workers started with
# them, every example that `build/mbs check` accepts loaded as a model (names
# and body counts read back through the API), the demonstration sweep and the
# example sweeps submitted and run (one job's step count equal to the CLI's
# for the same parameters), the front end served at the printed address, a
# peer without a key or with an unlisted key refused while jobs wait; a second
# `make up` only prints the address; `make down` stops every process it started
# (by pid, PostgreSQL included); `make up` again keeps the keys, the token and
# the models and its workers connect with the kept keys.
source "$(dirname "$0")/lib.sh"
# on exit, pass or fail: make down's script, then lib.sh's cleanup (every
# recorded pid, this run's PostgreSQL cluster, the directory)
trap 'bash "$ROOT/scripts/down.sh" >/dev/null 2>&1; it_cleanup' EXIT
trap 'exit 1' INT TERM
IT_TMP=$(mktemp -d /tmp/mbsweep-it.XXXXXX); chmod 755 "$IT_TMP"
RUN=$IT_TMP/run
IT_PG=$RUN/pg; IT_OWN_PG=1          # it_cleanup stops this cluster whatever happens
PEER=$ROOT/build/tests/zmq_peer
[ -x "$PEER" ] || fail "build/tests/zmq_peer not built"
HTTP_PORT=$(free_port); ZMQ_PORT=$(free_port)
BASE="http://127.0.0.1:$HTTP_PORT"
ZMQ="tcp://127.0.0.1:$ZMQ_PORT"
# the environment of the service under test: its own, not the suite's keys
unset MBSWEEP_CURVE_SECRET_FILE MBSWEEP_CURVE_ALLOW MBSWEEP_SERVER_KEY MBSWEEP_CURVE_KEY_FILE
export MBSWEEP_RUN=$RUN PORT=$HTTP_PORT ZMQ_PORT MBSWEEP_WORKERS=2 PG_FAST=1

# make_up LOG / make_down LOG: the make targets; the pids they recorded join
# IT_PIDS (killed on exit should a check fail before `make down`)
make_up() {
  (cd "$ROOT" && make -s --no-print-directory up) >"$1" 2>&1 || { cat "$1" >&2; fail "make up: exit $?"; }
  local p
  for p in $(cat "$RUN/gateway.pid" "$RUN/workers.pid" 2>/dev/null); do IT_PIDS+=("$p"); done
}
make_down() { (cd "$ROOT" && make -s --no-print-directory down) >"$1" 2>&1 || { cat "$1" >&2; fail "make down: exit $?"; }; }
cmdline() { tr '\0' ' ' < "/proc/$1/cmdline"; }
pub() { sed -n 's/^public //p' "$1"; }

# ---- 1. make up: token, keys, processes with the keys ---------------------------------
t0=$SECONDS
make_up "$IT_TMP/up1.out"
up_s=$((SECONDS - t0))
TOKEN=$(cat "$RUN/token")
grep -qxF "mbsweep is up: $BASE   (the web front end; API under $BASE/api/v1/, health $BASE/healthz)" "$IT_TMP/up1.out" \
  || fail "make up does not print the front end's address: $(tail -3 "$IT_TMP/up1.out")"
grep -q "^API token: $TOKEN " "$IT_TMP/up1.out" || fail "make up does not print the token"
[ "${#TOKEN}" = 32 ] && [ "$(stat -c %a "$RUN/token")" = 600 ] || fail "token: ${#TOKEN} characters, mode $(stat -c %a "$RUN/token")"
K=$RUN/keys
for f in server.key server.pub worker.key workers.allow; do [ -s "$K/$f" ] || fail "make up made no $f"; done
[ "$(stat -c %a "$K/server.key") $(stat -c %a "$K/worker.key")" = "600 600" ] \
  || fail "secret key files readable by others: $(stat -c '%n %a' "$K"/*.key)"
grep -qF -- "$(pub "$K/worker.key")" "$K/workers.allow" || fail "the worker's key is not in workers.allow"
[ "$(pub "$K/server.key")" = "$(pub "$K/server.pub")" ] || fail "server.pub is not server.key's public key"
GW=$(cat "$RUN/gateway.pid"); WKS=($(cat "$RUN/workers.pid"))
[ ${#WKS[@]} = 2 ] || fail "MBSWEEP_WORKERS=2 started ${#WKS[@]} workers"
kill -0 "$GW" && kill -0 "${WKS[0]}" && kill -0 "${WKS[1]}" || fail "a recorded process is not running"
case "$(cmdline "$GW")" in
  *"--port $HTTP_PORT "*"--token-file $RUN/token --zmq $ZMQ --curve-secret-file $K/server.key --curve-allow $K/workers.allow"*) ;;
  *) fail "gateway not started with the run directory's keys: $(cmdline "$GW")" ;;
esac
for w in "${WKS[@]}"; do
  case "$(cmdline "$w")" in
    *"--connect $ZMQ --curve-server-key $K/server.pub --curve-key-file $K/worker.key"*) ;;
    *) fail "worker not started with the keys: $(cmdline "$w")" ;;
  esac
done
PM=$(head -1 "$RUN/pg/data/postmaster.pid" 2>/dev/null)
[ -n "$PM" ] && kill -0 "$PM" || fail "no PostgreSQL running under $RUN/pg"
health() { get /healthz | jget "$1"; }
workers_are() { [ "$(health 'd["workers"]')" = "$1" ]; }
wait_until 20 workers_are 2 || fail "workers did not connect: $(get /healthz)"
[ "$(health 'd["database"]+" "+d["zmq"]["security"]+" "+str(d["zmq"]["allowed_keys"])')" = "ok curve 1" ] \
  || fail "healthz: $(get /healthz)"
ok "make up in ${up_s} s: token and keys 0600, the worker allow-listed, PostgreSQL (pid $PM), gateway and 2 workers started with them, 2 workers connected over CurveZMQ"

# ---- 2. the examples as models, through the API ------------------------------------------
want=$(for f in "$ROOT"/examples/*.json; do "$ROOT/build/mbs" check "$f" >/dev/null 2>&1 && basename "$f" .json; done | sort)
[ -n "$want" ] || fail "build/mbs check accepts no example"
got=$(get "/api/v1/models?limit=1000" | jget '"\n".join(sorted(m["name"] for m in d["items"]))')
[ "$got" = "$want" ] || fail "models loaded differ from the examples that check: $(diff <(echo "$want") <(echo "$got") | head)"
bad=$(get "/api/v1/models?limit=1000" | python3 -c '
import json, sys
for m in json.load(sys.stdin)["items"]:
    nb = len(json.load(open(sys.argv[1] + "/" + m["name"] + ".json"))["bodies"])
    if m["check_report"]["bodies"] != nb: print(m["name"], nb, m["check_report"]["bodies"])' "$ROOT/examples")
[ -z "$bad" ] || fail "body counts differ from the example files: $bad"
nmodels=$(echo "$want" | wc -l)
[ "$(grep -c '^loaded examples/' "$IT_TMP/up1.out")" = "$nmodels" ] || fail "make up's 'loaded' lines do not match"
ok "$nmodels examples loaded as models (every one build/mbs check accepts), names and body counts read back through the API"

# ---- 3. the demonstration sweep and the example sweeps run ----------------------------------
sweeps() { get "/api/v1/sweeps?limit=100"; }
DEMO=$(sweeps | jget '[s["id"] for s in d["items"] if s["name"] == "demonstration"][0]')
[ "$(sweeps | jget '[s["model_name"] for s in d["items"] if s["name"] == "demonstration"][0]')" = bouncing_ball ] \
  || fail "the demonstration sweep is not on the bouncing ball"
nex=$(ls "$ROOT"/examples/sweeps/*.json | wc -l)
want_names=$( (echo demonstration; for f in "$ROOT"/examples/sweeps/*.json; do python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["name"])' "$f"; done) | sort)
[ "$(sweeps | jget '"\n".join(sorted(s["name"] for s in d["items"]))')" = "$want_names" ] \
  || fail "sweeps submitted: $(sweeps | jget '[s["name"] for s in d["items"]]')"
all_done() { [ "$(sweeps | jget 'sum(s["status"] != "done" for s in d["items"])')" = 0 ]; }
wait_until 240 all_done || fail "sweeps not done: $(sweeps | jget '[(s["name"], s["counts"]) for s in d["items"]]')"
[ "$(sweeps | jget 'sum(s["counts"]["failed"] for s in d["items"])')" = 0 ] || fail "failed jobs"
# the demonstration: e from 0.8 e0 to 1.2 e0 in 5 levels, contact_deactivation both ways
e0=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["parameters"]["e"])' "$ROOT/examples/bouncing_ball.json")
get "/api/v1/sweeps/$DEMO/results.csv" > "$IT_TMP/demo.csv"
python3 - "$IT_TMP/demo.csv" "$e0" <<'PY' || fail "demonstration sweep design"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1]))); e0 = float(sys.argv[2])
pairs = sorted((float(r["e"]), r["solver.contact_deactivation"]) for r in rows)
want = sorted((e0 * (0.8 + 0.1 * k), b) for k in range(5) for b in ("true", "false"))
assert len(pairs) == 10 and all(abs(a[0] - b[0]) < 1e-12 and a[1] == b[1] for a, b in zip(pairs, want)), pairs
assert all(r["status"] == "done" for r in rows)
PY
# one job against the CLI: same model, same parameters, the same step count
read -r e cd steps < <(python3 -c 'import csv,sys; r=list(csv.DictReader(open(sys.argv[1])))[-1]; print(r["e"], r["solver.contact_deactivation"], r["steps"])' "$IT_TMP/demo.csv")
"$ROOT/build/mbs" run "$ROOT/examples/bouncing_ball.json" --set "e=$e" --set "solver.contact_deactivation=$cd" \
  --out "$IT_TMP/cli.csv" --metrics "$IT_TMP/cli.json" --quiet >/dev/null || fail "build/mbs run"
cli_steps=$(jget 'd["steps"]' < "$IT_TMP/cli.json")
[ "$steps" = "$cli_steps" ] && [ "$steps" -gt 100 ] || fail "job at e=$e: $steps steps, the CLI $cli_steps"
ok "demonstration sweep (10 jobs, e = 0.8..1.2 x $e0, deactivation on/off) and $nex example sweeps done, 0 failed; the job at e=$e took $steps steps as build/mbs run does"
# the front end at the printed address
curl -s "$BASE/" > "$IT_TMP/index.html"
cmp -s "$IT_TMP/index.html" "$ROOT/build/www/index.html" || fail "GET / is not build/www/index.html"
ok "GET $BASE/ serves the built front end"

# ---- 4. a peer without a key (or with an unlisted one) is refused while jobs wait ------------
# The workers are stopped (for less than the gateway's 3 s liveness) so that
# jobs stay queued; a peer with the workers' key, at the same time, shows
# that they could be taken.
kill -STOP "${WKS[@]}"
api POST /api/v1/sweeps '{"model":"'"$(awk '$1 == "pendulum_small" { print $2 }' "$RUN/models.txt")"'","design":{"kind":"random","samples":200,"seed":3},"parameters":{"L":{"min":0.5,"max":1.5}}}'
[ "$STATUS" = 202 ] || { kill -CONT "${WKS[@]}"; fail "sweep: $STATUS $BODY"; }
SID=$(echo "$BODY" | jget 'd["id"]')
"$PEER" "$ZMQ" --id plain grab 1 >"$IT_TMP/plain.out" 2>&1 &
p1=$!; IT_PIDS+=("$p1")
"$PEER" "$ZMQ" --server-key "$K/server.pub" --fresh-key --id stranger grab 1 >"$IT_TMP/stranger.out" 2>&1 &
p2=$!; IT_PIDS+=("$p2")
"$PEER" "$ZMQ" --server-key "$K/server.pub" --key-file "$K/worker.key" --id keyed grab 1 >"$IT_TMP/keyed.out" 2>&1 &
p3=$!; IT_PIDS+=("$p3")
wait "$p1" "$p2" "$p3"
kill -CONT "${WKS[@]}"
q=$(get "/api/v1/sweeps/$SID" | jget 'd["counts"]["queued"]')
grep -qx 'jobs 0' "$IT_TMP/plain.out" || fail "peer without CurveZMQ: $(cat "$IT_TMP/plain.out")"
grep -qx 'jobs 0' "$IT_TMP/stranger.out" || fail "peer with an unlisted key: $(cat "$IT_TMP/stranger.out")"
keyed=$(sed -n 's/^jobs //p' "$IT_TMP/keyed.out")
[ "${keyed:-0}" -ge 1 ] && [ "$q" -gt 0 ] || fail "no job could be taken meanwhile (keyed peer: $(cat "$IT_TMP/keyed.out"), $q queued)"
refused=$(health 'd["zmq"]["refused_connections"]')
[ "$refused" -ge 1 ] || fail "refusals not counted: $(get /healthz)"
api POST "/api/v1/sweeps/$SID/cancel"; [ "$STATUS" = 200 ] || fail "cancel: $STATUS $BODY"
wait_until 20 workers_are 2 || fail "workers after SIGCONT: $(get /healthz)"
ok "with the workers stopped, a peer without a key and one with an unlisted key got 0 jobs while a peer with the workers' key got $keyed ($q still queued); $refused refused connection(s), 2 workers"

# ---- 5. make up again while up: only the address; make down: everything stopped -----------
make_up "$IT_TMP/up2.out"
grep -q "^mbsweep is already up: $BASE" "$IT_TMP/up2.out" || fail "second make up: $(cat "$IT_TMP/up2.out")"
[ "$(cat "$RUN/gateway.pid")" = "$GW" ] && [ "$(cat "$RUN/workers.pid" | tr '\n' ' ')" = "${WKS[*]} " ] \
  || fail "second make up started processes"
[ "$(pgrep -c -f -- "--curve-key-file $K/worker.key")" = 2 ] || fail "more than 2 workers with this run's key"
sum1=$(cat "$K"/* "$RUN/token" | md5sum)
make_down "$IT_TMP/down1.out"
gone() { for p in "$@"; do kill -0 "$p" 2>/dev/null && return 1; done; return 0; }
wait_until 10 gone "$GW" "${WKS[@]}" "$PM" || fail "still running after make down: $(ps -o pid,cmd -p "$GW,${WKS[0]},${WKS[1]},$PM" | tail -n +2)"
[ ! -e "$RUN/gateway.pid" ] && [ ! -e "$RUN/workers.pid" ] || fail "pid files left"
curl -s -o /dev/null --max-time 2 "$BASE/healthz" && fail "the HTTP port still answers"
ok "a second make up only prints the address; make down stopped the gateway, both workers and PostgreSQL"

# ---- 6. make up after make down: the same keys, token and models; workers connect ------------
make_up "$IT_TMP/up3.out"
[ "$(cat "$K"/* "$RUN/token" | md5sum)" = "$sum1" ] || fail "make up replaced the keys or the token"
grep -q '^loaded ' "$IT_TMP/up3.out" && fail "make up loaded the examples again"
[ "$(get "/api/v1/models?limit=1000" | jget 'len(d["items"])')" = "$nmodels" ] || fail "models lost over down/up"
wait_until 20 workers_are 2 || fail "workers did not connect with the kept keys: $(get /healthz)"
GW2=$(cat "$RUN/gateway.pid"); WKS2=($(cat "$RUN/workers.pid")); PM2=$(head -1 "$RUN/pg/data/postmaster.pid")
make_down "$IT_TMP/down2.out"
wait_until 10 gone "$GW2" "${WKS2[@]}" "$PM2" || fail "still running after the second make down"
ok "make up after make down kept the keys, the token and the $nmodels models, its 2 workers connected; make down stopped it again"
