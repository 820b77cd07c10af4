#!/usr/bin/env bash
# scripts/up.sh - `make up`: the whole service on this machine.
#
# Installs missing packages (scripts/deps.sh), builds, starts a private
# PostgreSQL cluster under run/pg, the gateway on 127.0.0.1:$PORT (default
# 8080, ZeroMQ on $ZMQ_PORT, default 5555) and one worker per core, loads
# examples/*.json as models (saying which fail validation) with a
# demonstration sweep, and prints the URL and the API token (run/token,
# generated once).  The worker port uses CurveZMQ keys from run/keys
# (`make keys`, generated once: server.key, server.pub, worker.key,
# workers.allow).  Running it again while up only prints the address.
#
# Environment (for tests and for a second instance; the defaults are what
# `make up` documents): PORT, ZMQ_PORT; MBSWEEP_RUN, the run directory
# (default run/; its parents must be world-executable, PostgreSQL runs as
# user postgres under root); MBSWEEP_WORKERS, the number of workers (default
# one per core); PG_FAST=1 turns PostgreSQL's fsync off (scripts/pg.sh).
# `MBSWEEP_RUN=DIR make down` stops that instance.
set -euo pipefail
cd "$(dirname "$0")/.."
PORT=${PORT:-8080}; ZMQ_PORT=${ZMQ_PORT:-5555}
RUN=${MBSWEEP_RUN:-$PWD/run}
case "$RUN" in /*) ;; *) RUN=$PWD/$RUN ;; esac
NWORKERS=${MBSWEEP_WORKERS:-$(nproc)}
case "$NWORKERS" in ''|*[!0-9]*) echo "up: MBSWEEP_WORKERS must be a number, not '$NWORKERS'" >&2; exit 2 ;; esac
URL="http://127.0.0.1:$PORT"

# the recorded process is running and is this run's (its command line names
# the run directory: a pid left by a process that died may be another's now)
alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null && grep -qsaF -- "$RUN/" "/proc/$(cat "$1")/cmdline"; }

if alive "$RUN/gateway.pid"; then
  echo "mbsweep is already up: $URL"
  echo "API token: $(cat "$RUN/token")"
  exit 0
fi

bash scripts/deps.sh
make -s build/gateway build/worker build/www/index.html
mkdir -p "$RUN"; chmod 755 "$RUN"

# database and token
CI=$(bash scripts/pg.sh start "$RUN/pg" 2>>"$RUN/pg.log" | tail -1) \
  || { echo "up: PostgreSQL did not start, see $RUN/pg.log and $RUN/pg/postgres.log" >&2; tail -5 "$RUN/pg.log" >&2; exit 1; }
if [ ! -s "$RUN/token" ]; then
  (umask 077; head -c 32 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 32 > "$RUN/token")
fi
TOKEN=$(cat "$RUN/token")
# CurveZMQ keys of the gateway and the workers (kept once made)
KEYS=$RUN/keys
build/gateway --curve-keygen-dir "$KEYS" >/dev/null

# gateway, then one worker per core
nohup build/gateway --db "$CI" --port "$PORT" --token-file "$RUN/token" \
  --zmq "tcp://127.0.0.1:$ZMQ_PORT" --curve-secret-file "$KEYS/server.key" \
  --curve-allow "$KEYS/workers.allow" >>"$RUN/gateway.log" 2>&1 &
echo $! > "$RUN/gateway.pid"
for _ in $(seq 1 100); do curl -sf -o /dev/null "$URL/healthz" && break; sleep 0.1; done
curl -sf -o /dev/null "$URL/healthz" || { echo "up: the gateway did not start, see $RUN/gateway.log" >&2; tail -5 "$RUN/gateway.log" >&2; exit 1; }
: > "$RUN/workers.pid"
for i in $(seq 1 "$NWORKERS"); do
  nohup build/worker --connect "tcp://127.0.0.1:$ZMQ_PORT" --curve-server-key "$KEYS/server.pub" \
    --curve-key-file "$KEYS/worker.key" >>"$RUN/worker-$i.log" 2>&1 &
  echo $! >> "$RUN/workers.pid"
done

# examples as models (once), and a demonstration sweep over the first one
if [ ! -f "$RUN/examples-loaded" ]; then
  first=""
  for f in examples/*.json; do
    [ -f "$f" ] || continue
    out=$(curl -s -w '\n%{http_code}' -X POST -H "Authorization: Bearer $TOKEN" \
          -H 'Content-Type: application/json' --data-binary "@$f" "$URL/api/v1/models")
    code=${out##*$'\n'}; body=${out%$'\n'*}
    if [ "$code" = 201 ] || [ "$code" = 200 ]; then
      id=$(printf '%s' "$body" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
      echo "loaded $f as model $id"
      echo "$(basename "$f" .json) $id" >> "$RUN/models.txt"
      [ -n "$first" ] || first="$id $f"
      # the demonstration sweep prefers the bouncing ball: quick jobs that
      # show the contact-deactivation comparison
      if [ "$f" = examples/bouncing_ball.json ]; then demo="$id $f"; fi
    else
      why=$(printf '%s' "$body" | python3 -c 'import json,sys
e = json.load(sys.stdin)["error"]; d = e.get("details") or [{}]
print(e["message"] + ": " + d[0].get("pointer", "") + " " + d[0].get("message", ""))' 2>/dev/null || echo "HTTP $code")
      echo "skipped $f ($why)"
    fi
  done
  if [ -n "${demo:-}" ]; then first=$demo; fi
  if [ -n "$first" ]; then
    set -- $first
    sweep=$(python3 - "$1" "$2" <<'PY'
import json, sys
mid, path = sys.argv[1], sys.argv[2]
params = json.load(open(path)).get("parameters", {})
name, val = next(((k, v) for k, v in params.items() if isinstance(v, (int, float)) and v != 0), (None, None))
spec = {"model": mid, "name": "demonstration", "design": {"kind": "grid", "seed": 1},
        "solver": {"contact_deactivation": [True, False]}}
if name:
    spec["parameters"] = {name: {"min": 0.8 * val, "max": 1.2 * val, "levels": 5}}
else:
    spec["design"] = {"kind": "list", "rows": [{}]}
print(json.dumps(spec))
PY
)
    out=$(curl -s -X POST -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
          --data "$sweep" "$URL/api/v1/sweeps")
    echo "demonstration sweep: $out"
  fi
  # the example sweeps (examples/sweeps/*.json: "model" names an example,
  # replaced by its id here)
  for f in examples/sweeps/*.json; do
    [ -f "$f" ] || continue
    name=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["model"])' "$f")
    mid=$(awk -v n="$name" '$1 == n { print $2; exit }' "$RUN/models.txt" 2>/dev/null)
    if [ -z "$mid" ]; then echo "skipped $f (example $name not loaded)"; continue; fi
    spec=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["model"]=sys.argv[2]; print(json.dumps(d))' "$f" "$mid")
    out=$(curl -s -X POST -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
          --data "$spec" "$URL/api/v1/sweeps")
    echo "example sweep $f: $out"
  done
  touch "$RUN/examples-loaded"
fi

echo
echo "mbsweep is up: $URL   (the web front end; API under $URL/api/v1/, health $URL/healthz)"
echo "API token: $TOKEN     (curl -H 'Authorization: Bearer $TOKEN' ...)"
down="make down"; [ "$RUN" = "$PWD/run" ] || down="MBSWEEP_RUN=$RUN make down"
echo "workers: $NWORKERS, logs in $RUN/, stop with: $down"
