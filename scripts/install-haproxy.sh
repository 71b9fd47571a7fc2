#!/usr/bin/env bash
# Installs Debian's haproxy package, the load balancer the replica tests put
# in front of several gateways, unless it is already there.
#
# Usage: scripts/install-haproxy.sh
set -euo pipefail

report() {
	local version
	version=$(dpkg-query -W -f='${Version}' haproxy 2>/dev/null || echo unknown)
	printf '%-58s %-12s %s\n' "haproxy@$version" "$1" "$(command -v haproxy || echo /usr/sbin/haproxy)"
}

if command -v haproxy >/dev/null 2>&1 || [[ -x /usr/sbin/haproxy ]]; then
	report cached
	exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
	echo "install-haproxy: haproxy is missing and there is no apt-get here; install HAProxy 2.x so that \`haproxy\` is on PATH" >&2
	exit 1
fi
sudo=()
if [[ $(id -u) != 0 ]]; then
	if ! command -v sudo >/dev/null 2>&1; then
		echo "install-haproxy: haproxy is missing, this is not root and there is no sudo; install it with: apt-get install haproxy" >&2
		exit 1
	fi
	sudo=(sudo)
fi
# Another apt run may hold the dpkg lock; wait for it instead of failing.
if ! "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 update >&2 ||
	! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 \
		install -y --no-install-recommends haproxy >&2; then
	echo "install-haproxy: apt-get could not install haproxy; the replica tests need it" >&2
	exit 1
fi
report installed
