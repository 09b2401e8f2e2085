#!/usr/bin/env bash
# Runs the azcosmos module's own emulator test suite (its emulator_*_test.go files, written by the
# SDK team against the real emulator) against cmd/cosmostest over HTTPS, as the SDK's CI runs it
# against the emulator: an independent check of cosmostest's fidelity that nobody here wrote.
#
#   1. finds the azcosmos module this repository requires in the module cache (downloading it
#      through the module proxy if absent) and copies what its emulator tests need into a temporary
#      directory: the package's non-test files, internal/ (epk), emulator_test.go (the helpers),
#      emulator_*_test.go, tracing_test.go (the span validator), go.mod and go.sum;
#   2. builds cmd/cosmostest and starts it on port 8081, which the tests hard-code
#      (https://localhost:8081/), with the flags the SDK's CI starts the emulator with that matter
#      here (/consistency=Strong; AAD tokens are accepted by cmd/cosmostest), writing its
#      certificate to a file the tests trust through SSL_CERT_FILE (TestAAD's client verifies TLS);
#   3. runs the tests with EMULATOR=1 and fails on any failure that is not on ALLOWED_FAILURES, on a
#      test that did not run, or on an allowed failure that now passes (so the list stays honest).
#
# Needs only Go and the module proxy. Fails clearly when port 8081 is taken.
# Usage: scripts/emulator-suite.sh   (run from anywhere; `make emulator-suite`)
set -euo pipefail

# Tests that need what cosmostest deliberately lacks, each with the reason. Keep this short.
# Empty: every test of the suite passes. A test added here needs a comment saying what cosmostest
# deliberately lacks.
ALLOWED_FAILURES=()
# Tests that are not part of the suite run against the routing gateway: they need the emulator's
# compute gateway, a second endpoint on port 8903 with other id rules.
EXCLUDED='^TestItemIdEncodingComputeGW$'
# Number of tests that must run (azcosmos v1.5.0 has 43 emulator tests; one is excluded). A new
# azcosmos version changes it: review the allow-list against the new tests, then update it.
EXPECTED_TESTS=42
PORT=8081
MODULE=github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos

root="$(cd "$(dirname "$0")/.." && pwd)"
GO="${GO:-go}"
work="$(mktemp -d)"
server_pid=""
cleanup() {
	if [[ -n "$server_pid" ]]; then
		kill "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
	fi
	chmod -R u+w "$work" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
fail() {
	echo "emulator-suite: FAIL: $*" >&2
	exit 1
}

# The port first: the tests cannot be pointed elsewhere.
if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
	fail "port $PORT is in use (an emulator or another cosmostest?). The azcosmos emulator tests hard-code https://localhost:$PORT/; stop whatever listens there and run again."
fi

# 1. The module (the version this repository's go.mod requires).
version="$(cd "$root" && $GO list -m -f '{{.Version}}' "$MODULE")"
dir="$(cd "$root" && $GO mod download -json "$MODULE@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')"
[[ -n "$dir" && -d "$dir" ]] || fail "could not download $MODULE@$version"
suite="$work/azcosmos"
mkdir -p "$suite"
for f in "$dir"/*.go; do
	case "$f" in *_test.go) ;; *) cp "$f" "$suite/" ;; esac
done
cp "$dir"/emulator_test.go "$dir"/emulator_*_test.go "$dir"/tracing_test.go "$dir"/go.mod "$dir"/go.sum "$suite/"
(cd "$dir" && find internal -name '*.go' ! -name '*_test.go' -print) | while read -r f; do
	mkdir -p "$suite/$(dirname "$f")"
	cp "$dir/$f" "$suite/$f"
done
chmod -R u+w "$suite"

# Compile the tests while nothing listens yet (the first run downloads the module's own
# dependencies, as pinned by its go.sum).
(cd "$suite" && GOWORK=off $GO test -mod=readonly -c -o "$work/suite.test" .) || fail "the azcosmos emulator tests do not build"

# 2. The server.
(cd "$root" && $GO build -o "$work/cosmostest" ./cmd/cosmostest) || fail "cmd/cosmostest does not build"
"$work/cosmostest" --protocol https --port "$PORT" --log-level warn --consistency Strong \
	--export-cert "$work/emulator.pem" >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 100); do
	grep -q Started "$work/server.log" 2>/dev/null && break
	kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; server_pid=""; fail "cmd/cosmostest did not start (is port $PORT taken?)"; }
	sleep 0.1
done
grep -q Started "$work/server.log" || fail "cmd/cosmostest did not report Started within 10s"

# 3. The tests.
echo "emulator-suite: $MODULE@$version emulator tests against cmd/cosmostest on https://localhost:$PORT/"
set +e
(cd "$suite" && EMULATOR=1 SSL_CERT_FILE="$work/emulator.pem" "$work/suite.test" \
	-test.v -test.count=1 -test.timeout=5m -test.skip "$EXCLUDED") >"$work/test.log" 2>&1
rc=$?
set -e

# Top-level results only (subtests are indented). Plain loops, no mapfile: bash 3.2 runs this too.
results() { sed -n "s/^--- $1: \\([^ ]*\\) .*/\\1/p" "$work/test.log"; }
is_allowed() {
	local t
	for t in ${ALLOWED_FAILURES[@]+"${ALLOWED_FAILURES[@]}"}; do [[ "$t" == "$1" ]] && return 0; done
	return 1
}
problems=""
problem() { problems="$problems$1"$'\n'; }
npassed=0
nfailed=0
while read -r t; do
	[[ -n "$t" ]] || continue
	npassed=$((npassed + 1))
	if is_allowed "$t"; then problem "$t passes now: remove it from ALLOWED_FAILURES in $0"; fi
done < <(results PASS)
while read -r t; do
	[[ -n "$t" ]] || continue
	nfailed=$((nfailed + 1))
	is_allowed "$t" || problem "$t failed"
done < <(results FAIL)
while read -r t; do
	[[ -n "$t" ]] && problem "$t was skipped"
done < <(results SKIP)
if grep -qE '^panic:|^FAIL.*\[build failed\]|test timed out' "$work/test.log"; then
	problem "the test binary panicked, timed out or did not build"
fi
ran=$((npassed + nfailed))
((ran == EXPECTED_TESTS)) || problem "$ran tests ran, want $EXPECTED_TESTS"
if ((rc != 0 && nfailed == 0)); then
	problem "the test binary exited with $rc without a failing test"
fi

summary="$npassed/$ran passed, $nfailed failed (allowed to fail: ${ALLOWED_FAILURES[*]:-none})"
if [[ -n "$problems" ]]; then
	echo "emulator-suite: $summary"
	echo "---- test output ----" >&2
	grep -vE '^(=== (RUN|PAUSE|CONT)|--- PASS)' "$work/test.log" >&2 || true
	echo "---- cosmostest log ----" >&2
	cat "$work/server.log" >&2
	printf '%s' "$problems" | sed 's/^/emulator-suite: /' >&2
	fail "the azcosmos emulator suite does not pass against cmd/cosmostest"
fi
echo "emulator-suite ok: $summary"
