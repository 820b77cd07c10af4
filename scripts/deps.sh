#!/usr/bin/env bash
# Install the Debian packages the build, the tests and the service need.
# Idempotent: only missing packages are installed.  Needs root (or sudo).
set -euo pipefail
# BLAS/LAPACK: libblas-dev/liblapack-dev bring the reference libraries (libblas3,
# liblapack3) the build links against; libopenblas0-serial (single-threaded: one
# job per core) is installed beside them and selected by Debian's alternatives.
# tests/suite_variants.sh runs the solver tests with each of the two (chosen by
# LD_LIBRARY_PATH); bench/blas.sh measures them (bench/README.md, BLAS).  The
# Dockerfiles install the same.  CurveZMQ (the worker port) needs no extra
# package: Debian's libzmq5 is built with libsodium (zmq_has("curve") is 1).
# haproxy: the proxy in front of several gateways (deploy/haproxy.cfg,
# docker-compose.yml), run by tests/integration/test_proxy.sh.
pkgs=(build-essential pkg-config clang libclang-rt-14-dev
      libjansson-dev liblapacke-dev liblapack-dev libblas-dev libopenblas0-serial libsuitesparse-dev
      libzmq3-dev libmicrohttpd-dev libpq-dev zlib1g-dev postgresql
      docker-compose haproxy wrk curl ca-certificates python3)
# Node.js and npm build the web front end (mk/web.mk: npm ci + Vite; nothing
# of Node runs in the service).  Debian's packages, only where the commands
# are missing: a Node.js from elsewhere (nodesource bundles npm) is kept.
command -v node >/dev/null 2>&1 || pkgs+=(nodejs)
command -v npm >/dev/null 2>&1 || pkgs+=(npm)
case "${1:-}" in
  # the browser tests (tests/suite_web.sh): Debian's chromium, driven by
  # playwright-core from npm (no browser download)
  --browser) pkgs+=(chromium) ;;
  # benchmarks only: SUNDIALS IDA (bench/ida_compare.c) and MuJoCo 2.2
  # (bench/mujoco/*.c, side by side with our solver), Siconos numerics
  # (bench/siconos/fc3d_compare.c: its fc3d NSGS on our contact problems)
  --bench) pkgs+=(libsundials-dev libmujoco-dev libsiconos-numerics-dev) ;;
  # `make compose-check` (scripts/compose_check.sh): docker-compose.yml run
  # under Debian's podman (runc: crun refuses a hybrid cgroup hierarchy;
  # netavark, aardvark-dns and iptables: the compose network and its DNS),
  # with a Debian base image made by debootstrap
  --compose) pkgs+=(podman podman-compose runc netavark aardvark-dns iptables debootstrap) ;;
esac
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "deps: installing ${missing[*]}" >&2
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
