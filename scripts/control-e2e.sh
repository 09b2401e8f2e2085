#!/usr/bin/env bash
# End-to-end test of cmd/cosmostest's control API from outside Go, as a test in any language would
# drive it: bash, curl and openssl only (the Cosmos DB requests are signed here with openssl).
# Starts the binary with two regions, two partitions per container and the control API on free
# ports, then drives a 429 storm, a split and a region outage through the control API and checks
# what a client sees (statuses, the service's header spelling, request counts).
#
# Usage: scripts/control-e2e.sh   (COSMOSTEST_BIN=path uses a built binary; otherwise it builds one)
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
pid=""
cleanup() {
	if [[ -n "$pid" ]]; then
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
fail() {
	echo "control-e2e: FAIL: $*" >&2
	if [[ -f "$work/out" ]]; then sed 's/^/  server: /' "$work/out" >&2; fi
	exit 1
}

bin="${COSMOSTEST_BIN:-}"
if [[ -z "$bin" ]]; then
	bin="$work/cosmostest"
	(cd "$root" && "${GO:-go}" build -o "$bin" ./cmd/cosmostest) || fail "build"
fi

TOKEN="control-token-$RANDOM$RANDOM"
KEY='C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=='
"$bin" --port 0 --protocol http --regions "West US,East US" --partitions 2 \
	--control-port 0 --control-token "$TOKEN" --log-level quiet >"$work/out" 2>&1 &
pid=$!
for _ in $(seq 1 100); do
	grep -q "Started" "$work/out" 2>/dev/null && break
	sleep 0.1
done
grep -q "Started" "$work/out" || fail "the server did not start"
port="$(sed -n 's/.*listening on [^ ]*:\([0-9]*\)\/,.*/\1/p' "$work/out")"
east="$(sed -n 's/.*region "East US" at [^ ]*:\([0-9]*\)\/.*/\1/p' "$work/out")"
ctl="$(sed -n 's/.*control API on [^ ]*:\([0-9]*\)\/.*/\1/p' "$work/out")"
[[ -n "$port" && -n "$east" && -n "$ctl" ]] || fail "could not read the ports from the start-up lines"

hexkey="$(printf %s "$KEY" | base64 -d | xxd -p -c 256)"
lower() { printf %s "$1" | tr '[:upper:]' '[:lower:]'; }
urlencode() { printf %s "$1" | sed -e 's/%/%25/g' -e 's/&/%26/g' -e 's/=/%3D/g' -e 's/+/%2B/g' -e 's/\//%2F/g'; }

# cosmos PORT METHOD PATH TYPE LINK [BODY] [HEADER...]: a signed request; sets $status, $headers
# (the raw response headers, as sent) and $body.
cosmos() {
	local p="$1" method="$2" path="$3" type="$4" link="$5" data="${6:-}"
	shift 6 || shift $#
	local date sig
	date="$(LC_ALL=C date -u '+%a, %d %b %Y %H:%M:%S GMT')"
	sig="$(printf '%s\n%s\n%s\n%s\n\n' "$(lower "$method")" "$type" "$link" "$(lower "$date")" |
		openssl dgst -sha256 -mac HMAC -macopt "hexkey:$hexkey" -binary | base64 | tr -d '\n')"
	local args=(-s -o "$work/body" -D "$work/headers" -w '%{http_code}' -X "$method"
		-H "x-ms-date: $date" -H "x-ms-version: 2020-11-05"
		-H "authorization: $(urlencode "type=master&ver=1.0&sig=$sig")")
	for h in "$@"; do args+=(-H "$h"); done
	if [[ -n "$data" ]]; then args+=(-H "Content-Type: application/json" --data "$data"); fi
	status="$(curl "${args[@]}" "http://127.0.0.1:$p/$path")" || status="curl-exit-$?"
	headers="$(tr -d '\r' <"$work/headers" 2>/dev/null || true)"
	body="$(cat "$work/body" 2>/dev/null || true)"
}

# control METHOD PATH [BODY] [TOKEN]: a control API request; sets $status and $body.
control() {
	local args=(-s -o "$work/cbody" -w '%{http_code}' -X "$1" -H "Authorization: Bearer ${4:-$TOKEN}")
	if [[ -n "${3:-}" ]]; then args+=(-H "Content-Type: application/json" --data "$3"); fi
	status="$(curl "${args[@]}" "http://127.0.0.1:$ctl/$2")" || status="curl-exit-$?"
	body="$(cat "$work/cbody" 2>/dev/null || true)"
}

expect() { [[ "$status" == "$1" ]] || fail "$2: status $status, want $1: $body"; }
has_header() { grep -q "^$1" <<<"$headers" || fail "$2: no header line '$1' in: $headers"; }

# Set-up through the REST API.
cosmos "$port" POST dbs dbs "" '{"id":"db"}'
expect 201 "create database"
cosmos "$port" POST dbs/db/colls colls dbs/db '{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}}'
expect 201 "create container"
cosmos "$port" POST dbs/db/colls/c/docs docs dbs/db/colls/c '{"id":"1","pk":"a"}' 'x-ms-documentdb-partitionkey: ["a"]'
expect 201 "create item"
has_header "etag: " "create item"
has_header "x-ms-session-token: " "create item"
has_header "x-ms-alt-content-path: dbs/db/colls/c" "create item"

# The control API refuses a wrong token and the account key.
control GET requests "" wrong
expect 401 "control API with a wrong token"
control GET requests "" "$KEY"
expect 401 "control API with the account key"

# A 429 storm: three throttled reads, then the read is served.
control POST faults '{"operation":"read_item","status":429,"retryAfterMs":5,"times":3}'
expect 201 "install the 429 fault"
control DELETE requests
expect 204 "reset the request counts"
for i in 1 2 3; do
	cosmos "$port" GET dbs/db/colls/c/docs/1 docs dbs/db/colls/c/docs/1 "" 'x-ms-documentdb-partitionkey: ["a"]'
	expect 429 "throttled read $i"
	has_header "x-ms-retry-after-ms: 5" "throttled read $i"
	has_header "x-ms-substatus: 3200" "throttled read $i"
done
cosmos "$port" GET dbs/db/colls/c/docs/1 docs dbs/db/colls/c/docs/1 "" 'x-ms-documentdb-partitionkey: ["a"]'
expect 200 "the read after the storm"
control GET faults
grep -q '"hits":3' <<<"$body" || fail "fault hits: $body"
control GET 'requests?operation=read_item&database=db&container=c'
[[ "$body" == *'"count":4'* ]] || fail "read_item count: $body"
control DELETE faults
expect 204 "clear the faults"

# A split: three ranges, the old range id is gone (410), the item is still there.
control POST split '{"database":"db","container":"c","range":"0"}'
expect 204 "split range 0"
cosmos "$port" GET dbs/db/colls/c/pkranges pkranges dbs/db/colls/c
expect 200 "read the partition key ranges"
[[ "$body" == *'"_count":3'* ]] || fail "ranges after the split: $body"
cosmos "$port" GET dbs/db/colls/c/docs docs dbs/db/colls/c "" 'x-ms-documentdb-partitionkeyrangeid: 0'
expect 410 "the document feed of the range that split"
has_header "x-ms-substatus: 1002" "the document feed of the range that split"
cosmos "$port" GET dbs/db/colls/c/docs docs dbs/db/colls/c
expect 200 "the document feed"
[[ "$body" == *'"_count":1'* ]] || fail "document feed: $body"

# A region outage: East US refuses connections, then comes back.
cosmos "$east" GET "" "" ""
expect 200 "East US before the outage"
control POST region '{"name":"East US","down":true}'
expect 204 "take East US down"
cosmos "$east" GET "" "" ""
[[ "$status" == curl-exit-* || "$status" == 000 ]] || fail "East US while down answered $status"
control POST region '{"name":"Mars","down":true}'
expect 400 "an unknown region"
control POST region '{"name":"East US","down":false}'
expect 204 "bring East US back"
cosmos "$east" GET "" "" ""
expect 200 "East US after the outage"

# The server clock moves; signed dates are judged by the wall clock, so requests still pass.
control POST advance '{"by":"2h"}'
expect 204 "advance the clock"
cosmos "$port" GET dbs/db/colls/c/docs/1 docs dbs/db/colls/c/docs/1 "" 'x-ms-documentdb-partitionkey: ["a"]'
expect 200 "a read after the clock moved"

echo "control-e2e: ok"
