#!/usr/bin/env bash
# step.sh runs one step of `make test` quietly: the command's output (stdout and stderr) is kept and
# printed in full only when the command fails. On success it prints one line, the step's name, "ok"
# and its wall time, or, when the command printed its own summary (a line starting with
# "<name> ok"), that line with the wall time and every line after it (skipped tests, one a line).
#
#   scripts/step.sh NAME COMMAND [ARG...]
#
# The exit status is the command's, so `make` stops at a failing step. V=1 in the environment (or
# `make test V=1`) also streams the command's output as it runs.
set -uo pipefail
name=$1
shift
log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$(date +%s.%N)
if [[ -n "${V:-}" && "${V:-}" != 0 ]]; then
  "$@" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
else
  "$@" >"$log" 2>&1
  rc=$?
fi
took=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1fs", e - s }')
if ((rc != 0)); then
  cat "$log"
  echo "$name FAIL (exit status $rc, $took)"
  exit "$rc"
fi
if grep -q "^$name ok" "$log"; then
  awk -v name="$name" -v took="$took" '
    !on && index($0, name " ok") == 1 { on = 1; print $0 " (" took ")"; next }
    on' "$log"
else
  echo "$name ok ($took)"
fi
