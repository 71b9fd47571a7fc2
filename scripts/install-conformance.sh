#!/usr/bin/env bash
# Installs the official MCP conformance suite into the test cache, exactly as
# scripts/conformance/package-lock.json pins it, with the Node 22 it needs
# (fs.globSync; the machines run Node 20). The npm package "node" brings that
# binary from the npm registry. It lives in a prefix of its own: put first on
# a PATH, its node would run every other Node part too.
# scripts/lib/npm-cache.sh skips npm when a stamp says this lockfile is in place.
#
# Usage: scripts/install-conformance.sh
# Env:   TOOLGATE_TEST_CACHE (default ~/.cache/toolgate-test)
set -euo pipefail

# Bump the directory key when a change must not reuse an older install in place.
CONFORMANCE_KEY=conformance-v1
PACKAGES=(
	@modelcontextprotocol/conformance@0.1.16
	node@22.22.0
)

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/npm-cache.sh
. "$here/lib/npm-cache.sh"
root=${TOOLGATE_TEST_CACHE:-$HOME/.cache/toolgate-test}
prefix=$root/$CONFORMANCE_KEY
suite=$prefix/node_modules/@modelcontextprotocol/conformance/dist/index.js
node=$prefix/node_modules/node/bin/node

npm_parts_report() {
	printf '%-58s %-12s %s\n' "${PACKAGES[0]}" "$1" "$suite"
	printf '%-58s %-12s %s\n' "${PACKAGES[1]}" "$1" "$node"
}

npm_parts_present() {
	[[ -f $suite && -x $node ]]
}

npm_parts_verify() {
	if ! npm_parts_present; then
		echo "install-conformance: npm finished but $suite or $node is missing" >&2
		return 1
	fi
	if ! "$node" -e 'process.exit(typeof require("fs").globSync === "function" ? 0 : 1)'; then
		echo "install-conformance: $node ($("$node" --version)) lacks fs.globSync, which the suite needs" >&2
		return 1
	fi
}

npm_cache_install install-conformance "$here/conformance" "$prefix" "${PACKAGES[@]}"
