package main

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/core/config"
)

// http = "" is the config's way to say "no HTTP front": without --stdio there
// is then nothing to serve, and serve says so instead of listening on every
// interface at a random port.
func TestServeWithoutHTTPNeedsStdio(t *testing.T) {
	cfg, err := config.Parse([]byte("listen {\n  http = \"\"\n}\n"), "toolgate.hcl")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = serve(ctx, cfg, hclog.NewNullLogger(), nil, nil, func(a net.Addr) {
		t.Errorf("served HTTP at %s", a)
	})
	if err == nil || !strings.Contains(err.Error(), `listen.http is "" (no HTTP front)`) || !strings.Contains(err.Error(), "--stdio") {
		t.Fatalf("serve error = %v, want one saying there is nothing to serve", err)
	}
}
