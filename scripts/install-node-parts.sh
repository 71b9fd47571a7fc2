#!/usr/bin/env bash
# Installs the Node MCP servers and the official MCP SDK that tests drive as
# real peers into the test cache, exactly as scripts/node/package-lock.json
# pins them (every transitive package by version and integrity hash).
# scripts/lib/npm-cache.sh skips npm when a stamp says this lockfile is in place.
#
# Usage: scripts/install-node-parts.sh
# Env:   TOOLGATE_TEST_CACHE (default ~/.cache/toolgate-test)
set -euo pipefail

# Bump the directory key when a change must not reuse an older install in place.
NODE_KEY=node-v2
PACKAGES=(
	@modelcontextprotocol/server-everything@2026.8.31
	@modelcontextprotocol/server-filesystem@2026.8.31
	@modelcontextprotocol/server-memory@2026.8.31
	@modelcontextprotocol/server-sequential-thinking@2026.8.31
	@modelcontextprotocol/sdk@1.32.2
	@modelcontextprotocol/ext-tasks@0.2.2
	@modelcontextprotocol/client@2.4.0
)
# The executables tests start; each must exist after an install.
BINS=(mcp-server-everything mcp-server-filesystem mcp-server-memory mcp-server-sequential-thinking)

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/npm-cache.sh
. "$here/lib/npm-cache.sh"
root=${TOOLGATE_TEST_CACHE:-$HOME/.cache/toolgate-test}
prefix=$root/$NODE_KEY

npm_parts_report() {
	local p
	for p in "${PACKAGES[@]}"; do
		printf '%-58s %-12s %s\n' "$p" "$1" "$prefix/node_modules/${p%@*}"
	done
}

npm_parts_present() {
	local b
	for b in "${BINS[@]}"; do
		[[ -x $prefix/node_modules/.bin/$b ]] || return 1
	done
}

npm_parts_verify() {
	if ! npm_parts_present; then
		echo "install-node-parts: npm finished but $prefix/node_modules/.bin lacks one of: ${BINS[*]}" >&2
		return 1
	fi
}

npm_cache_install install-node-parts "$here/node" "$prefix" "${PACKAGES[@]}"
