#!/usr/bin/env bash
# bench/gateway_memory.sh - the gateway's resident memory idle, at its peak
# and after a battery of large and hostile requests (issue 11, "memory
# amplification"), and the time of a model check at the HTTP limit.
#
#   bash bench/gateway_memory.sh        (about 30 s; GATEWAY=path to measure another build)
#
# Starts a private PostgreSQL cluster and build/gateway (default options, no
# worker) on 127.0.0.1 with free ports through tests/integration/lib.sh, and
# stops them on exit.  Requests, each answered at once with a 4xx/503 or
# accepted: 10^6 empty rows (4 MB), four concurrent bodies of 400,000 numbers
# (5 MB each) beside a list design of 110,000 rows, an 8 MiB string, 5000
# query parameters, a 10,001-body model; then a 10,000-body planar chain (accepted:
# the largest check the service runs).  Prints one markdown table.
source "$(dirname "$0")/../tests/integration/lib.sh"
DEVBUILD=$(dirname "${GATEWAY:-$ROOT/build/gateway}")
it_init gwmem
start_gateway --max-body $((8 << 20))
MID=$(post_model "$PENDULUM")
rss() { awk -v k="$1" '$1 == k":" {print $2}' /proc/$GW_PID/status; }
idle=$(rss VmRSS)
post() { curl -s -o /dev/null -w '%{http_code}' --max-time 120 -H "Authorization: Bearer $TOKEN" \
              -H 'Content-Type: application/json' --data-binary "@$1" "$BASE$2"; }
T=$IT_TMP
python3 -c 'import json,sys; print(json.dumps({"model":sys.argv[1],"design":{"kind":"list","rows":[{}]*1000000}}))' "$MID" > $T/rows.json
python3 -c 'import json,sys; print(json.dumps({"model":sys.argv[1],"parameters":{"L":{"values":[1.0+i*1e-9 for i in range(400000)]}}}))' "$MID" > $T/vals.json
python3 -c 'import json,sys; print(json.dumps({"model":sys.argv[1],"design":{"kind":"list","rows":[{"L":1.0}]*110000}}))' "$MID" > $T/rows2.json
python3 -c 'print("{\"name\":\"" + "x" * (8 * 1024 * 1024 - 20) + "\"}")' > $T/str.json
chain() { python3 - "$1" <<'PY'
import json, sys
n = int(sys.argv[1])
b = [{"name": "b%d" % i, "mass": 1, "inertia": 0.01, "com": [i + 0.5, 0], "angle": 0} for i in range(n)]
j = [{"name": "j%d" % i, "type": "revolute", "bodies": ["ground" if i == 0 else "b%d" % (i - 1), "b%d" % i], "at": [i, 0]} for i in range(n)]
print(json.dumps({"name": "chain%d" % n, "dimension": 2, "bodies": b, "joints": j, "solver": {"t_end": 0.01}}))
PY
}
chain 10001 > $T/chain10001.json; chain 10000 > $T/chain10000.json
codes="rows:$(post $T/rows.json /api/v1/sweeps)"
pids=()
for i in 1 2 3 4; do post $T/vals.json /api/v1/sweeps > $T/c$i & pids+=($!); done
codes="$codes rows2:$(post $T/rows2.json /api/v1/sweeps)"
for p in "${pids[@]}"; do wait "$p"; done
codes="$codes vals:$(cat $T/c1 $T/c2 $T/c3 $T/c4 | tr -d '\n' | sed 's/.../& /g')"
codes="$codes string:$(post $T/str.json /api/v1/sweeps)"
q=$(python3 -c "print('&'.join('a%d=1' % i for i in range(5000)))")
codes="$codes query:$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$BASE/api/v1/sweeps?$q")"
codes="$codes chain10001:$(post $T/chain10001.json /api/v1/models)"
after=$(rss VmRSS)
t0=$(date +%s.%N)
codes="$codes chain10000:$(post $T/chain10000.json /api/v1/models)"
tcheck=$(python3 -c "import sys; print('%.2f' % ($(date +%s.%N) - $t0))")
final=$(rss VmRSS); peak=$(rss VmHWM)
echo "| gateway | RSS idle (MB) | peak RSS (MB) | RSS after the large requests (MB) | after a 10,000-body model check (MB) | 10,000-body check over HTTP (s) | answers |"
echo "|---|---:|---:|---:|---:|---:|---|"
printf '| %s | %.1f | %.1f | %.1f | %.1f | %s | %s |\n' "${GATEWAY:-build/gateway}" "$(echo "$idle/1024" | bc -l)" \
  "$(echo "$peak/1024" | bc -l)" "$(echo "$after/1024" | bc -l)" "$(echo "$final/1024" | bc -l)" "$tcheck" "$codes"
