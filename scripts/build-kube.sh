#!/usr/bin/env bash
# Builds kube-apiserver and etcd from the Go module proxy into the test cache.
#
# No distribution package ships kube-apiserver, and envtest's downloader fetches
# release archives from a storage bucket; building from the published modules
# needs only the Go toolchain and module proxy. Binaries are kept in a
# directory keyed by version: a cold build costs ~9 minutes on two cores, every
# later run (and every fresh clone on the same machine) reuses them.
#
# Usage: scripts/build-kube.sh
# Env:   TOOLGATE_TEST_CACHE (default ~/.cache/toolgate-test)
set -euo pipefail

KUBE_VERSION=1.36.3
ETCD_VERSION=3.6.16

root=${TOOLGATE_TEST_CACHE:-$HOME/.cache/toolgate-test}
kube_dir=$root/kube-$KUBE_VERSION
bin_dir=$kube_dir/bin

mkdir -p "$bin_dir"

# Two concurrent runs (two clones, or a script and a developer) must not both
# spend nine minutes building the same thing: the second waits, then finds the
# binaries present.
exec 9>"$kube_dir/.build.lock"
if ! flock -n 9; then
	echo "build-kube: another build holds $kube_dir/.build.lock, waiting" >&2
	flock 9
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/toolgate-kube-build.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The throwaway modules must not pick up a go.work or vendor setting of the
# caller's checkout.
export GOWORK=off GOFLAGS=-mod=mod

# install moves a finished binary into place in one rename, so a reader never
# sees a half-written file.
install_bin() {
	chmod 0755 "$1"
	mv -f "$1" "$bin_dir/$2"
}

build_etcd() {
	local mod=$work/etcd
	mkdir -p "$mod"
	cd "$mod"
	go mod init toolgate.test/etcd-build >/dev/null 2>&1
	local m
	for m in server api client/pkg client pkg; do
		go mod edit -require="go.etcd.io/etcd/$m/v3@v$ETCD_VERSION"
	done
	# The same entry point as etcd's own server/main.go.
	cat >main.go <<-'EOF'
		package main

		import (
			"os"

			"go.etcd.io/etcd/server/v3/etcdmain"
		)

		func main() { etcdmain.Main(os.Args) }
	EOF
	go mod tidy
	go build -trimpath -ldflags "-s -w" -o "$bin_dir/.etcd.partial" .
	install_bin "$bin_dir/.etcd.partial" etcd
}

build_kube_apiserver() {
	local mod=$work/kube-apiserver
	mkdir -p "$mod"
	cd "$mod"
	go mod init toolgate.test/kube-apiserver-build >/dev/null 2>&1
	go mod edit -require="k8s.io/kubernetes@v$KUBE_VERSION"

	# k8s.io/kubernetes points its staging modules at ./staging/src/k8s.io/X;
	# replaces of a dependency are ignored, so this module must map each one
	# to the published k8s.io/X v0.<minor>.<patch> itself.
	local gomod staging_version
	gomod=$(go mod download -json "k8s.io/kubernetes@v$KUBE_VERSION" |
		sed -n 's/^[[:space:]]*"GoMod":[[:space:]]*"\(.*\)",\{0,1\}$/\1/p')
	if [[ ! -f $gomod ]]; then
		echo "build-kube: cannot find go.mod of k8s.io/kubernetes v$KUBE_VERSION" >&2
		return 1
	fi
	staging_version=v0.${KUBE_VERSION#*.}
	local replaces
	replaces=$(sed -n 's#^[[:space:]]*\(replace[[:space:]]\{1,\}\)\{0,1\}\(k8s\.io/[^[:space:]]*\)[[:space:]]\{1,\}=>[[:space:]]\{1,\}\./staging/src/.*#\2#p' "$gomod")
	if [[ -z $replaces ]]; then
		echo "build-kube: no staging replaces found in $gomod" >&2
		return 1
	fi
	local p
	for p in $replaces; do
		go mod edit -replace="$p=$p@$staging_version"
	done

	cat >tools.go <<-'EOF'
		//go:build tools

		package tools

		import _ "k8s.io/kubernetes/cmd/kube-apiserver"
	EOF
	go mod tidy
	local minor=${KUBE_VERSION#*.}
	minor=${minor%%.*}
	go build -trimpath -ldflags "-s -w \
		-X k8s.io/component-base/version.gitVersion=v$KUBE_VERSION \
		-X k8s.io/component-base/version.gitMajor=${KUBE_VERSION%%.*} \
		-X k8s.io/component-base/version.gitMinor=$minor" \
		-o "$bin_dir/.kube-apiserver.partial" k8s.io/kubernetes/cmd/kube-apiserver
	install_bin "$bin_dir/.kube-apiserver.partial" kube-apiserver
}

# report prints one line per part: what, whether it was cached, where.
report() {
	printf '%-58s %-12s %s\n' "$1@$2" "$3" "$bin_dir/$1"
}

if [[ -x $bin_dir/etcd ]]; then
	report etcd "v$ETCD_VERSION" cached
else
	start=$SECONDS
	build_etcd
	report etcd "v$ETCD_VERSION" "built:$((SECONDS - start))s"
fi

if [[ -x $bin_dir/kube-apiserver ]]; then
	report kube-apiserver "v$KUBE_VERSION" cached
else
	start=$SECONDS
	build_kube_apiserver
	report kube-apiserver "v$KUBE_VERSION" "built:$((SECONDS - start))s"
fi
