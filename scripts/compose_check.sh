#!/usr/bin/env bash
# scripts/compose_check.sh - run docker-compose.yml for real (`make
# compose-check`; not in `make test`: minutes, root, podman).  No Docker engine
# and no Docker Hub here, so:
#   * the engine is Debian's podman (4.3) with podman-compose (1.0.3), as
#     root, with a PRIVATE store and configuration under a temporary directory
#     (CONTAINERS_STORAGE_CONF, CONTAINERS_CONF; nothing in /etc; podman's
#     blob-info cache in /var/lib/containers/cache and netavark's state in
#     /run/containers/networks are removed at the end if they were not there);
#   * the Dockerfiles' base images debian:12 and debian:12-slim are one local
#     image made by debootstrap (bookworm, minbase) and `podman import`;
#   * postgres:15 and haproxy:2.6 are STAND-INS built from Debian's packages
#     (scripts/compose_standin/), tagged localhost/mbsweep-standin/..., and put
#     in place by an override file this script writes (docker-compose.yml's
#     defaults are unchanged), which also sets the scale: podman-compose 1.0.3
#     ignores `--scale` and reads `deploy: replicas`.
# Then: up with 2 gateways and 3 workers; a model and a sweep posted through
# the proxy's published port 127.0.0.1:8080; every job done once (one result
# each, checked in PostgreSQL; the time from post to done printed); one
# gateway container stopped during a second sweep: the API still answers
# through the proxy, the workers move to the other gateway, the sweep
# completes with one result per job and no job run twice; everything torn down
# (containers, volumes, network, images, store, debootstrap directory) on
# every exit path.
#
#   bash scripts/compose_check.sh            (bash scripts/deps.sh --compose first)
#   COMPOSE_CHECK_DIR=DIR bash scripts/compose_check.sh
#       keeps store and images in DIR between runs (for working on the files:
#       only the containers, volumes and network are removed at the end)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
N1=${COMPOSE_CHECK_JOBS:-2000}    # jobs of the first sweep (timed)
N2=2000                           # jobs of the sweep during which a gateway is stopped
P=mbsweepcheck                    # the compose project (container and image prefix)

log() { echo "[$(date +%H:%M:%S)] $*" >&2; }
fail() { log "FAIL: $*"; dump; exit 1; }
ok() { log "ok: $*"; }

[ "$(id -u)" = 0 ] || { echo "compose_check: needs root (podman as root)" >&2; exit 2; }
for c in podman podman-compose debootstrap runc iptables curl python3; do
  command -v "$c" >/dev/null || { echo "compose_check: $c missing (bash scripts/deps.sh --compose)" >&2; exit 2; }
done
for port in 8080 5555; do
  if ss -Hltn "sport = :$port" | grep -q .; then echo "compose_check: port $port in use (the proxy publishes it)" >&2; exit 2; fi
done

# The host's network state that netavark changes (IPv4 forwarding on, its
# NETAVARK* iptables chains): put back at the end if they were not there before
FWD0=$(cat /proc/sys/net/ipv4/ip_forward)
# and the two directories podman uses whatever its configuration (the image
# library's blob-info cache, netavark's IP allocations): removed at the end
# if this run made them
OWN_DIRS=()
for d in /var/lib/containers /run/containers; do [ -e "$d" ] || OWN_DIRS+=("$d"); done
NAT0=0; iptables -t nat -S NETAVARK-HOSTPORT-DNAT >/dev/null 2>&1 && NAT0=1
net_restore() {
  echo "$FWD0" > /proc/sys/net/ipv4/ip_forward
  [ "$NAT0" = 1 ] && return 0
  local t rule c
  for t in nat filter; do
    # the jumps from the built-in chains, then the chains themselves
    iptables -t "$t" -S | grep -E '^-A (PREROUTING|INPUT|FORWARD|OUTPUT|POSTROUTING) .*-j NETAVARK' | sed 's/^-A/-D/' \
      | while read -r rule; do eval "iptables -t $t $rule"; done
    for c in $(iptables -t "$t" -S | awk '$1 == "-N" && $2 ~ /^NETAVARK/ { print $2 }'); do iptables -t "$t" -F "$c"; done
    for c in $(iptables -t "$t" -S | awk '$1 == "-N" && $2 ~ /^NETAVARK/ { print $2 }'); do iptables -t "$t" -X "$c"; done
  done
}

# ---- the private podman: store, configuration, temporary files ----------------------
if [ -n "${COMPOSE_CHECK_DIR:-}" ]; then KEEP=1; T=$(mkdir -p "$COMPOSE_CHECK_DIR" && cd "$COMPOSE_CHECK_DIR" && pwd)
else KEEP=0; T=$(mktemp -d /var/tmp/mbsweep-compose.XXXXXX); fi
mkdir -p "$T/tmp" "$T/net"
cat >"$T/storage.conf" <<EOF
[storage]
driver = "overlay"
graphroot = "$T/graph"
runroot = "$T/run"
EOF
# What running containers here needed (docs/service.md, "docker-compose.yml
# run"): runc (crun 1.8 refuses the hybrid cgroup v1/v2 hierarchy), cgroupfs
# (no systemd), ulimits no higher than ours (no CAP_SYS_RESOURCE: podman's
# default nofile 1048576 cannot be set), events in a file.
cat >"$T/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=$(ulimit -Hn):$(ulimit -Hn)", "nproc=4096:4096"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
events_logfile_path = "$T/events.log"
tmp_dir = "$T/tmp"
[network]
network_backend = "netavark"
network_config_dir = "$T/net"
EOF
export CONTAINERS_STORAGE_CONF=$T/storage.conf CONTAINERS_CONF=$T/containers.conf
export MBSWEEP_TOKEN=compose-check-token POSTGRES_PASSWORD=compose-check-pw
COMPOSE=(podman-compose -p "$P" -f docker-compose.yml -f "$T/standin.yml")

dump() {
  [ -f "$T/standin.yml" ] || return 0
  for c in $(podman ps -a --format '{{.Names}}' 2>/dev/null); do
    echo "---- podman logs $c (last 15 lines)" >&2; podman logs --tail 15 "$c" >&2 2>&1 || true
  done
}
cleanup() {
  local rc=$?
  set +e
  log "teardown"
  if [ -f "$T/standin.yml" ]; then
    # containers, the project's network and its volumes (pgdata, keys)
    "${COMPOSE[@]}" down -v >"$T/down.log" 2>&1
    podman rm -f -a >/dev/null 2>&1
    podman volume prune -f >/dev/null 2>&1
    podman network rm -f "${P}_default" >/dev/null 2>&1
  fi
  if [ "$KEEP" = 0 ]; then
    # every image (all ours: the store is private), then the store itself
    podman system reset -f >/dev/null 2>&1
    rm -rf "$T"
  fi
  net_restore
  [ ${#OWN_DIRS[@]} = 0 ] || rm -rf "${OWN_DIRS[@]}"
  [ "$rc" = 0 ] && log "compose_check: passed" || log "compose_check: FAILED ($rc)"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
[ "$(podman info --format '{{.Host.OCIRuntime.Name}} {{.Store.GraphDriverName}}')" = "runc overlay" ] || fail "podman info"

# ---- base image: Debian bookworm by debootstrap, under the Dockerfiles' FROM names ---
if ! podman image exists docker.io/library/debian:12; then
  log "debootstrap bookworm (minbase) into $T/rootfs"
  [ -f "$T/rootfs/etc/debian_version" ] || timeout 900 debootstrap --variant=minbase bookworm "$T/rootfs" http://deb.debian.org/debian >"$T/debootstrap.log" 2>&1 \
    || fail "debootstrap: $(tail -3 "$T/debootstrap.log")"
  rm -rf "$T/rootfs/var/cache/apt/archives"/*.deb "$T/rootfs/var/lib/apt/lists"/*
  # This machine reaches the npm registry through a TLS-intercepting proxy
  # whose CA only the host trusts: the host's CA bundle goes into the base
  # image for the front end's `npm ci` in gateway/Dockerfile (Node.js reads
  # NODE_EXTRA_CA_CERTS; a separate file, which no ca-certificates package
  # rewrites).  Not needed with Docker Hub's images on an open network.
  ca=${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}
  change=()
  if [ -f "$ca" ]; then
    mkdir -p "$T/rootfs/usr/local/share/mbsweep-compose-check"
    cp "$ca" "$T/rootfs/usr/local/share/mbsweep-compose-check/host-ca.crt"
    change=(--change ENV=NODE_EXTRA_CA_CERTS=/usr/local/share/mbsweep-compose-check/host-ca.crt)
  fi
  tar -C "$T/rootfs" -c . | podman import "${change[@]}" - docker.io/library/debian:12 >/dev/null
  podman tag docker.io/library/debian:12 docker.io/library/debian:12-slim
  rm -rf "$T/rootfs"
fi
ok "base image debian:12 (= debian:12-slim) from debootstrap"

# ---- stand-ins for postgres:15 and haproxy:2.6 ----------------------------------------
for s in postgres:15 haproxy:2.6; do
  name=${s%%:*}
  podman image exists "localhost/mbsweep-standin/$s" && continue
  log "building the stand-in localhost/mbsweep-standin/$s"
  timeout 900 podman build -q -t "localhost/mbsweep-standin/$s" -f "scripts/compose_standin/$name.Containerfile" \
    scripts/compose_standin >"$T/build-$name.log" 2>&1 || fail "stand-in $s: $(tail -5 "$T/build-$name.log")"
done
ok "stand-ins localhost/mbsweep-standin/postgres:15 and haproxy:2.6 built from Debian's packages"

# ---- the override: stand-in images and the scale (2 gateways, 3 workers) -------------
cat >"$T/standin.yml" <<EOF
# written by scripts/compose_check.sh: stand-ins for the Docker Hub images, scale
services:
  postgres:
    image: localhost/mbsweep-standin/postgres:15
  proxy:
    image: localhost/mbsweep-standin/haproxy:2.6
  gateway:
    deploy:
      replicas: 2
  worker:
    deploy:
      replicas: 3
EOF

# ---- build the service's images and start --------------------------------------------
log "podman-compose build (gateway, keys, worker images: compiles the service)"
start=$SECONDS
timeout 2400 "${COMPOSE[@]}" build >"$T/build.log" 2>&1 || fail "podman-compose build: $(tail -20 "$T/build.log")"
ok "images built in $((SECONDS - start)) s"
timeout 300 "${COMPOSE[@]}" up -d >"$T/up.log" 2>&1 || fail "podman-compose up: $(tail -20 "$T/up.log")"
BASE=http://127.0.0.1:8080
TOKEN=$MBSWEEP_TOKEN
wait_until() {
  local limit=$1; shift
  local end=$((SECONDS + limit))
  while [ $SECONDS -lt $end ]; do "$@" >/dev/null 2>&1 && return 0; sleep "${POLL:-0.5}"; done
  return 1
}
jget() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }
get() { curl -s --max-time 10 -H "Authorization: Bearer $TOKEN" "$BASE$1"; }
post() { curl -s --max-time 30 -w '\n%{http_code}' -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' --data-binary "$2" "$BASE$1"; }
# /healthz answered 200 through the proxy (503 while it has no gateway)
healthz() { curl -sf -o /dev/null --max-time 10 "$BASE/healthz"; }
# workers connected, summed over the gateways' /healthz (each container asked at its own address)
gateway_ips() {
  local c
  for c in $(podman ps --filter label=com.docker.compose.service=gateway --format '{{.Names}}'); do
    podman inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "$c"
  done
}
workers_total() {
  local n=0 ip w
  for ip in $(gateway_ips); do
    w=$(curl -s --max-time 5 -H "Authorization: Bearer $TOKEN" "http://$ip:8080/healthz" | jget 'd["workers"]' 2>/dev/null) || w=0
    n=$((n + ${w:-0}))
  done
  echo "$n"
}
workers_are() { [ "$(workers_total)" = "$1" ]; }
sql() { podman exec -e PGPASSWORD="$POSTGRES_PASSWORD" "${P}_postgres_1" psql -w -U mbsweep -d mbsweep -X -tAq -c "$1"; }
sweep_status() { get "/api/v1/sweeps/$1" | jget 'd["status"]+" "+" ".join(k+"="+str(v) for k,v in d["counts"].items())'; }
sweep_is() { [ "$(get "/api/v1/sweeps/$1" | jget 'd["status"]')" = "$2" ]; }
# check_once SID N MAXATTEMPT: N jobs done, one result each, none beyond attempt MAXATTEMPT
check_once() {
  local got
  got=$(sql "SELECT count(*) FILTER (WHERE status = 'done') || ' ' || count(*) || ' ' || coalesce(max(attempt), 0) FROM jobs WHERE sweep_id = '$1'")
  set -- "$1" "$2" "$3" $got
  [ "$4" = "$2" ] && [ "$5" = "$2" ] || fail "sweep $1: $4 of $5 jobs done, want $2"
  [ "$6" -le "$3" ] || fail "sweep $1: a job reached attempt $6 (at most $3)"
  got=$(sql "SELECT count(*) || ' ' || count(DISTINCT r.job_id) FROM results r JOIN jobs j ON j.id = r.job_id WHERE j.sweep_id = '$1'")
  [ "$got" = "$2 $2" ] || fail "sweep $1: results (rows, distinct jobs) $got, want $2 $2"
}

wait_until 180 healthz || fail "no answer through the proxy at $BASE/healthz"
running=$(podman ps --format '{{.Names}}' | sort | tr '\n' ' ')
[ "$(podman ps --filter label=com.docker.compose.service=gateway -q | wc -l)" = 2 ] || fail "gateways running: $running"
[ "$(podman ps --filter label=com.docker.compose.service=worker -q | wc -l)" = 3 ] || fail "workers running: $running"
wait_until 120 workers_are 3 || fail "workers connected to the gateways: $(workers_total), want 3"
ok "up: $running; /healthz through the proxy on $BASE; 3 workers connected (CurveZMQ through the proxy)"

# ---- a model and a sweep through the proxy; every job done once ---------------------------
out=$(post /api/v1/models "$(cat tests/integration/data/pendulum.json)")
case "${out##*$'\n'}" in 200|201) ;; *) fail "post model: $out" ;; esac
MID=$(echo "${out%$'\n'*}" | jget 'd["id"]')
# sweep N SEED [MEMBERS]: an LHS sweep of N jobs over L (MEMBERS: more JSON
# members of the request, e.g. ',"solver":{...}'); prints its id
sweep() {
  local out
  out=$(post /api/v1/sweeps '{"model":"'$MID'","design":{"kind":"lhs","samples":'$1',"seed":'$2'},"parameters":{"L":{"min":0.8,"max":1.2}}'"${3:-}"'}')
  [ "${out##*$'\n'}" = 202 ] || fail "post sweep: $out"
  echo "${out%$'\n'*}" | jget 'd["id"]'
}
done_count() { sql "SELECT count(*) FROM jobs WHERE sweep_id = '$1' AND status = 'done'"; }
done_ge() { [ "$(done_count "$1")" -ge "$2" ]; }
now() { date +%s.%N; }
t0=$(now)
S1=$(sweep "$N1" 1)
POLL=0.05 wait_until 300 sweep_is "$S1" done || fail "first sweep: $(sweep_status "$S1")"
t1=$(now)
check_once "$S1" "$N1" 1
rate=$(python3 -c "import sys; print('%.2f s, %.0f jobs/s' % (float(sys.argv[2]) - float(sys.argv[1]), int(sys.argv[3]) / (float(sys.argv[2]) - float(sys.argv[1]))))" "$t0" "$t1" "$N1")
served=$(for _ in 1 2 3 4 5 6; do curl -s -D - -o /dev/null -H "Authorization: Bearer $TOKEN" "$BASE/api/v1/sweeps/$S1" \
         | tr -d '\r' | sed -n 's/^[Xx]-[Mm]bsweep-[Gg]ateway: //p'; done | sort -u | tr '\n' ' ')
[ "$(echo $served | wc -w)" = 2 ] || fail "reads through the proxy answered by: $served (want both gateways)"
rows=$(get "/api/v1/sweeps/$S1/results.csv" | wc -l)
[ "$rows" = $((N1 + 1)) ] || fail "results.csv through the proxy: $rows lines, want $((N1 + 1))"
ok "model and sweep of $N1 jobs through the proxy: post to done in $rate (load: $(cut -d' ' -f1-3 /proc/loadavg)); every job once (one result each, attempt 1); results.csv $rows lines; reads answered by $served"

# ---- one gateway container stopped mid-sweep ----------------------------------------------
# jobs 20 times longer (t_end 20 s of simulated time): the stop falls mid-sweep
S2=$(sweep "$N2" 2 ',"solver":{"t_end":20}')
wait_until 120 done_ge "$S2" $((N2 / 10)) || fail "second sweep before the stop: $(sweep_status "$S2")"
GW1=$(podman ps --filter label=com.docker.compose.service=gateway --format '{{.Names}}' | sort | head -1)
podman stop -t 5 "$GW1" >/dev/null || fail "podman stop $GW1"
at_stop=$(done_count "$S2")
bad=0
for _ in $(seq 1 30); do
  code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 -H "Authorization: Bearer $TOKEN" "$BASE/api/v1/sweeps/$S2")
  [ "$code" = 200 ] || bad=$((bad + 1))
  sleep 0.1
done
[ "$bad" = 0 ] || fail "$bad of 30 reads through the proxy failed after $GW1 stopped"
ok "$GW1 stopped at $at_stop of $N2 jobs done: 30 reads through the proxy right after, all 200"
wait_until 120 workers_are 3 || fail "workers on the remaining gateway: $(workers_total), want 3"
wait_until 300 sweep_is "$S2" done || fail "second sweep after the stop: $(sweep_status "$S2")"
check_once "$S2" "$N2" 2
rerun=$(sql "SELECT count(*) FROM jobs WHERE sweep_id = '$S2' AND attempt > 1")
ok "the 3 workers reconnected through the proxy to the other gateway; the sweep of $N2 jobs finished: every job done, one result each, $rerun re-run once (their gateway stopped while they ran), none twice"
restarts=$(for c in $(podman ps -a --format '{{.Names}}' | sort); do echo -n "$c=$(podman inspect -f '{{.RestartCount}}' "$c") "; done)
log "container restarts (podman-compose 1.0.3 starts in order but does not wait for health or completion): $restarts"
