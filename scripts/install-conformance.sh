#!/usr/bin/env bash
# Installs the official MCP conformance suite into the test cache, exactly as
# scripts/conformance/package-lock.json pins it, with the Node 22 it needs
# (fs.globSync; the machines run Node 20). The npm package "node" brings that
# binary from the npm registry. It lives in a prefix of its own: put first on
# a PATH, its node would run every other Node part too.
#
# A stamp file records the lockfile installed; when it matches, npm is not
# started at all.
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
lock=$here/conformance
root=${TOOLGATE_TEST_CACHE:-$HOME/.cache/toolgate-test}
prefix=$root/$CONFORMANCE_KEY
stamp=$prefix/.installed
suite=$prefix/node_modules/@modelcontextprotocol/conformance/dist/index.js
node=$prefix/node_modules/node/bin/node
want=$(printf '%s\n' "${PACKAGES[@]}"; cat "$lock/package.json" "$lock/package-lock.json" | sha256sum)

for p in "${PACKAGES[@]}"; do
	if ! grep -q "\"${p%@*}\": \"${p##*@}\"" "$lock/package.json"; then
		echo "install-conformance: $lock/package.json does not pin $p" >&2
		exit 1
	fi
done

report() {
	printf '%-58s %-12s %s\n' "${PACKAGES[0]}" "$1" "$suite"
	printf '%-58s %-12s %s\n' "${PACKAGES[1]}" "$1" "$node"
}

current() {
	[[ -f $stamp && $(<"$stamp") == "$want" && -f $suite && -x $node ]]
}

if current; then
	report cached
	exit 0
fi

mkdir -p "$prefix"
exec 9>"$prefix/.install.lock"
flock 9
if current; then
	report cached
	exit 0
fi

rm -f "$stamp"
cp "$lock/package.json" "$lock/package-lock.json" "$prefix/"
npm ci --prefix "$prefix" --no-audit --no-fund --loglevel=error >&2
if [[ ! -f $suite || ! -x $node ]]; then
	echo "install-conformance: npm finished but $suite or $node is missing" >&2
	exit 1
fi
if ! "$node" -e 'process.exit(typeof require("fs").globSync === "function" ? 0 : 1)'; then
	echo "install-conformance: $node ($("$node" --version)) lacks fs.globSync, which the suite needs" >&2
	exit 1
fi
printf '%s\n' "$want" >"$stamp"
report installed
