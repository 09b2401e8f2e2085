#!/usr/bin/env bash
# size-exceptions.sh prints the functions of non-test code that are over the funlen and gocognit
# limits set in .golangci.yml, ignoring its list of exceptions, as that list: one exclusion rule per
# function (path, the linters it trips, its name), each with its figures in a comment. `make lint`
# fails on a function over a limit that is not on the list; the list is the size work still to do.
#
#   scripts/size-exceptions.sh      print the list (`make lint-exceptions`)
#   scripts/size-exceptions.sh -w   rewrite it in .golangci.yml, between its BEGIN/END markers
#
# After splitting a function, run it with -w and commit: the list only shrinks. A new function over a
# limit should be split rather than listed.
# Environment: GOLANGCI_LINT (the golangci-lint binary; `make tools` installs the pinned one).
set -euo pipefail
cd "$(dirname "$0")/.."
LINT=${GOLANGCI_LINT:-$(go env GOPATH)/bin/golangci-lint}
BEGIN='# BEGIN size exceptions'
END='# END size exceptions'
grep -q "$BEGIN" .golangci.yml && grep -q "$END" .golangci.yml || {
  echo "size-exceptions: .golangci.yml has no '$BEGIN' / '$END' markers" >&2
  exit 2
}

# The configuration without the list, in the repository root: exclusion paths are relative to it.
cfg=$(mktemp .golangci-size.XXXXXX.yml)
out=$(mktemp)
trap 'rm -f "$cfg" "$out"' EXIT
awk -v b="$BEGIN" -v e="$END" 'index($0, b) { skip = 1 } !skip { print } index($0, e) { skip = 0 }' .golangci.yml >"$cfg"

rc=0
"$LINT" run -c "$cfg" --enable-only funlen,gocognit --uniq-by-line=false --max-issues-per-linter 0 \
  --max-same-issues 0 --output.text.path stdout --output.text.print-issued-lines=false \
  --output.text.colors=false --show-stats=false ./... >"$out" 2>&1 || rc=$?
if ((rc != 0 && rc != 1)); then # 1: issues found
  cat "$out" >&2
  exit "$rc"
fi

# Lines as golangci-lint prints them:
#   path:line:col: Function 'name' is too long (83 > 80) (funlen)
#   path:line:col: Function 'name' has too many statements (73 > 50) (funlen)
#   path:line:col: cognitive complexity 63 of func `(T).name` is high (> 30) (gocognit)
# become "path<TAB>name<TAB>linter<TAB>figure", sorted, then one rule per path and name.
list=$(awk '
  / \((funlen|gocognit)\)$/ {
    split($0, loc, ":"); path = loc[1]
    if (path ~ /_test\.go$/) next
    if ($0 ~ /\(funlen\)$/) {
      name = $0; sub(/^[^\047]*\047/, "", name); sub(/\047.*/, "", name)
      n = $0; sub(/ \(funlen\)$/, "", n); sub(/.*\(/, "", n); sub(/ >.*/, "", n)
      printf "%s\t%s\tfunlen\t%s %s\n", path, name, n, ($0 ~ /too long/) ? "lines" : "statements"
    } else {
      name = $0; sub(/^[^`]*`/, "", name); sub(/`.*/, "", name); sub(/.*\./, "", name)
      n = $0; sub(/.*complexity /, "", n); sub(/ .*/, "", n)
      printf "%s\t%s\tgocognit\tcognitive complexity %s\n", path, name, n
    }
  }' "$out" | sort -t $'\t' -k1,1 -k2,2 -k3,3 | awk -F '\t' '
  function flush() {
    if (key == "") return
    p = path; gsub(/\./, "\\\\.", p)
    printf "      - path: ^%s$ # %s: %s\n", p, name, figures
    printf "        linters: [%s]\n", linters
    printf "        text: \"[.\047`]%s[\047`]\"\n", name
  }
  $1 "\t" $2 != key { flush(); key = $1 "\t" $2; path = $1; name = $2; linters = $3; figures = $4; next }
  { if (index(linters, $3) == 0) linters = linters ", " $3; figures = figures ", " $4 }
  END { flush() }')

if [[ ${1:-} != -w ]]; then
  printf '%s\n' "$list"
  exit 0
fi
new=$(mktemp)
rules=$(mktemp)
trap 'rm -f "$cfg" "$out" "$new" "$rules"' EXIT
printf '%s\n' "$list" >"$rules"
awk -v b="$BEGIN" -v e="$END" -v rules="$rules" '
  index($0, b) { print; while ((getline line <rules) > 0) if (line != "") print line; skip = 1; next }
  index($0, e) { skip = 0 }
  !skip { print }' .golangci.yml >"$new"
cat "$new" >.golangci.yml
echo "size-exceptions: wrote $(grep -c '^      - path: ' <<<"$list" || true) rules to .golangci.yml"
