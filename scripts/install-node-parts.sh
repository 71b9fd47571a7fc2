#!/usr/bin/env bash
# Installs the Node MCP servers and the official MCP SDK that tests drive as
# real peers into the test cache, exactly as scripts/node/package-lock.json
# pins them (every transitive package by version and integrity hash).
#
# A stamp file records the lockfile installed; when it matches, npm is not
# started at all, which keeps a warm run well under a second.
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
lock=$here/node
root=${TOOLGATE_TEST_CACHE:-$HOME/.cache/toolgate-test}
prefix=$root/$NODE_KEY
stamp=$prefix/.installed
want=$(printf '%s\n' "${PACKAGES[@]}"; cat "$lock/package.json" "$lock/package-lock.json" | sha256sum)

# The lockfile and the pins above must name the same versions.
for p in "${PACKAGES[@]}"; do
	if ! grep -q "\"${p%@*}\": \"${p##*@}\"" "$lock/package.json"; then
		echo "install-node-parts: $lock/package.json does not pin $p" >&2
		exit 1
	fi
done

# report prints one line per part: what, whether it was cached, where.
report() {
	local p
	for p in "${PACKAGES[@]}"; do
		printf '%-58s %-12s %s\n' "$p" "$1" "$prefix/node_modules/${p%@*}"
	done
}

bins_present() {
	local b
	for b in "${BINS[@]}"; do
		[[ -x $prefix/node_modules/.bin/$b ]] || return 1
	done
}

current() {
	[[ -f $stamp && $(<"$stamp") == "$want" ]] && bins_present
}

if current; then
	report cached
	exit 0
fi

mkdir -p "$prefix"
exec 9>"$prefix/.install.lock"
flock 9
# A concurrent run may have finished the install while this one waited.
if current; then
	report cached
	exit 0
fi

# The stamp is removed before npm runs and written after it succeeds, so it
# only ever names a complete install and a failed one is retried next time.
rm -f "$stamp"
cp "$lock/package.json" "$lock/package-lock.json" "$prefix/"
npm ci --prefix "$prefix" --no-audit --no-fund --loglevel=error >&2
if ! bins_present; then
	echo "install-node-parts: npm finished but $prefix/node_modules/.bin lacks one of: ${BINS[*]}" >&2
	exit 1
fi
printf '%s\n' "$want" >"$stamp"
report installed
