#!/usr/bin/env bash
# A table of hostile requests, each with its expected status and error code
# shape; the service still serves normal requests afterwards.
source "$(dirname "$0")/lib.sh"
it_init hostile
start_gateway --max-body 1048576
MID=$(post_model "$PENDULUM"); [ -n "$MID" ] || fail "no model id"
GOOD='{"model":"'$MID'","parameters":{"L":{"values":[1]}}}'
deep=$(python3 -c 'print("{\"a\":" * 200 + "1" + "}" * 200)')
huge="$IT_TMP/huge.json"; python3 -c 'print("{\"name\":\"" + "x" * 2000000 + "\"}")' > "$huge"

# check NAME EXPECTED CURL-ARGS...: status and, for errors, the error envelope
n=0
check() {
  local name=$1 want=$2; shift 2
  local out code
  out=$(curl -s -o "$IT_TMP/body" -w '%{http_code}' --max-time 10 "$@")
  code=$out
  [ "$code" = "$want" ] || fail "$name: got $code, want $want: $(head -c 300 "$IT_TMP/body")"
  if [ "$want" -ge 400 ] && [ "$want" != 405 ] || [ "$want" = 405 ]; then
    python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["error"]; assert e["code"] and e["message"] and isinstance(e["details"], list)' \
      "$IT_TMP/body" || fail "$name: not an error envelope: $(head -c 300 "$IT_TMP/body")"
  fi
  n=$((n + 1))
}
A=(-H "Authorization: Bearer $TOKEN")
J=(-H 'Content-Type: application/json')
S=$BASE/api/v1/sweeps
M=$BASE/api/v1/models
check "missing token"          401 -X POST "${J[@]}" --data "$GOOD" "$S"
check "wrong token"            401 -X POST "${J[@]}" -H 'Authorization: Bearer nope' --data "$GOOD" "$S"
check "token in wrong scheme"  401 -X POST "${J[@]}" -H "Authorization: Basic $TOKEN" --data "$GOOD" "$S"
check "cancel without token"   401 -X POST "$S/00000000-0000-0000-0000-000000000000/cancel"
check "no content type"        415 -X POST "${A[@]}" --data-binary "$GOOD" -H 'Content-Type:' "$S"
check "text/plain"             415 -X POST "${A[@]}" -H 'Content-Type: text/plain' --data "$GOOD" "$S"
check "malformed JSON"         400 -X POST "${A[@]}" "${J[@]}" --data '{"model": ' "$S"
check "trailing garbage"       400 -X POST "${A[@]}" "${J[@]}" --data '{"model":"x"} xx' "$S"
check "JSON array body"        400 -X POST "${A[@]}" "${J[@]}" --data '[1,2]' "$S"
check "empty body"             400 -X POST "${A[@]}" "${J[@]}" --data '' "$S"
check "duplicate keys"         400 -X POST "${A[@]}" "${J[@]}" --data '{"model":"a","model":"b"}' "$S"
check "NaN"                    400 -X POST "${A[@]}" "${J[@]}" --data '{"model":"'$MID'","parameters":{"L":NaN}}' "$S"
check "Infinity"               400 -X POST "${A[@]}" "${J[@]}" --data '{"model":"'$MID'","parameters":{"L":Infinity}}' "$S"
check "1e999 overflow"         400 -X POST "${A[@]}" "${J[@]}" --data '{"model":"'$MID'","parameters":{"L":1e999}}' "$S"
check "deep nesting"           400 -X POST "${A[@]}" "${J[@]}" --data "$deep" "$S"
check "deep nesting (model)"   400 -X POST "${A[@]}" "${J[@]}" --data "$deep" "$M"
check "huge body"              413 -X POST "${A[@]}" "${J[@]}" --data-binary "@$huge" "$S"
check "huge chunked body"      413 -X POST "${A[@]}" "${J[@]}" -H 'Transfer-Encoding: chunked' --data-binary "@$huge" "$S"
check "unknown top-level key"  422 -X POST "${A[@]}" "${J[@]}" --data '{"model":"'$MID'","bogus":1}' "$S"
check "unknown parameter"      422 -X POST "${A[@]}" "${J[@]}" --data '{"model":"'$MID'","parameters":{"Q":{"values":[1]}}}' "$S"
check "wrong type: values"     422 -X POST "${A[@]}" "${J[@]}" --data '{"model":"'$MID'","parameters":{"L":{"values":"abc"}}}' "$S"
check "wrong type: model"      422 -X POST "${A[@]}" "${J[@]}" --data '{"model":42}' "$S"
check "wrong type: priority"   422 -X POST "${A[@]}" "${J[@]}" --data '{"model":"'$MID'","priority":"high"}' "$S"
check "min > max"              422 -X POST "${A[@]}" "${J[@]}" --data '{"model":"'$MID'","parameters":{"L":{"min":2,"max":1,"levels":2}}}' "$S"
check "unknown design"         422 -X POST "${A[@]}" "${J[@]}" --data '{"model":"'$MID'","design":{"kind":"magic"}}' "$S"
check "too many jobs"          422 -X POST "${A[@]}" "${J[@]}" --data '{"model":"'$MID'","parameters":{"L":{"min":0.9,"max":1.1,"levels":1000},"m":{"min":1,"max":2,"levels":1000}}}' "$S"
check "sobol without samples"  422 -X POST "${A[@]}" "${J[@]}" --data '{"model":"'$MID'","design":{"kind":"sobol"},"parameters":{"L":{"min":0.9,"max":1.1}}}' "$S"
check "bad solver option"      422 -X POST "${A[@]}" "${J[@]}" --data '{"model":"'$MID'","solver":{"warp_drive":[true]}}' "$S"
check "bad response channel"   422 -X POST "${A[@]}" "${J[@]}" --data '{"model":"'$MID'","responses":[{"name":"r","channel":"nope","reduce":"max"}]}' "$S"
check "bad reduce"             422 -X POST "${A[@]}" "${J[@]}" --data '{"model":"'$MID'","responses":[{"name":"r","channel":"x","reduce":"median"}]}' "$S"
check "SQL in model id"        422 -X POST "${A[@]}" "${J[@]}" --data '{"model":"x'"'"'; DROP TABLE jobs; --"}' "$S"
check "SQL in name"            202 -X POST "${A[@]}" "${J[@]}" --data '{"model":"'$MID'","name":"x'"'"'); DROP TABLE jobs; --","parameters":{"L":{"values":[1]}}}' "$S"
check "SQL in query"           400 "$S?limit=1;DROP%20TABLE%20jobs"
check "SQL in status filter"   200 "$S?status=x%27%20OR%201=1--"
check "SQL in path"            404 "$S/1%27%20OR%20%271%27=%271"
check "invalid mechanism"      422 -X POST "${A[@]}" "${J[@]}" --data '{"name":"bad","dimension":2,"bodies":[]}' "$M"
check "mechanism unknown key"  422 -X POST "${A[@]}" "${J[@]}" --data '{"name":"bad","dimension":2,"frobnicate":1}' "$M"
check "unknown sweep"          404 "$S/00000000-0000-0000-0000-000000000000"
check "malformed sweep id"     404 "$S/not-a-uuid"
check "unknown job"            404 "$BASE/api/v1/jobs/999999999"
check "negative job id"        404 "$BASE/api/v1/jobs/-1"
check "unknown model"          404 "$M/0123456789abcdef"
check "unknown route"          404 "$BASE/api/v1/nothing"
check "path traversal"         404 "$BASE/../../etc/passwd" --path-as-is
check "DELETE a sweep"         405 -X DELETE "${A[@]}" "$S"
check "PUT a model"            405 -X PUT "${A[@]}" "${J[@]}" --data '{}' "$M"
check "GET on cancel"          405 "$S/00000000-0000-0000-0000-000000000000/cancel"
check "bad limit"              400 "$S?limit=-5"
check "huge offset type"       400 "$S?offset=abc"
check "cancel unknown sweep"   404 -X POST "${A[@]}" "$S/00000000-0000-0000-0000-000000000000/cancel"
check "compare without model"  400 "$BASE/api/v1/compare/deactivation"
check "bad result format"      400 "$BASE/api/v1/jobs/1/result?format=xml"
check "table: limit too large"  400 "$S/00000000-0000-0000-0000-000000000000/table?limit=100000"
check "table: after not a number" 400 "$S/00000000-0000-0000-0000-000000000000/table?after=1e9"
check "table: unknown sweep"    404 "$S/00000000-0000-0000-0000-000000000000/table"
check "table: bad metrics"      400 "$S/00000000-0000-0000-0000-000000000000/table?metrics=x%27;DROP"
check "samples: no jobs"        400 "$BASE/api/v1/samples"
check "samples: SQL in jobs"    400 "$BASE/api/v1/samples?jobs=1)%20OR%201=1--"
check "samples: too many jobs"  400 "$BASE/api/v1/samples?jobs=$(seq -s, 1 21)"
check "samples: huge channels"  400 "$BASE/api/v1/samples?jobs=1&channels=$(python3 -c 'print(",".join(["c"] * 65))')"
check "samples: unknown jobs"   200 "$BASE/api/v1/samples?jobs=1,999999999999&channels=%22%5C%00x"
[ "$(sql "SELECT count(*) FROM pg_tables WHERE tablename = 'jobs'")" = 1 ] || fail "jobs table gone"
ok "$n hostile requests answered as expected"
# security headers
hdr=$(curl -s -D - -o /dev/null "$BASE/api/v1/sweeps")
echo "$hdr" | grep -qi '^Cache-Control: no-store' || fail "Cache-Control"
echo "$hdr" | grep -qi '^X-Content-Type-Options: nosniff' || fail "nosniff"
curl -s -D - -o /dev/null "$BASE/" | grep -qi '^Content-Security-Policy:' || fail "CSP on HTML"
ok "security headers"
# still fine
get /healthz | grep -q '"status":"ok"' || fail "healthz after hostile requests"
api POST /api/v1/sweeps "$GOOD"; [ "$STATUS" = 202 ] || fail "normal request after hostile ones: $STATUS"
kill -0 "$GW_PID" || fail "gateway died"
ok "service still serves normal requests"
