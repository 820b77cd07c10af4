#!/usr/bin/env bash
# docker-compose.yml is valid (docker-compose config) and every image's
# command is a program the Makefile builds; the Dockerfiles build those
# targets.  (No Docker engine runs here: the images themselves are not built.)
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
