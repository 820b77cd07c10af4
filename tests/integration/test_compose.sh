#!/usr/bin/env bash
# docker-compose.yml is valid (docker-compose config) and every image's
# command is a program the Makefile builds; the Dockerfiles build those
# targets.  The deployment it describes (issue 11): CurveZMQ on for every
# gateway and worker (keys mounted, never --zmq-open-insecure); gateways that
# scale (no published port of their own) behind the `proxy`, whose
# configuration deploy/haproxy.cfg is valid and names the gateway service's
# ports; workers connecting through the proxy.  (No Docker engine runs here:
# the images are not built by this test; scripts/compose_check.sh runs the
# file under podman, `make compose-check`, outside `make test`;
# tests/integration/test_proxy.sh runs the proxy file with two local
# gateways.)
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
command -v docker-compose >/dev/null || fail "docker-compose not installed (scripts/deps.sh installs it)"
MBSWEEP_TOKEN=x POSTGRES_PASSWORD=x docker-compose -f docker-compose.yml config -q || fail "docker-compose config"
cfg=$(MBSWEEP_TOKEN=x POSTGRES_PASSWORD=x docker-compose -f docker-compose.yml config)
for svc in gateway worker; do
  df=$svc/Dockerfile
  [ -f "$df" ] || fail "$df missing"
  # the entrypoint names /app/build/<program>, which `make build/<program>` makes
  prog=$(grep -E '^(ENTRYPOINT|CMD)' "$df" | grep -o 'build/[a-z]*' | head -1)
  [ -n "$prog" ] || fail "$df: no build/ program in ENTRYPOINT/CMD"
  grep -q "make .*$prog" "$df" || fail "$df does not build $prog with make"
  make -s "$prog" || fail "make $prog"
  [ -x "$prog" ] || fail "$prog not built"
  echo "$cfg" | grep -q "dockerfile: $df" || fail "compose does not build $df"
done
echo "$cfg" | grep -q 'postgres' || fail "no postgres service"
echo "$cfg" | grep -q 'MBSWEEP_GATEWAY' || fail "workers not configured by environment"
ok "docker-compose config valid; gateway and worker images run build/gateway and build/worker"
echo "$cfg" | python3 -c '
import sys, yaml
c = yaml.safe_load(sys.stdin)["services"]
gw, wk, px = c["gateway"], c["worker"], c["proxy"]
for name, s in c.items():
    env = s.get("environment") or {}
    assert "MBSWEEP_ZMQ_OPEN_INSECURE" not in env and "--zmq-open-insecure" not in str(s.get("command", "")), name + " runs open"
ge, we = gw["environment"], wk["environment"]
assert ge["MBSWEEP_CURVE_SECRET_FILE"].startswith("/keys/") and ge["MBSWEEP_CURVE_ALLOW"].startswith("/keys/"), "gateway keys"
assert we["MBSWEEP_SERVER_KEY"].startswith("/keys/") and we["MBSWEEP_CURVE_KEY_FILE"].startswith("/keys/"), "worker keys"
for s in (gw, wk):
    assert any(v.startswith("keys:/keys") for v in s["volumes"]), "keys volume not mounted"
assert not gw.get("ports"), "the gateway publishes ports: it cannot be scaled"
assert ge["MBSWEEP_ZMQ_BIND"].endswith(":5555") and ge["PORT"] == "8080", "gateway ports"
assert we["MBSWEEP_GATEWAY"] == "tcp://proxy:5555", "workers do not go through the proxy"
assert any(v.endswith("deploy/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro") for v in px["volumes"]), "proxy config"
pub = [str(p) for p in px["ports"]]
assert any("127.0.0.1:8080:8080" in p for p in pub) and any("5555" in p for p in pub), pub
' || fail "the deployment in docker-compose.yml"
command -v haproxy >/dev/null || fail "haproxy not installed (scripts/deps.sh installs it)"
haproxy -c -q -f deploy/haproxy.cfg || fail "deploy/haproxy.cfg is not valid"
grep -q '^ *server-template gw [0-9]* gateway:8080 ' deploy/haproxy.cfg && grep -q '^ *server-template gwz [0-9]* gateway:5555 ' deploy/haproxy.cfg \
  || fail "deploy/haproxy.cfg does not name the gateway service's ports"
ok "compose: CurveZMQ keys on every gateway and worker, none open; gateways scale behind the proxy (deploy/haproxy.cfg valid), workers through it"
# What running the file under podman showed (scripts/compose_check.sh, `make
# compose-check`): the proxy must take its DNS server from the container's
# resolv.conf (Docker's 127.0.0.11 exists only under Docker), and the build
# context must leave out this checkout's build outputs and node_modules
grep -q '^ *parse-resolv-conf' deploy/haproxy.cfg && ! grep -q '^ *nameserver' deploy/haproxy.cfg \
  || fail "deploy/haproxy.cfg: the resolvers must come from resolv.conf (parse-resolv-conf), not a fixed nameserver"
for pat in build 'build-\*' run '\*\*/node_modules'; do
  grep -qx "$pat" .dockerignore || fail ".dockerignore does not leave out $pat"
done
ok "compose: the proxy resolves the gateways with the container network's DNS; the image context leaves out build outputs and node_modules"
