#!/usr/bin/env bash
# Installs every real part the test suite runs against: the Node MCP servers
# and SDK, the MCP conformance suite, Prometheus, HAProxy, a Kubernetes API
# server with etcd, Helm, and the Prometheus Operator's ServiceMonitor CRD.
#
# Parts live outside the checkout in directories keyed by version, so a fresh
# clone reuses them and a warm run only checks that they are there. Go tests
# find them through internal/testparts.
#
# Usage: scripts/test-deps.sh
# Env:   TOOLGATE_TEST_CACHE (default ~/.cache/toolgate-test; must be absolute)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

root=${TOOLGATE_TEST_CACHE:-$HOME/.cache/toolgate-test}
if [[ $root != /* ]]; then
	echo "test-deps: TOOLGATE_TEST_CACHE must be an absolute path, got $root" >&2
	exit 1
fi
export TOOLGATE_TEST_CACHE=$root

"$here/install-node-parts.sh"
"$here/install-conformance.sh"
"$here/install-prometheus.sh"
"$here/install-haproxy.sh"
"$here/build-kube.sh"
"$here/install-helm.sh"
"$here/install-crds.sh"
