#!/usr/bin/env bash
# API compatibility gate: compares the exported API of every public package of the module with the
# committed baseline (api/baseline.apidiff, export data written by golang.org/x/exp/cmd/apidiff -m)
# and fails on an incompatible change (an exported identifier removed, a signature or a type changed,
# a method added to an interface users may implement, a package removed). Additions pass.
# internal/ packages are not compared (apidiff skips them), nor main packages (examples/, cmd/):
# nothing can import them.
#
#   scripts/api.sh check      `make api`: one line on success; on failure each change by package and
#                             identifier, and how to accept it
#   scripts/api.sh baseline   `make api-baseline`: rewrites the baseline from the code; refuses while an
#                             incompatible change is not named in CHANGELOG.md's [Unreleased] section
#
# Environment: GO (go command), APIDIFF (the apidiff binary; `make tools` installs the pinned one),
# API_ROOT (the module's directory; default: this script's parent).
set -euo pipefail
cd "${API_ROOT:-$(dirname "$0")/..}"
GO=${GO:-go}
APIDIFF=${APIDIFF:-$("$GO" env GOPATH)/bin/apidiff}
BASELINE=api/baseline.apidiff
CHANGELOG=CHANGELOG.md
mod=$(awk '$1 == "module" { print $2; exit }' go.mod)

if [[ ! -x "$APIDIFF" ]]; then
  echo "api: $APIDIFF not found: run \`make tools\` (installs golang.org/x/exp/cmd/apidiff)" >&2
  exit 2
fi

# apidiff runs the apidiff binary, dropping its "Ignoring internal package" notes so success is quiet.
apidiff() {
  local err rc=0
  err=$(mktemp)
  "$APIDIFF" "$@" 2>"$err" || rc=$?
  grep -v '^Ignoring internal package' "$err" >&2 || true
  rm -f "$err"
  return "$rc"
}

# incompatible prints the incompatible changes against the baseline, one per line as
# "<package>\t<identifier>\t<apidiff's message>" (identifier empty for a removed package).
incompatible() {
  local out
  out=$(apidiff -m -incompatible "$BASELINE" "$mod") || return 2
  printf '%s\n' "$out" | awk -v mod="$mod" '
    /^- package / {                                   # - package <path>: removed
      p = substr($0, 11); sub(/:.*/, "", p); sub("^" mod "/", "", p)
      if (p !~ /^(examples|cmd)(\/|$)/) printf "%s\t\t%s\n", p, substr($0, 3)
      next
    }
    /^- \.\// {                                       # - ./<pkg>.<Ident>[.<part>]: <message>
      s = substr($0, 5); i = index(s, ".")
      p = substr(s, 1, i - 1); rest = substr(s, i + 1)
      id = rest; sub(/: .*/, "", id)
      msg = rest; sub(/^[^:]*: /, "", msg)
      if (p !~ /^(examples|cmd)(\/|$)/) printf "%s\t%s\t%s\n", p, id, msg
    }'
}

# unreleased prints CHANGELOG.md's [Unreleased] section.
unreleased() {
  [[ -f $CHANGELOG ]] || return 0
  awk '/^## \[Unreleased\]/ { on = 1; next } /^## \[/ { on = 0 } on' "$CHANGELOG"
}

case "${1:-check}" in
check)
  if [[ ! -f $BASELINE ]]; then
    echo "api: no baseline $BASELINE: run \`make api-baseline\` and commit it" >&2
    exit 1
  fi
  changes=$(incompatible) || exit 1
  if [[ -z $changes ]]; then
    echo "api ok: exported API compatible with $BASELINE"
    exit 0
  fi
  echo "api: incompatible change to the exported API of $mod (baseline $BASELINE):" >&2
  while IFS=$'\t' read -r p id msg; do
    if [[ -z $id ]]; then
      echo "  package $p: removed" >&2
    else
      echo "  package $p, identifier $id: $msg" >&2
    fi
  done <<<"$changes"
  cat >&2 <<MSG
To accept it: name each identifier above (as package.Identifier, e.g. \`repository.Options\`) with its
one-line migration under "## [Unreleased]" in $CHANGELOG, run \`make api-baseline\`, and commit
$CHANGELOG and $BASELINE together. After v1.0.0 an incompatible change means a new major version.
MSG
  exit 1
  ;;
baseline)
  if [[ -f $BASELINE ]]; then
    changes=$(incompatible) || exit 1
    section=$(unreleased)
    missing=()
    while IFS=$'\t' read -r p id msg; do
      [[ -z $p ]] && continue
      name=$p
      [[ -n $id ]] && name="$p.${id%%[.,]*}"
      if ! grep -qF -- "$name" <<<"$section"; then
        missing+=("  $name: $msg")
      fi
    done <<<"$changes"
    if ((${#missing[@]})); then
      echo "api: these incompatible changes are not named in $CHANGELOG's [Unreleased] section:" >&2
      printf '%s\n' "${missing[@]}" >&2
      echo "Add an entry naming each (with its one-line migration), then run \`make api-baseline\` again." >&2
      exit 1
    fi
  fi
  mkdir -p "$(dirname "$BASELINE")"
  apidiff -m -w "$BASELINE.tmp" "$mod" || { rm -f "$BASELINE.tmp"; exit 1; }
  mv "$BASELINE.tmp" "$BASELINE"
  echo "api: wrote $BASELINE"
  ;;
*)
  echo "usage: scripts/api.sh check|baseline" >&2
  exit 2
  ;;
esac
