// Package mcpstdio is the built-in mcp-stdio plugin: it makes any MCP server
// that speaks JSON-RPC over stdio a toolgate backend.
//
// The plugin process starts the server as its child, speaks MCP to it with
// mark3labs/mcp-go's client, and serves what the server offers over the
// plugin protocol: tools, resources and prompts kept in step with the
// server's change notices, calls with their progress and logs, and content
// of every kind carried whole. The server lives and dies with the plugin
// process: if it exits, the plugin exits too, so the host's supervisor sees
// one failure and restarts both.
package mcpstdio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// Name is the plugin type this package implements.
const Name = "mcp-stdio"

// Backend serves one MCP stdio server as a plugin. Configure starts the server.
type Backend struct {
	// OnServerExit is called once when the server exits while the plugin
	// serves it (not when Close stops it). New sets it to log the exit and
	// end the plugin process with status 1, so the host notices; tests set
	// it to record the error instead. err is an *ExitError.
	OnServerExit func(err error)
	// Version is what GetInfo reports; New takes it from the build info.
	Version string

	log      hclog.Logger
	watchers watchers

	configMu sync.Mutex // serializes Configure
	mu       sync.Mutex
	sess     *session

	closeOnce sync.Once
	closed    chan struct{} // ends Watch streams and the exit watcher
	wg        sync.WaitGroup
}

var _ protov1.Backend = (*Backend)(nil)

// New returns an unconfigured Backend logging to logger.
func New(logger hclog.Logger) *Backend {
	b := &Backend{log: logger, Version: "(devel)", closed: make(chan struct{})}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		b.Version = bi.Main.Version
	}
	b.OnServerExit = func(err error) {
		var ee *ExitError
		if errors.As(err, &ee) {
			// The status goes in the message too: the host's crash report
			// shows the plugin's last messages without their fields.
			logger.Error("mcp server exited ("+ee.Status+")", "status", ee.Status, "stderr", ee.Stderr)
		} else {
			logger.Error("mcp server exited", "error", err)
		}
		_ = os.Stderr.Sync()
		os.Exit(1)
	}
	return b
}

func (b *Backend) session() (*session, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.sess == nil {
		return nil, ErrNotConfigured
	}
	return b.sess, nil
}

// GetInfo reports what the server declared once it runs; before that, what
// any MCP server may offer.
func (b *Backend) GetInfo(context.Context) (protov1.Info, error) {
	info := protov1.Info{Name: Name, Version: b.Version, ProtocolMinor: protov1.ProtocolMinor,
		Capabilities: protov1.Capabilities{Tools: true, Watch: true, Progress: true, ClientCallbacks: true, Tasks: true, TaskInput: true},
		ConfigSchema: configSchema}
	if s, err := b.session(); err == nil {
		caps := s.info.Capabilities
		info.Capabilities.Tools = caps.Tools != nil
		info.Capabilities.Resources = caps.Resources != nil
		info.Capabilities.Prompts = caps.Prompts != nil
		info.Capabilities.Completions = caps.Completions != nil
		info.Capabilities.ResourceSubscribe = caps.Resources != nil && caps.Resources.Subscribe
		info.Capabilities.Tasks = serverRunsTasks(caps)
	}
	return info, nil
}

// Configure checks the config, starts the server and initializes it. Field
// problems come back as a *protov1.ConfigError; a server that fails to start
// as an error carrying its exit status and last stderr lines.
func (b *Backend) Configure(ctx context.Context, raw json.RawMessage) error {
	b.configMu.Lock()
	defer b.configMu.Unlock()
	if _, err := b.session(); err == nil {
		return errors.New("mcp-stdio: already configured; restart the plugin to change its config")
	}
	select {
	case <-b.closed:
		return ErrServerGone
	default:
	}
	cfg, err := parseConfig(raw)
	if err != nil {
		return err
	}
	cfg.clientVersion = b.Version
	s, err := startSession(ctx, cfg, b.log, b.watchers.broadcast)
	if err != nil {
		return fmt.Errorf("start %s: %w", cfg.command, err)
	}
	b.mu.Lock()
	select {
	case <-b.closed:
		// Close ran while the server started; it must not outlive the plugin.
		b.mu.Unlock()
		s.stop()
		return ErrServerGone
	default:
	}
	b.sess = s
	b.mu.Unlock()
	b.wg.Add(1)
	go b.watchExit(s)
	return nil
}

// watchExit reports the server's exit unless the plugin stopped it.
func (b *Backend) watchExit(s *session) {
	defer b.wg.Done()
	select {
	case <-s.proc.exited:
		if !s.stopped() {
			b.OnServerExit(s.proc.exitError())
		}
	case <-b.closed:
	}
}

// Close stops the server and ends every Watch stream. The host asks for the
// same through Stop before it ends the plugin process; tests and embedders
// call Close.
func (b *Backend) Close() error {
	b.closeWithin(stopGrace)
	return nil
}

// closeWithin stops the server politely, each step of the way (stdin EOF,
// SIGTERM) waiting up to grace, and ends every Watch stream.
func (b *Backend) closeWithin(grace time.Duration) {
	b.mu.Lock()
	b.closeOnce.Do(func() { close(b.closed) })
	s := b.sess
	b.mu.Unlock()
	if s != nil {
		s.settle(grace)
		s.stopWithin(grace)
	}
	b.wg.Wait()
}

func (b *Backend) ListTools(context.Context) ([]protov1.Tool, error) {
	s, err := b.session()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]protov1.Tool(nil), s.tools...), nil
}

func (b *Backend) CallTool(ctx context.Context, req *protov1.CallRequest, events protov1.CallEvents) (*protov1.Result, error) {
	s, err := b.session()
	if err != nil {
		return nil, err
	}
	res, err := s.callTool(ctx, req, events)
	if errors.Is(err, ErrServerGone) && !s.stopped() {
		// The server died under the call, and the plugin is about to exit
		// with it (OnServerExit). Answering now would pass the death off as
		// the tool's own failure; waiting lets the host see this plugin crash,
		// name it, and retry the call if it is safe to.
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-b.closed:
		case <-time.After(serverGoneWait):
		}
	}
	return res, err
}

// RootsChanged tells the server that its client's roots changed
// (notifications/roots/list_changed).
func (b *Backend) RootsChanged(ctx context.Context) error {
	s, err := b.session()
	if err != nil {
		return err
	}
	return s.rootsChanged(ctx)
}

// serverGoneWait bounds how long a call whose server died waits for the
// plugin's own exit before it answers with the error itself.
const serverGoneWait = 5 * time.Second

func (b *Backend) ListResources(context.Context) ([]protov1.Resource, error) {
	s, err := b.session()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]protov1.Resource(nil), s.resources...), nil
}

func (b *Backend) ListResourceTemplates(context.Context) ([]protov1.ResourceTemplate, error) {
	s, err := b.session()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]protov1.ResourceTemplate(nil), s.templates...), nil
}

func (b *Backend) ReadResource(ctx context.Context, uri string) ([]protov1.ResourceContents, error) {
	s, err := b.session()
	if err != nil {
		return nil, err
	}
	return s.readResource(ctx, uri)
}

func (b *Backend) ListPrompts(context.Context) ([]protov1.Prompt, error) {
	s, err := b.session()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]protov1.Prompt(nil), s.prompts...), nil
}

func (b *Backend) GetPrompt(ctx context.Context, name string, args map[string]string) (*protov1.PromptResult, error) {
	s, err := b.session()
	if err != nil {
		return nil, err
	}
	return s.getPrompt(ctx, name, args)
}

// Watch sends the server's change notices, and its log messages that no
// running call took, until ctx ends or the plugin closes.
func (b *Backend) Watch(ctx context.Context, emit func(protov1.Event)) error {
	q := b.watchers.add()
	defer b.watchers.remove(q)
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-b.closed:
			return nil
		case <-q.wake:
			for _, e := range q.take() {
				emit(e)
			}
		}
	}
}
