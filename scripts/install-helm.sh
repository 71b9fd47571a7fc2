#!/usr/bin/env bash
# Builds the Helm CLI from the Go module proxy into the test cache, for the
# chart tests (`helm template` of deploy/helm/toolgate).
#
# Helm is a Go module, so the toolchain and the module proxy are all it needs;
# the binary is kept in a directory keyed by version and reused by every later
# run and every fresh clone on the same machine.
#
# Usage: scripts/install-helm.sh
# Env:   TOOLGATE_TEST_CACHE (default ~/.cache/toolgate-test)
set -euo pipefail

HELM_VERSION=3.22.0

root=${TOOLGATE_TEST_CACHE:-$HOME/.cache/toolgate-test}
bin_dir=$root/helm-$HELM_VERSION/bin
mkdir -p "$bin_dir"

report() {
	printf '%-58s %-12s %s\n' "helm@v$HELM_VERSION" "$1" "$bin_dir/helm"
}

if [[ -x $bin_dir/helm ]]; then
	report cached
	exit 0
fi

# A concurrent run waits for this one and then finds the binary.
exec 9>"$bin_dir/.build.lock"
flock 9
if [[ -x $bin_dir/helm ]]; then
	report cached
	exit 0
fi

start=$SECONDS
work=$(mktemp -d "${TMPDIR:-/tmp}/toolgate-helm-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
# Build outside the checkout, so its go.work or vendor settings do not apply,
# and move the binary into place in one rename.
(cd "$work" && GOWORK=off GOBIN="$work" go install -trimpath "helm.sh/helm/v3/cmd/helm@v$HELM_VERSION")
mv -f "$work/helm" "$bin_dir/helm"
report "built:$((SECONDS - start))s"
