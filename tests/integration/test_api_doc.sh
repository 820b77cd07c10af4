#!/usr/bin/env bash
# api/openapi.yaml and the gateway's route table describe the same endpoints;
# api/sweep.schema.json is valid JSON.
source "$(dirname "$0")/lib.sh"
python3 - "$ROOT" <<'PY' || fail "openapi.yaml and gateway/routes.c differ"
import re, sys
root = sys.argv[1]
routes = set()
for m in re.finditer(r'\{\s*"(GET|POST)",\s*"([^"]+)"', open(root + "/gateway/routes.c").read()):
    routes.add((m.group(1).lower(), m.group(2).replace("*", "{id}")))
doc, path = set(), None
for line in open(root + "/api/openapi.yaml"):
    m = re.match(r"^  (/\S+):\s*$", line)
    if m: path = m.group(1); continue
    m = re.match(r"^    (get|post|put|delete):", line)
    if m and path: doc.add((m.group(1), path))
if routes != doc:
    print("only in code:", sorted(routes - doc)); print("only in openapi:", sorted(doc - routes)); sys.exit(1)
PY
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$ROOT/api/sweep.schema.json" || fail "sweep.schema.json"
ok "openapi.yaml lists exactly the $(grep -c '{ "\(GET\|POST\)"' "$ROOT/gateway/routes.c") routes of gateway/routes.c"
