#!/usr/bin/env bash
# Workers on another host, with keys (issue 11, scale): the workers run in
# their own network namespace (a separate network stack, as another machine
# would be: its own interfaces, addresses and loopback), joined to this one
# by a veth pair with private addresses 10.X.Y.1 (gateway side) and
# 10.X.Y.2 (worker side).  The gateway binds its ZeroMQ port on 10.X.Y.1
# only.  A worker with an allowed key runs a sweep to the end, every job
# done once and by it; a worker with a key not in the allow-list gets
# nothing, and the gateway logs the refused connection with the worker
# host's address.  The namespace and its link (with their routes) are the
# test's own, named with a unique suffix, and are deleted at the end, pass or
# fail, after the processes (stopped by PID).  Needs root (CI runs as root):
# if the namespace cannot be made, the test fails, it does not skip.
source "$(dirname "$0")/lib.sh"
it_init remote
command -v ip >/dev/null || fail "no ip command (iproute2): cannot make the worker host's network namespace"

# ---- the other host: a namespace and a veth pair, removed on exit --------------------------
SUF=$(printf '%04x%04x' $$ $((RANDOM % 65536)))
NS=mbsweep-rw-$SUF
VH=mbrh$SUF        # host side (interface names: at most 15 characters)
VN=mbrn$SUF        # worker side, moved into the namespace
NS_MADE=0
netns_cleanup() {
  # processes first (a namespace lives on while a process runs in it), then
  # the link (its peer in the namespace and the connected routes go with it),
  # then the namespace; each by the name this test gave it
  it_cleanup
  ip link del "$VH" 2>/dev/null
  [ "$NS_MADE" = 1 ] && ip netns del "$NS" 2>/dev/null
  NS_MADE=0
  return 0
}
trap netns_cleanup EXIT
# a /30 of 10.0.0.0/8 not on any interface here (two tries of a random one)
for _ in 1 2 3; do
  NET=10.$((100 + RANDOM % 100)).$((RANDOM % 256))
  ip -4 addr show | grep -q " $NET\." || ip -4 route show | grep -q "^$NET\." || break
done
GWADDR=$NET.1; WKADDR=$NET.2
ip netns add "$NS" 2>"$IT_TMP/netns.err" \
  || fail "cannot create network namespace $NS (needs root and iproute2): $(cat "$IT_TMP/netns.err")"
NS_MADE=1
ip link add "$VH" type veth peer name "$VN" || fail "cannot make veth pair $VH/$VN"
ip link set "$VN" netns "$NS" || fail "cannot move $VN into $NS"
ip addr add "$GWADDR/30" dev "$VH" && ip link set "$VH" up || fail "cannot set up $VH"
ip netns exec "$NS" ip addr add "$WKADDR/30" dev "$VN" && ip netns exec "$NS" ip link set "$VN" up \
  && ip netns exec "$NS" ip link set lo up || fail "cannot set up $VN in $NS"
ip netns exec "$NS" ip -4 route get "$GWADDR" | grep -q "dev $VN" || fail "no route from $NS to $GWADDR by $VN"
# the namespace is another stack: this host's loopback is not reachable from it
probe() { ip netns exec "$NS" python3 -c 'import socket,sys; socket.create_connection((sys.argv[1], int(sys.argv[2])), 1)' "$@"; }
ok "namespace $NS: worker host $WKADDR, gateway side $GWADDR ($VH, /30)"

# ---- the gateway: HTTP on loopback, ZeroMQ on the link's address only ----------------------
ZMQ="tcp://$GWADDR:$ZMQ_PORT"
start_gateway
probe "$GWADDR" "$ZMQ_PORT" 2>/dev/null || fail "the worker host cannot reach $GWADDR:$ZMQ_PORT"
probe 127.0.0.1 "$HTTP_PORT" 2>/dev/null && fail "the worker host reaches this host's loopback: not a separate stack"
python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$ZMQ_PORT" 2>/dev/null \
  && fail "the ZeroMQ port is open on 127.0.0.1 (bound beyond the veth address)"
ok "gateway ZeroMQ on $ZMQ only (not on 127.0.0.1); the worker host reaches it and not this host's loopback"

MID=$(post_model "$PENDULUM"); [ -n "$MID" ] || fail "no model id"
N=40
SID=$(post_sweep '{"model":"'$MID'","design":{"kind":"grid"},"parameters":{"L":{"min":0.5,"max":1.5,"levels":'$N'}},"solver":{"t_end":0.5}}')
[ -n "$SID" ] || fail "no sweep id"

# remote_worker NAME [ARGS...]: a worker in the namespace (ip netns exec
# execs it: the recorded PID is the worker's); sets WK_PID.
remote_worker() {
  local name=$1; shift
  ip netns exec "$NS" "$DEVBUILD/worker" --connect "$ZMQ" --id "$name" --heartbeat-ms 200 "$@" \
      >>"$IT_TMP/worker-$name.log" 2>&1 &
  WK_PID=$!; IT_PIDS+=("$WK_PID")
}

# ---- 1. a key not in the allow-list: refused, gets nothing ----------------------------------
"$DEVBUILD/gateway" --curve-keygen "$IT_TMP/unlisted.key" >/dev/null || fail "keygen"
MBSWEEP_CURVE_KEY_FILE=$IT_TMP/unlisted.key remote_worker stranger; STRANGER=$WK_PID
wait_until 15 grep -q "refused this worker" "$IT_TMP/worker-stranger.log" \
  || fail "unlisted remote worker: no refusal in its log: $(tail -3 "$IT_TMP/worker-stranger.log")"
grep -q "connection from $WKADDR refused" "$IT_TMP/gateway.log" \
  || fail "the gateway did not log the refusal from $WKADDR: $(grep refused "$IT_TMP/gateway.log" | tail -2)"
[ "$(ip netns identify "$STRANGER")" = "$NS" ] || fail "the unlisted worker is not in $NS"
sleep 1
[ "$(count "$SID" queued)" = "$N" ] || fail "jobs left the queue with only an unlisted worker: $(sweep_state "$SID")"
[ "$(get /healthz | jget 'd["workers"]')" = 0 ] || fail "the unlisted remote worker counts as a worker"
ok "remote worker with an unlisted key: refused (gateway logs $WKADDR), 0 of $N jobs, not a worker"

# ---- 2. an allowed key: runs the sweep to the end, each job once ----------------------------
remote_worker remote --slots 2; REMOTE=$WK_PID
in_ns() { [ "$(ip netns identify "$1")" = "$NS" ]; }
wait_until 5 in_ns "$REMOTE" || fail "the allowed worker is not in $NS"
wait_until 60 sweep_is "$SID" done || fail "sweep with the remote worker: $(sweep_state "$SID")"
[ "$(count "$SID" done)" = "$N" ] || fail "not all $N jobs done: $(sweep_state "$SID")"
read -r nres nremote maxatt <<<"$(sql "SELECT count(r.job_id), count(*) FILTER (WHERE r.worker_id = 'remote'), max(j.attempt)
                                      FROM jobs j LEFT JOIN results r ON r.job_id = j.id WHERE j.sweep_id = '$SID'" | tr '|' ' ')"
[ "$nres $nremote $maxatt" = "$N $N 1" ] || fail "results $nres, from 'remote' $nremote, largest attempt $maxatt (want $N $N 1)"
# the worker's connection is from the other host's address (the gateway side's socket table)
ss -Htn state established "( sport = :$ZMQ_PORT )" | grep -q " $WKADDR:" \
  || fail "no connection from $WKADDR to the ZeroMQ port: $(ss -Htn "( sport = :$ZMQ_PORT )")"
[ "$(get /healthz | jget 'd["workers"]')" = 1 ] || fail "workers: $(get /healthz)"
kill -0 "$STRANGER" || fail "the unlisted worker stopped"
! grep -q "handshake with the gateway succeeded" "$IT_TMP/worker-stranger.log" \
  || fail "the unlisted worker's handshake succeeded: $(tail -3 "$IT_TMP/worker-stranger.log")"
ok "remote worker with an allowed key, connected from $WKADDR: $N of $N jobs done, each once (attempt 1), all by it"

# ---- 3. the end: processes stopped, link, routes and namespace gone -------------------------
netns_cleanup
! ip netns list | grep -qw "$NS" || fail "namespace $NS left behind"
! ip link show "$VH" >/dev/null 2>&1 || fail "link $VH left behind"
! ip -4 route show | grep -q "^$NET\." || fail "route to $NET.0/30 left behind: $(ip -4 route show | grep "^$NET\.")"
log "ok: namespace $NS, link $VH and the route to $NET.0/30 removed"
