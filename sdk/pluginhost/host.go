// Package pluginhost starts a toolgate plugin process and talks to it: the host
// side of protocol v1, used by the gateway's supervisor and by tests.
package pluginhost

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
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
	client *goplugin.Client
	runner *procRunner
	stderr *tail
	health grpc_health_v1.HealthClient
}

// ErrExited is wrapped by errors about a plugin process that is gone.
var ErrExited = errors.New("plugin process exited")

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
	p := &Plugin{name: cfg.Name, stderr: newTail(20)}
	client := goplugin.NewClient(&goplugin.ClientConfig{
		HandshakeConfig:  wire.Handshake,
		VersionedPlugins: wire.VersionedPlugins(nil),
		// go-plugin passes a blank command carrying only its handshake
		// environment; the plugin's own command and environment go around it.
		RunnerFunc: func(_ hclog.Logger, spec *exec.Cmd, _ string) (runner.Runner, error) {
			cmd := exec.Command(cfg.Path, cfg.Args...)
			cmd.Env = append(append([]string(nil), cfg.Env...), spec.Env...)
			cmd.Dir = cfg.Dir
			p.runner = newProcRunner(cmd)
			return p.runner, nil
		},
		SkipHostEnv:      true,
		AllowedProtocols: []goplugin.Protocol{goplugin.ProtocolGRPC},
		AutoMTLS:         true,
		Managed:          true,
		StartTimeout:     cfg.StartTimeout,
		Logger:           cfg.Logger,
		Stderr:           p.stderr,
	})
	p.client = client
	started := make(chan error, 1)
	go func() { started <- p.connect() }()
	select {
	case err := <-started:
		if err != nil {
			client.Kill()
			return nil, p.startError(err)
		}
	case <-ctx.Done():
		client.Kill()
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
	p.Backend = raw.(*wire.Client)
	return nil
}

func (p *Plugin) startError(err error) error {
	if p.runner != nil {
		select {
		case <-p.runner.exited:
			err = fmt.Errorf("%w (%s)", err, p.runner.exitStatus())
		case <-time.After(100 * time.Millisecond):
		}
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

// Ping checks the plugin answers its gRPC health service within ctx. A plugin
// that is stopped or wedged fails it even though its process exists.
func (p *Plugin) Ping(ctx context.Context) error {
	select {
	case <-p.runner.exited:
		return fmt.Errorf("plugin %q: %w (%s)", p.name, ErrExited, p.runner.exitStatus())
	default:
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

// Stop asks the plugin to shut down, waits up to grace for it, then kills its
// whole process group. It returns when the process is gone.
func (p *Plugin) Stop(grace time.Duration) {
	done := make(chan struct{})
	go func() {
		p.client.Kill() // graceful shutdown over gRPC, then the runner's group kill
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(grace):
		p.runner.killGroup()
		<-done
	}
	<-p.runner.exited
}

// Kill ends the plugin's whole process group at once.
func (p *Plugin) Kill() {
	p.runner.killGroup()
	<-p.runner.exited
	p.client.Kill()
}

// String names the plugin and its pid for logs.
func (p *Plugin) String() string { return p.name + "[" + strconv.Itoa(p.Pid()) + "]" }
