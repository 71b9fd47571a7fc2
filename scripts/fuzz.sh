#!/usr/bin/env bash
# Runs every fuzz target in the repository for the given time (default 20s),
# one after another: go test -fuzz takes one target per run.
#
# Go 1.26's fuzz coordinator can fail a run with a bare "context deadline
# exceeded" at the end of -fuzztime although nothing was found (golang/go#75804,
# fixed in Go 1.27). A run fails here when go test wrote a failing input or
# failed for any other reason; that one message alone is reported and passed.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${1:-20s}
failed=0
run() { # dir package
  local dir=$1 pkg=$2 target out status
  for target in $(cd "$dir" && go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
    echo "fuzz: $pkg $target ($fuzztime)"
    out=$(mktemp)
    set +e
    # Minimising a newly interesting input may take a minute by default;
    # bound it so the time budget is spent fuzzing.
    (cd "$dir" && go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime 2s "$pkg") 2>&1 | tee "$out"
    status=${PIPESTATUS[0]}
    set -e
    if [ "$status" -ne 0 ]; then
      if ! grep -q 'Failing input written to' "$out" &&
         [ "$(grep -c -- '--- FAIL' "$out")" -eq 1 ] &&
         grep -A1 -- "--- FAIL: $target " "$out" | grep -qx '    context deadline exceeded'; then
        echo "fuzz: $target: the fuzz time ended in golang/go#75804's race; nothing was found"
      else
        echo "fuzz: $target FAILED"
        failed=1
      fi
    fi
    rm -f "$out"
  done
}
for pkg in $(go list -f '{{if .TestGoFiles}}{{.ImportPath}}{{end}}' ./...); do
  files=$(go list -f '{{range .TestGoFiles}}{{$.Dir}}/{{.}} {{end}}' "$pkg")
  grep -lq '^func Fuzz' $files 2>/dev/null && run . "$pkg"
done
for pkg in $(cd sdk && go list -f '{{if .TestGoFiles}}{{.ImportPath}}{{end}}' ./...); do
  files=$(cd sdk && go list -f '{{range .TestGoFiles}}{{$.Dir}}/{{.}} {{end}}' "$pkg")
  grep -lq '^func Fuzz' $files 2>/dev/null && run sdk "$pkg"
done
if [ "$failed" -ne 0 ]; then
  echo "fuzz: some targets failed"
  exit 1
fi
echo "fuzz: done"
