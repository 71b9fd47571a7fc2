#!/usr/bin/env bash
# Captures the tool catalogs of real MCP servers from npm into
# core/search/testdata/catalogs, the fixed test data of the search quality
# evaluation. The servers are installed exactly as scripts/catalogs/
# package-lock.json pins them, into the test cache (never into the checkout),
# then scripts/catalogs/capture.mjs starts each over stdio and writes what its
# tools/list returns. Tests read the committed JSON and never run this.
#
# Usage: scripts/capture-catalogs.sh [SHORT-NAME...]   (default: all servers)
# Env:   TOOLGATE_TEST_CACHE (default ~/.cache/toolgate-test)
set -euo pipefail

# Bump the key when a change must not reuse an older install in place.
KEY=catalogs-v1

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
pins=$here/catalogs
root=${TOOLGATE_TEST_CACHE:-$HOME/.cache/toolgate-test}
prefix=$root/$KEY
stamp=$prefix/.installed
want=$(cat "$pins/package.json" "$pins/package-lock.json" | sha256sum)

mkdir -p "$prefix"
exec 9>"$prefix/.install.lock"
flock 9
if [[ ! -f $stamp || $(<"$stamp") != "$want" ]]; then
	rm -f "$stamp"
	cp "$pins/package.json" "$pins/package-lock.json" "$prefix/"
	# Install scripts would download browsers or compile native modules;
	# listing tools needs neither.
	npm ci --prefix "$prefix" --ignore-scripts --no-audit --no-fund --loglevel=error >&2
	printf '%s\n' "$want" >"$stamp"
fi

NODE_MODULES=$prefix/node_modules OUT=$here/../core/search/testdata/catalogs \
	node "$pins/capture.mjs" "$@"
