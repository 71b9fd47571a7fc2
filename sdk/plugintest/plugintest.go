// Package plugintest runs a plugin in-process over the real gRPC path, so a
// plugin author's tests exercise exactly what the gateway will: argument
// validation against the tool's schema, conversion, streaming, error mapping
// and panic recovery.
package plugintest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"

	"github.com/toolgate/toolgate/sdk/internal/wire"
	"github.com/toolgate/toolgate/sdk/plugin"
	"github.com/toolgate/toolgate/sdk/protov1"
	"github.com/toolgate/toolgate/sdk/schema"
)

// Serve serves b over gRPC in this process and returns the host's view of it.
// Like the gateway, it checks a call's arguments against the tool's input
// schema first and answers arguments that break it with an error result, so
// the handler never sees them. Everything is torn down when the test ends.
func Serve(t testing.TB, b protov1.Backend) protov1.Backend {
	t.Helper()
	server := &wire.Server{Backend: b, Logger: hclog.New(&hclog.LoggerOptions{Name: "plugintest", Output: hclog.DefaultOutput, Level: hclog.Warn})}
	client, srv := goplugin.TestPluginGRPCConn(t, false, map[string]goplugin.Plugin{
		wire.PluginName: &wire.GRPCPlugin{Impl: server},
	})
	t.Cleanup(func() {
		// Stop the server first: closing the client asks go-plugin to stop it
		// too, and the two stops would race.
		srv.Stop()
		_ = client.Close()
	})
	raw, err := client.Dispense(wire.PluginName)
	if err != nil {
		t.Fatalf("dispense plugin: %v", err)
	}
	return &checkedBackend{Client: raw.(*wire.Client), t: t}
}

// checkedBackend validates arguments as the gateway's call_tool does, with
// the same validator. It embeds the client itself, not the Backend
// interface, so the optional hooks (Health, Stop) stay reachable as they are
// from the gateway.
type checkedBackend struct {
	*wire.Client
	t testing.TB
}

func (c *checkedBackend) CallTool(ctx context.Context, req *protov1.CallRequest, events protov1.CallEvents) (*protov1.Result, error) {
	// A plugin that cannot list its tools answers the call itself, as it
	// would answer a host that asked without listing first.
	tools, _ := c.Client.ListTools(ctx)
	for _, def := range tools {
		if def.Name != req.Name {
			continue
		}
		s, err := schema.Compile(def.InputSchema)
		if err != nil {
			c.t.Errorf("tool %s has an input schema that does not compile: %v", def.Name, err)
			return errorResult("tool " + def.Name + " has an input schema that does not compile: " + err.Error()), nil
		}
		if err := s.ValidateArguments(def.Name, req.Arguments); err != nil {
			return errorResult(err.Error()), nil
		}
	}
	return c.Client.CallTool(ctx, req, events)
}

func errorResult(text string) *protov1.Result {
	return &protov1.Result{IsError: true, Content: []protov1.Content{{Kind: protov1.KindText, Text: text}}}
}

// ServePlugin serves a declarative plugin; see Serve. It does not configure
// it: the gateway always does before any call, with the plugin's config
// block or none, so a plugin with Config or Configure is served as the
// gateway serves it by ServeConfigured.
func ServePlugin(t testing.TB, p *plugin.Plugin) protov1.Backend {
	t.Helper()
	b, err := p.Backend()
	if err != nil {
		t.Fatalf("plugin definition: %v", err)
	}
	if err := checkSchemas(p); err != nil {
		t.Fatalf("plugin definition: %v", err)
	}
	return Serve(t, b)
}

// checkSchemas compiles every tool's schemas with the validator the gateway
// checks calls with, so a hand-written schema it would refuse at every call
// fails the author's test. It runs here rather than at the plugin's start:
// the validator compiles its meta-schemas when first loaded, which every
// plugin process would pay for a check its tests already made.
func checkSchemas(p *plugin.Plugin) error {
	for _, tool := range p.Tools {
		for _, s := range []struct {
			which  string
			schema json.RawMessage
		}{{"input", tool.Def.InputSchema}, {"output", tool.Def.OutputSchema}} {
			if len(s.schema) == 0 {
				continue
			}
			if _, err := schema.Compile(s.schema); err != nil {
				return fmt.Errorf("plugin %q: tool %q: %s schema: %w", p.Name, tool.Def.Name, s.which, err)
			}
		}
	}
	return nil
}

// ServeConfigured serves a declarative plugin and configures it with config,
// the JSON of its config block as the gateway sends it ("" or "{}" for a
// block left out: defaults apply, required settings are refused). A block the
// plugin refuses fails the test with each setting at fault.
func ServeConfigured(t testing.TB, p *plugin.Plugin, config string) protov1.Backend {
	t.Helper()
	b := ServePlugin(t, p)
	if err := b.Configure(context.Background(), json.RawMessage(config)); err != nil {
		var ce *protov1.ConfigError
		if !errors.As(err, &ce) {
			t.Fatalf("configure plugin %q with %s: %v", p.Name, config, err)
		}
		var b strings.Builder
		for _, f := range ce.Fields {
			fmt.Fprintf(&b, "\n\tconfig.%s: %s", f.Path, f.Message)
		}
		t.Fatalf("plugin %q refused the config block %s:%s", p.Name, config, b.String())
	}
	return b
}

// Events records what a call reports before its result.
type Events struct {
	mu       sync.Mutex
	progress []protov1.Progress
	logs     []protov1.LogMessage
}

func (e *Events) Progress(p protov1.Progress) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.progress = append(e.progress, p)
}

func (e *Events) Log(l protov1.LogMessage) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.logs = append(e.logs, l)
}

// ProgressReports returns the progress reports received so far.
func (e *Events) ProgressReports() []protov1.Progress {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]protov1.Progress(nil), e.progress...)
}

// Logs returns the log messages received so far.
func (e *Events) Logs() []protov1.LogMessage {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]protov1.LogMessage(nil), e.logs...)
}
