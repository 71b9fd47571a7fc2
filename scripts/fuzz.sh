#!/usr/bin/env bash
# Runs every fuzz target in the repository for the given time (default 20s),
# one after another: go test -fuzz takes one target per run.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${1:-20s}
run() { # dir package
  local dir=$1 pkg=$2
  for target in $(cd "$dir" && go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
    echo "fuzz: $pkg $target ($fuzztime)"
    # Minimising a newly interesting input may take up to a minute by default;
    # if -fuzztime ends meanwhile, go test reports "context deadline exceeded".
    (cd "$dir" && go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime 2s "$pkg")
  done
}
for pkg in $(go list -f '{{if .TestGoFiles}}{{.ImportPath}}{{end}}' ./... ) ; do
  grep -lq '^func Fuzz' $(go list -f '{{range .TestGoFiles}}{{$.Dir}}/{{.}} {{end}}' "$pkg") 2>/dev/null && run . "$pkg"
done
for pkg in $(cd sdk && go list -f '{{if .TestGoFiles}}{{.ImportPath}}{{end}}' ./...); do
  files=$(cd sdk && go list -f '{{range .TestGoFiles}}{{$.Dir}}/{{.}} {{end}}' "$pkg")
  grep -lq '^func Fuzz' $files 2>/dev/null && run sdk "$pkg"
done
echo "fuzz: done"
