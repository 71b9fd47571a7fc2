#!/usr/bin/env bash
# Installs Debian's prometheus package (prometheus and promtool), which the
# metrics tests run as a real server, unless it is already there.
#
# Usage: scripts/install-prometheus.sh
set -euo pipefail

# report prints one line per part: what, whether it was cached, where.
report() {
	local version
	version=$(dpkg-query -W -f='${Version}' prometheus 2>/dev/null || echo unknown)
	printf '%-58s %-12s %s\n' "prometheus@$version" "$1" /usr/bin/prometheus
	printf '%-58s %-12s %s\n' "promtool@$version" "$1" /usr/bin/promtool
}

if [[ -x /usr/bin/prometheus && -x /usr/bin/promtool ]]; then
	report cached
	exit 0
fi

sudo=()
if [[ $(id -u) != 0 ]]; then
	sudo=(sudo)
fi
# Another apt run (a provisioning step, a second checkout) may hold the dpkg
# lock; wait for it instead of failing.
"${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 update >&2
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 \
	install -y --no-install-recommends prometheus >&2
report installed
