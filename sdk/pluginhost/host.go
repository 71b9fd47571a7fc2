// Package pluginhost starts a toolgate plugin process and talks to it: the host
// side of protocol v1, used by the gateway's supervisor and by tests.
package pluginhost

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
	"github.com/hashicorp/go-plugin/runner"
	"google.golang.org/grpc/health/grpc_health_v1"

	"github.com/toolgate/toolgate/sdk/internal/wire"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// Config says how to start one plugin process.
type Config struct {
	Name         string   // the plugin's name in the gateway, for logs and errors
	Path         string   // executable
	Args         []string // arguments after the executable
	Env          []string // the whole environment; the gateway's own is not inherited
	Dir          string
	Logger       hclog.Logger
	StartTimeout time.Duration // default 30s
}

// Plugin is a running plugin process. It is a protov1.Backend; its methods fail
// once the process is gone.
type Plugin struct {
	protov1.Backend
	name   string
	log    hclog.Logger
	client *goplugin.Client
	runner *procRunner
	stderr *tail
	health grpc_health_v1.HealthClient
	wire   *wire.Client
	tmp    string // holds go-plugin's socket directory; removed once the process is gone
	// asked is set when the host wants the process gone (Stop, Kill, a
	// start given up), so its end is logged as asked for, not as a crash.
	asked atomic.Bool
	// polite is set by Stop, which gives the plugin time to shut down: a
	// kill after it is worth a warning, unlike Kill's.
	polite atomic.Bool
	// killedFor says why the host killed a process that had not failed
	// a stop (KillFor): its end is neither a crash nor a stop as asked.
	killedFor atomic.Pointer[string]
}

// ErrNotPlugin is wrapped by the start error of a program that does not
// begin with go-plugin's handshake on stdout.
var ErrNotPlugin = errors.New("not a toolgate plugin")

// ErrExited is wrapped by errors about a plugin process that is gone.
var ErrExited = errors.New("plugin process exited")

// ErrConnectionLost is wrapped by the error of a request whose connection to
// the plugin broke: the process may be exiting.
var ErrConnectionLost = wire.ErrConnectionLost

// Start launches the plugin, completes the handshake and returns once it
// answers. On failure the process group is gone and the error carries the last
// lines the plugin wrote to stderr.
func Start(ctx context.Context, cfg Config) (*Plugin, error) {
	if cfg.StartTimeout == 0 {
		cfg.StartTimeout = 30 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = hclog.NewNullLogger()
	}
	sweepSocketDirs(cfg.Logger)
	tmp, err := socketDir()
	if err != nil {
		return nil, fmt.Errorf("start plugin %q: %w", cfg.Name, err)
	}
	tlsConfig, tlsEnv, err := clientTLS()
	if err != nil {
		_ = os.RemoveAll(tmp)
		return nil, fmt.Errorf("start plugin %q: %w", cfg.Name, err)
	}
	p := &Plugin{name: cfg.Name, log: cfg.Logger, stderr: newTail(20), tmp: tmp}
	// The runner as soon as there is one, for a start given up while
	// go-plugin still holds it (p.runner is only read once Start returns).
	var launched atomic.Pointer[procRunner]
	client := goplugin.NewClient(&goplugin.ClientConfig{
		HandshakeConfig:  wire.Handshake,
		VersionedPlugins: wire.VersionedPlugins(nil),
		// go-plugin passes a blank command carrying only its handshake
		// environment; the plugin's own command and environment go around it.
		RunnerFunc: func(_ hclog.Logger, spec *exec.Cmd, _ string) (runner.Runner, error) {
			cmd := exec.Command(cfg.Path, cfg.Args...)
			cmd.Env = append(append(append([]string(nil), cfg.Env...), spec.Env...), tlsEnv...)
			cmd.Dir = cfg.Dir
			p.runner = newProcRunner(cmd, &p.asked, p.logExit)
			launched.Store(p.runner)
			return p.runner, nil
		},
		SkipHostEnv:      true,
		AllowedProtocols: []goplugin.Protocol{goplugin.ProtocolGRPC},
		// Mutual TLS as go-plugin's AutoMTLS sets it up, with cheaper
		// certificates (see clientTLS).
		TLSConfig:        tlsConfig,
		Managed:          true,
		StartTimeout:     cfg.StartTimeout,
		Logger:           libLogger{cfg.Logger},
		Stderr:           p.stderr,
		SyncStderr:       &relay{log: cfg.Logger, tail: p.stderr, stream: "stderr"},
		SyncStdout:       &relay{log: cfg.Logger, tail: p.stderr, stream: "stdout"},
		UnixSocketConfig: &goplugin.UnixSocketConfig{TempDir: tmp},
		GRPCDialOptions:  wire.DialOptions(),
	})
	p.client = client
	started := make(chan error, 1)
	go func() { started <- p.connect() }()
	select {
	case err := <-started:
		if err != nil {
			err = p.startError(err)
			p.endFailed()
			return nil, err
		}
	case <-ctx.Done():
		// go-plugin holds its lock, which its Kill needs, until the
		// handshake ends: a process already up is killed here, so a
		// plugin that never completes its handshake does not keep the
		// start, and its process, until StartTimeout; one not yet
		// launched never is.
		p.asked.Store(true)
		if r := launched.Load(); r != nil {
			r.killGroup()
		}
		p.end()
		<-started
		return nil, fmt.Errorf("start plugin %q: %w", cfg.Name, ctx.Err())
	}
	return p, nil
}

func (p *Plugin) connect() error {
	rpc, err := p.client.Client()
	if err != nil {
		return err
	}
	raw, err := rpc.Dispense(wire.PluginName)
	if err != nil {
		return err
	}
	grpcClient, ok := rpc.(*goplugin.GRPCClient)
	if !ok {
		return fmt.Errorf("plugin did not negotiate gRPC")
	}
	p.health = grpc_health_v1.NewHealthClient(grpcClient.Conn)
	p.wire = raw.(*wire.Client)
	p.Backend = p.wire
	return nil
}

func (p *Plugin) startError(err error) error {
	switch r := p.runner; {
	case r != nil && r.cmd.Process != nil:
		status := ""
		select {
		case <-r.exited:
			status = r.exitStatus()
		case <-time.After(100 * time.Millisecond):
		}
		// go-plugin's own words for these ("Unrecognized remote plugin
		// message", over several lines) say neither what is wrong nor what
		// to do.
		refused, first := r.notPlugin()
		switch {
		case refused && first == "" && status != "" && status != "exit status 0":
			// Nothing written, and a failure: a plugin that died as it
			// started (its stderr says why), not a program that is no plugin.
			err = fmt.Errorf("%w before its handshake (%s): %s", ErrExited, status, r.cmd.Path)
			status = ""
		case refused && first == "":
			err = fmt.Errorf("%w: %s wrote no handshake on stdout; is it a plugin built with the SDK (plugin.Serve)?", ErrNotPlugin, r.cmd.Path)
		case refused:
			err = fmt.Errorf("%w: %s wrote %q on stdout where the handshake goes; a plugin built with the SDK writes nothing to stdout before plugin.Serve (log to stderr)", ErrNotPlugin, r.cmd.Path, first)
		}
		if status != "" {
			err = fmt.Errorf("%w (%s)", err, status)
		}
	case errors.Is(err, fs.ErrPermission):
		err = fmt.Errorf("%w (is the file executable? chmod +x it)", err)
	}
	if lines := p.stderr.Lines(); len(lines) > 0 {
		return fmt.Errorf("start plugin %q: %w; its stderr: %s", p.name, err, strings.Join(lines, " | "))
	}
	return fmt.Errorf("start plugin %q: %w", p.name, err)
}

// Pid is the plugin's process id, which is also its process group id.
func (p *Plugin) Pid() int {
	if p.runner == nil || p.runner.cmd.Process == nil {
		return 0
	}
	return p.runner.cmd.Process.Pid
}

// Exited is closed as soon as the plugin process has exited.
func (p *Plugin) Exited() <-chan struct{} { return p.runner.exited }

// ExitStatus says how the process ended; empty while it runs.
func (p *Plugin) ExitStatus() string { return p.runner.exitStatus() }

// Stderr returns the last lines the plugin wrote to stderr.
func (p *Plugin) Stderr() []string { return p.stderr.Lines() }

// StderrMark marks where the plugin's stderr stands, so StderrSince can
// return only what it wrote after: what a call that crashed it saw, not a
// line from a call long done.
func (p *Plugin) StderrMark() uint64 { return p.stderr.mark() }

// StderrSince returns the last lines the plugin wrote to stderr after mark.
func (p *Plugin) StderrSince(mark uint64) []string { return p.stderr.since(mark) }

// Ping checks the plugin's backend answers within ctx: a plugin that fronts
// another server asks that server (mcp-stdio pings its MCP server). A plugin
// built before the protocol had Health answers go-plugin's gRPC health
// service instead, which proves only that its own process serves. A plugin
// that is stopped or wedged fails either even though its process exists.
func (p *Plugin) Ping(ctx context.Context) error {
	select {
	case <-p.runner.exited:
		return fmt.Errorf("plugin %q: %w (%s)", p.name, ErrExited, p.runner.exitStatus())
	default:
	}
	err := p.wire.Health(ctx)
	if err == nil {
		return nil
	}
	if !errors.Is(err, wire.ErrUnsupported) {
		return fmt.Errorf("plugin %q health check: %w", p.name, err)
	}
	resp, err := p.health.Check(ctx, &grpc_health_v1.HealthCheckRequest{Service: goplugin.GRPCServiceName})
	if err != nil {
		return fmt.Errorf("plugin %q health check: %w", p.name, err)
	}
	if resp.GetStatus() != grpc_health_v1.HealthCheckResponse_SERVING {
		return fmt.Errorf("plugin %q reports %s", p.name, resp.GetStatus())
	}
	return nil
}

// RootsChanged tells the plugin that a client's roots changed. A plugin that
// does not take client callbacks is not told: the error wraps ErrUnsupported.
func (p *Plugin) RootsChanged(ctx context.Context) error {
	if err := p.wire.RootsChanged(ctx); err != nil {
		return fmt.Errorf("plugin %q: roots changed: %w", p.name, err)
	}
	return nil
}

// ErrUnsupported is wrapped by the error of a request the plugin does not
// serve (it was built against an older protocol minor, or did not declare the
// capability).
var ErrUnsupported = wire.ErrUnsupported

// Stop ends the plugin politely: it asks the plugin to stop what it runs
// (mcp-stdio closes its server's stdin, then sends SIGTERM), then to shut
// down, and kills its whole process group only when grace has passed. It
// returns when the process is gone.
func (p *Plugin) Stop(grace time.Duration) {
	p.polite.Store(true)
	p.asked.Store(true)
	deadline := time.Now().Add(grace)
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	// The call ends by ctx, or at once when the process exits under it.
	if err := p.wire.Stop(ctx); err != nil && !errors.Is(err, wire.ErrUnsupported) {
		p.log.Warn("plugin did not stop what it runs", "error", err)
	}
	done := make(chan struct{})
	go func() {
		p.end() // graceful shutdown over gRPC, then the runner's group kill
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(max(time.Until(deadline), 0) + time.Second):
		p.runner.killGroup()
		<-done
	}
	<-p.runner.exited
}

// KillFor ends the plugin's whole process group at once, for why (as "it
// stopped answering health pings"), which the log of its end gives.
func (p *Plugin) KillFor(why string) {
	p.killedFor.Store(&why)
	p.Kill()
}

// Kill ends the plugin's whole process group at once.
func (p *Plugin) Kill() {
	p.asked.Store(true)
	p.runner.killGroup()
	<-p.runner.exited
	p.end()
}

// endFailed cleans up after a start that failed. A process that already
// exited (not a plugin, or it died in the handshake) needs only its
// directory removed: go-plugin's Kill would log that it "failed to exit
// gracefully", on every try of a restart loop, about a process that is gone.
func (p *Plugin) endFailed() {
	if p.runner != nil {
		select {
		case <-p.runner.exited:
			_ = os.RemoveAll(p.tmp)
			return
		default:
		}
	}
	p.end()
}

// end runs go-plugin's Kill, which removes the socket directory it made, then
// removes the directory that held it.
func (p *Plugin) end() {
	p.asked.Store(true)
	p.client.Kill()
	_ = os.RemoveAll(p.tmp)
}

// String names the plugin and its pid for logs.
func (p *Plugin) String() string { return p.name + "[" + strconv.Itoa(p.Pid()) + "]" }

// Complete asks the plugin to complete a prompt argument or template variable.
func (p *Plugin) Complete(ctx context.Context, req *protov1.CompleteRequest) (*protov1.Completion, error) {
	return p.wire.Complete(ctx, req)
}

// SubscribeResource asks the plugin to report changes of uri on Watch.
func (p *Plugin) SubscribeResource(ctx context.Context, uri string) error {
	return p.wire.SubscribeResource(ctx, uri)
}

// UnsubscribeResource ends SubscribeResource.
func (p *Plugin) UnsubscribeResource(ctx context.Context, uri string) error {
	return p.wire.UnsubscribeResource(ctx, uri)
}

// Tasks runs tool calls as MCP tasks in the plugin. A plugin that did not
// declare the tasks capability (or predates protocol minor 4) answers every
// request with an error that wraps ErrUnsupported.
func (p *Plugin) Tasks() protov1.TaskRunner { return p.wire }

// MaxMessage bounds one message between the host and a plugin, either way:
// a call's arguments and a result must each fit in one.
const MaxMessage = wire.MaxMessage
