#!/usr/bin/env bash
# Copies the Prometheus Operator's ServiceMonitor CRD into the test cache, for
# the chart test that has a real kube-apiserver validate the chart's
# ServiceMonitor against it in a server-side dry run.
#
# The CRD ships in the operator's Go module, so the module proxy is all it
# needs; the file is kept in a directory keyed by version and reused by every
# later run and every fresh clone on the same machine.
#
# Usage: scripts/install-crds.sh
# Env:   TOOLGATE_TEST_CACHE (default ~/.cache/toolgate-test)
set -euo pipefail

# Must match promOperatorVersion in internal/testparts.
OPERATOR_VERSION=0.85.0
crd=monitoring.coreos.com_servicemonitors.yaml

root=${TOOLGATE_TEST_CACHE:-$HOME/.cache/toolgate-test}
dir=$root/crds-prometheus-operator-$OPERATOR_VERSION
mkdir -p "$dir"

report() {
	printf '%-58s %-12s %s\n' "prometheus-operator CRDs@v$OPERATOR_VERSION" "$1" "$dir/$crd"
}

if [[ -s $dir/$crd ]]; then
	report cached
	exit 0
fi

start=$SECONDS
work=$(mktemp -d "${TMPDIR:-/tmp}/toolgate-crds.XXXXXX")
trap 'rm -rf "$work"' EXIT
# Outside the checkout, so its go.work or vendor settings do not apply.
mod=$(cd "$work" && GOWORK=off GOFLAGS=-mod=mod go mod download -json \
	"github.com/prometheus-operator/prometheus-operator@v$OPERATOR_VERSION" |
	sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
if [[ -z $mod || ! -s $mod/example/prometheus-operator-crd/$crd ]]; then
	echo "install-crds: the operator module v$OPERATOR_VERSION holds no example/prometheus-operator-crd/$crd" >&2
	exit 1
fi
# Copied, then renamed, so a half-written file is never found.
cp "$mod/example/prometheus-operator-crd/$crd" "$work/$crd"
mv -f "$work/$crd" "$dir/$crd"
report "fetched:$((SECONDS - start))s"
