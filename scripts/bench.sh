#!/usr/bin/env bash
# make bench: the Go benchmarks, then the driver that measures the gateway
# against a direct call to the same MCP server in the same run. Prints tables
# that go into BENCHMARKS.md as they are.
set -euo pipefail
cd "$(dirname "$0")/.."
cache=${TOOLGATE_TEST_CACHE:-$HOME/.cache/toolgate-test}
everything=$(ls -d "$cache"/node-*/node_modules/.bin/mcp-server-everything 2>/dev/null | tail -1)
if [ -z "$everything" ]; then
  echo "bench: mcp-server-everything not found under $cache; run make test-deps" >&2
  exit 1
fi

echo "## Go benchmarks"
echo '```'
go test -run '^$' -bench . -benchmem -count 1 ./core/search/ ./cmd/toolgate/ | grep -E '^(Benchmark|ok|PASS)' || true
echo '```'
echo
echo "## Search quality (labelled queries over real MCP servers' catalogs)"
echo
# Tuning and held-out halves (held-out whole, then its first and fresh sets),
# filter_tools and plain BM25, with and without 10,000 distractor tools.
# Tuning misses: go test -run TestQuality -v ./core/search
go run ./scripts/benchdriver/quality -distractors 10000 core/search/testdata
echo
echo "## Gateway against a direct call"
echo
go run ./scripts/benchdriver -everything "$everything" -toolgate bin/toolgate -hello bin/hello-plugin
