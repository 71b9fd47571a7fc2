# toolgate: `make run` serves the default config; `make test` installs the real
# test parts (cached in ~/.cache/toolgate-test) and runs every test.

GO       ?= go
VERSION  ?= $(shell git describe --tags --match 'v[0-9]*' --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -X main.version=$(VERSION)
BIN      := bin
# staticcheck 2026.1.x; the module proxy knows it by its module version.
STATICCHECK := v0.8.2

.PHONY: all build run test test-deps test-go fuzz bench proto lint clean

all: build

# Without cgo: nothing here needs it (net and os/user have pure Go versions),
# and a binary that loads no libc is 2.5-3 MB less RSS in every process, the
# gateway and each plugin it starts (BENCHMARKS.md, "Memory, restart and
# throughput").
build:
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/toolgate ./cmd/toolgate
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/toolgate-mcp-stdio ./cmd/toolgate-mcp-stdio
	CGO_ENABLED=0 $(GO) build -o $(BIN)/hello-plugin ./plugins/examples/hello

run: build
	$(BIN)/toolgate serve --config config.example.hcl

test-deps:
	scripts/test-deps.sh

test: test-deps build lint test-go fuzz

test-go:
	$(GO) vet ./... && (cd sdk && $(GO) vet ./...)
	$(GO) test -race -count=1 -timeout 30m ./...
	cd sdk && $(GO) test -race -count=1 -timeout 10m ./...

# Each fuzz target runs for a while on every test run, on top of its corpus.
FUZZTIME ?= 20s
fuzz:
	scripts/fuzz.sh $(FUZZTIME)

bench: build test-deps
	scripts/bench.sh

proto:
	scripts/proto.sh

lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' | grep -v /internal/pluginv1/)); \
	if [ -n "$$unformatted" ]; then echo "gofmt: not formatted:" >&2; echo "$$unformatted" >&2; exit 1; fi
	$(GO) vet ./... && (cd sdk && $(GO) vet ./...)
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK) ./...
	cd sdk && $(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK) ./...

clean:
	rm -rf $(BIN)
