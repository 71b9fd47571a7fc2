#!/usr/bin/env bash
# Regenerates sdk/internal/pluginv1 from proto/ with pinned generators, so the
# committed code only changes when the protocol does.
set -euo pipefail
cd "$(dirname "$0")/.."

PROTOC_GEN_GO=v1.36.12
PROTOC_GEN_GO_GRPC=v1.6.2
PROTOC_WANT="libprotoc 3.21"

bin="${TOOLGATE_TOOLS:-$HOME/.cache/toolgate-tools}/protoc-gen-$PROTOC_GEN_GO-$PROTOC_GEN_GO_GRPC"
if [ ! -x "$bin/protoc-gen-go-grpc" ]; then
  mkdir -p "$bin"
  GOBIN="$bin" go install "google.golang.org/protobuf/cmd/protoc-gen-go@$PROTOC_GEN_GO"
  GOBIN="$bin" go install "google.golang.org/grpc/cmd/protoc-gen-go-grpc@$PROTOC_GEN_GO_GRPC"
fi
if ! command -v protoc >/dev/null; then
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends protobuf-compiler
  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends protobuf-compiler; fi
fi
case "$(protoc --version)" in
  "$PROTOC_WANT"*) ;;
  *) echo "proto.sh: want $PROTOC_WANT, have $(protoc --version)" >&2; exit 1 ;;
esac

out=sdk/internal/pluginv1
rm -f "$out"/*.pb.go
mkdir -p "$out"
PATH="$bin:$PATH" protoc -I proto \
  --go_out=sdk --go_opt=module=github.com/toolgate/toolgate/sdk \
  --go-grpc_out=sdk --go-grpc_opt=module=github.com/toolgate/toolgate/sdk \
  toolgate/plugin/v1/plugin.proto
echo "generated $(ls "$out")"
