package mcpstdio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/toolgate/toolgate/sdk/protov1"
)

const (
	// stopGrace is how long each step of stopping the server may take: stdin
	// EOF, then SIGTERM, then SIGKILL.
	stopGrace = 2 * time.Second
	// abortGrace replaces stopGrace for a server that failed to start.
	abortGrace = 500 * time.Millisecond
	// answerMargin is kept of the host's deadline for Configure to stop a
	// server that did not start and say why: stdin EOF and SIGTERM, each
	// waited on for abortGrace, and the answer's way back.
	answerMargin = 4 * abortGrace
	// exitWait bounds how long a failed start waits for the server's exit
	// status once the transport saw its stdout close.
	exitWait = stderrGrace + time.Second
	// settleTime is how long after initialize a polite stop waits before
	// closing the server's stdin; see settle.
	settleTime = 500 * time.Millisecond
	// initialFetchRounds bounds refetching while the server keeps announcing
	// changes during startup (it registers tools after initialize).
	initialFetchRounds = 3
)

// lists is a set of the server's lists, as a bit mask.
type lists uint8

const (
	listTools lists = 1 << iota
	listResources
	listTemplates
	listPrompts
)

// session is one MCP server process and the client connection to it.
type session struct {
	cfg    *config
	log    hclog.Logger
	proc   *process
	tr     *transport.Stdio
	client *client.Client
	info   *mcp.InitializeResult
	// startLimit says what bounded the start, for the error of one that
	// took too long.
	startLimit string
	// initialized is when the server answered initialize; a stop waits out
	// settleTime after it (see settle).
	initialized time.Time
	emit        func(protov1.Event) // to the plugin's Watch streams

	ctx    context.Context // ends when the session stops
	cancel context.CancelFunc
	ids    atomic.Int64

	mu        sync.Mutex
	tools     []protov1.Tool
	resources []protov1.Resource
	templates []protov1.ResourceTemplate
	prompts   []protov1.Prompt
	dirty     lists
	routes    map[string]*callRoute // by progress token
	running   map[*callRoute]struct{}
	asking    map[string]context.CancelFunc // the server's requests a client is being asked, by request id
	// taskTools are the tools the server runs as tasks (taskSupport
	// optional or required).
	taskTools map[string]bool
	taskAsks  taskAsks

	wake     chan struct{}
	stopping chan struct{}
	stopOnce sync.Once
	wg       sync.WaitGroup
}

// startSession starts the server, initializes it and fetches its lists. On
// failure the server is stopped and the error says why, with the server's
// exit status and last stderr lines when it died.
func startSession(ctx context.Context, cfg *config, log hclog.Logger, emit func(protov1.Event)) (*session, error) {
	proc, err := startProcess(cfg, log)
	if err != nil {
		return nil, err
	}
	log.Info("mcp server started", "command", cfg.command, "args", cfg.args, "pid", proc.cmd.Process.Pid)
	s := &session{
		cfg: cfg, log: log, proc: proc, emit: emit,
		routes: map[string]*callRoute{}, running: map[*callRoute]struct{}{}, asking: map[string]context.CancelFunc{},
		wake: make(chan struct{}, 1), stopping: make(chan struct{}),
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.tr = transport.NewIO(newJSONLines(proc.stdout, log), proc.stdin, nil)
	s.client = client.NewClient(s.tr, client.WithProtocolVersion(cfg.protocolVersion))
	s.client.OnNotification(s.onNotification)
	if err := s.client.Start(s.ctx); err != nil {
		return nil, s.abort("start client", err)
	}
	// After Start, which installs the client's own handler: requests from
	// the server go to the client of the call they belong to, as raw JSON.
	s.tr.SetRequestHandler(s.onServerRequest)

	budget, limit := startBudget(ctx, cfg.initTimeout)
	s.startLimit = limit
	initCtx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	// A server that dies mid-handshake must fail it at once, even if a
	// grandchild still holds its stdout open.
	go func() {
		select {
		case <-proc.exited:
			cancel()
		case <-initCtx.Done():
		}
	}()
	s.info, err = s.client.Initialize(initCtx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: cfg.protocolVersion,
		ClientInfo:      mcp.Implementation{Name: "toolgate", Version: cfg.clientVersion},
		Capabilities:    clientCapabilities(cfg.forwardRootsChanged),
	}})
	if err != nil {
		return nil, s.abort("initialize", err)
	}
	s.initialized = time.Now()
	if err := s.fetchInitial(initCtx); err != nil {
		return nil, s.abort("fetch lists", err)
	}
	log.Info("mcp server ready", "server", s.info.ServerInfo.Name, "server_version", s.info.ServerInfo.Version,
		"protocol", s.info.ProtocolVersion, "tools", len(s.tools), "resources", len(s.resources), "prompts", len(s.prompts))
	s.wg.Add(1)
	go s.refresher()
	return s, nil
}

// startBudget is how long starting the server may take: init_timeout, or
// less when the host's deadline for Configure (its start_timeout) comes
// sooner. Giving up answerMargin before the host does leaves time to stop the
// server and answer with what went wrong, its stderr included, instead of
// the host's bare "deadline exceeded". limit says which bound applied.
func startBudget(ctx context.Context, initTimeout time.Duration) (budget time.Duration, limit string) {
	limit = "init_timeout " + initTimeout.String()
	deadline, ok := ctx.Deadline()
	if !ok {
		return initTimeout, limit
	}
	left := time.Until(deadline)
	budget = max(left-answerMargin, left/2)
	if budget >= initTimeout {
		return initTimeout, limit
	}
	return budget, fmt.Sprintf("%s, what the plugin's start_timeout left of %s", budget.Round(time.Millisecond), limit)
}

// abort stops a session that failed to start and explains why.
func (s *session) abort(stage string, err error) error {
	if errors.Is(err, transport.ErrTransportClosed) {
		select {
		case <-s.proc.exited:
		case <-time.After(exitWait):
		}
	}
	died := false
	select {
	case <-s.proc.exited:
		died = true
	default:
	}
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("no answer within %s: %w", s.startLimit, err)
	}
	// A server that did not answer in time gets no long goodbye.
	s.stopWithin(abortGrace)
	if died {
		return fmt.Errorf("%s: %w", stage, s.proc.exitError())
	}
	if tail := s.proc.stderrTail(); len(tail) > 0 {
		return fmt.Errorf("%s: %w; last stderr lines:\n%s", stage, err, strings.Join(tail, "\n"))
	}
	return fmt.Errorf("%s: %w", stage, err)
}

// stop ends the server and every goroutine of the session.
func (s *session) stop() { s.stopWithin(stopGrace) }

// settle waits, within grace, until settleTime has passed since the server
// initialized. Servers do work of their own just after initialize; the
// client capabilities the plugin declares lead server-everything to ask for
// roots 350 ms later, and a request of a server's own still pending at stdin
// EOF keeps it running until it times out, so only SIGTERM would end it.
func (s *session) settle(grace time.Duration) {
	wait := min(time.Until(s.initialized.Add(settleTime)), grace)
	if wait <= 0 {
		return
	}
	select {
	case <-time.After(wait):
	case <-s.proc.exited:
	}
}

func (s *session) stopWithin(grace time.Duration) {
	s.stopOnce.Do(func() { close(s.stopping) })
	_ = s.client.Close()
	s.proc.stop(grace)
	s.cancel()
	s.wg.Wait()
}

func (s *session) stopped() bool {
	select {
	case <-s.stopping:
		return true
	default:
		return false
	}
}

// request sends one JSON-RPC request and returns its raw result. A request
// whose ctx ends is cancelled at the server with notifications/cancelled;
// the transport has then already forgotten it, so a server that never
// answers leaves nothing behind.
func (s *session) request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	id := mcp.NewRequestId("toolgate-" + strconv.FormatInt(s.ids.Add(1), 10))
	resp, err := s.tr.SendRequest(ctx, transport.JSONRPCRequest{
		JSONRPC: mcp.JSONRPC_VERSION, ID: id, Method: method, Params: params,
	})
	switch {
	case err == nil && resp.Error != nil:
		return nil, rpcError(method, resp.Error)
	case err == nil:
		return resp.Result, nil
	case ctx.Err() != nil:
		s.cancelRequest(id, ctx.Err())
		return nil, ctx.Err()
	case errors.Is(err, transport.ErrTransportClosed), errors.Is(err, syscall.EPIPE), errors.Is(err, os.ErrClosed):
		// Its stdout closed, or its stdin did: the server is gone, whichever
		// the transport noticed first.
		return nil, fmt.Errorf("%s: %w: %v", method, ErrServerGone, err)
	}
	return nil, fmt.Errorf("%s: %w", method, err)
}

func (s *session) cancelRequest(id mcp.RequestId, reason error) {
	err := s.tr.SendNotification(context.Background(), mcp.JSONRPCNotification{
		JSONRPC: mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{
			Method: string(mcp.MethodNotificationCancelled),
			Params: mcp.NotificationParams{AdditionalFields: map[string]any{
				"requestId": id.Value(), "reason": reason.Error()}},
		},
	})
	if err != nil {
		s.log.Debug("send cancellation", "request", id.Value(), "error", err)
	}
}

// declared is the set of lists the server said it has.
func (s *session) declared() lists {
	var l lists
	caps := s.info.Capabilities
	if caps.Tools != nil {
		l |= listTools
	}
	if caps.Resources != nil {
		l |= listResources | listTemplates
	}
	if caps.Prompts != nil {
		l |= listPrompts
	}
	return l
}

// fetchInitial fetches every declared list, then again whatever the server
// announced as changed meanwhile, so the lists Configure leaves behind are
// the ones the server settled on.
func (s *session) fetchInitial(ctx context.Context) error {
	want := s.declared()
	for round := 0; round < initialFetchRounds; round++ {
		which := s.takeDirty() & want
		if round == 0 {
			which = want
		}
		if which == 0 {
			return nil
		}
		if err := s.refresh(ctx, which); err != nil {
			return err
		}
	}
	return nil
}

func (s *session) markDirty(l lists) {
	s.mu.Lock()
	s.dirty |= l
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *session) takeDirty() lists {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.dirty
	s.dirty = 0
	return l
}

// refresher refetches the lists the server announced as changed and tells
// the Watch streams, which then read the new lists.
func (s *session) refresher() {
	defer s.wg.Done()
	for {
		select {
		case <-s.stopping:
			return
		case <-s.proc.exited:
			return
		case <-s.wake:
		}
		which := s.takeDirty() & s.declared()
		if which == 0 {
			continue
		}
		ctx, cancel := context.WithTimeout(s.ctx, s.cfg.initTimeout)
		err := s.refresh(ctx, which)
		cancel()
		if err != nil {
			if !s.stopped() {
				s.log.Warn("refetch lists after a change notice", "error", err)
			}
			continue
		}
		if which&listTools != 0 {
			s.emit(protov1.Event{Kind: protov1.EventToolsChanged})
		}
		if which&(listResources|listTemplates) != 0 {
			s.emit(protov1.Event{Kind: protov1.EventResourcesChanged})
		}
		if which&listPrompts != 0 {
			s.emit(protov1.Event{Kind: protov1.EventPromptsChanged})
		}
	}
}

// refresh fetches the given lists and replaces the cached ones.
func (s *session) refresh(ctx context.Context, which lists) error {
	if which&listTools != 0 {
		ws, err := listAll[wireTool](ctx, s, "tools/list", "tools")
		if err != nil {
			return err
		}
		out := make([]protov1.Tool, len(ws))
		taskTools := map[string]bool{}
		for i, w := range ws {
			out[i] = toolFromWire(w)
			if w.Execution != nil && (w.Execution.TaskSupport == "optional" || w.Execution.TaskSupport == "required") {
				taskTools[w.Name] = true
			}
		}
		s.mu.Lock()
		s.tools, s.taskTools = out, taskTools
		s.mu.Unlock()
	}
	if which&listResources != 0 {
		ws, err := listAll[wireResource](ctx, s, "resources/list", "resources")
		if err != nil {
			return err
		}
		out := make([]protov1.Resource, len(ws))
		for i, w := range ws {
			out[i] = resourceFromWire(w)
		}
		s.mu.Lock()
		s.resources = out
		s.mu.Unlock()
	}
	if which&listTemplates != 0 {
		ws, err := listAll[wireResource](ctx, s, "resources/templates/list", "resourceTemplates")
		if err != nil {
			return err
		}
		out := make([]protov1.ResourceTemplate, len(ws))
		for i, w := range ws {
			out[i] = templateFromWire(w)
		}
		s.mu.Lock()
		s.templates = out
		s.mu.Unlock()
	}
	if which&listPrompts != 0 {
		ws, err := listAll[wirePrompt](ctx, s, "prompts/list", "prompts")
		if err != nil {
			return err
		}
		out := make([]protov1.Prompt, len(ws))
		for i, w := range ws {
			out[i] = promptFromWire(w)
		}
		s.mu.Lock()
		s.prompts = out
		s.mu.Unlock()
	}
	return nil
}

// listAll follows a paginated list to its end. A server that declared a
// capability but lacks one of its list methods (templates, typically) has an
// empty list.
func listAll[W any](ctx context.Context, s *session, method, field string) ([]W, error) {
	var (
		out    []W
		cursor string
		seen   = map[string]bool{}
	)
	for {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		raw, err := s.request(ctx, method, params)
		var rpcErr *RPCError
		if errors.As(err, &rpcErr) && rpcErr.Code == mcp.METHOD_NOT_FOUND {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		var page map[string]json.RawMessage
		if err := json.Unmarshal(raw, &page); err != nil {
			return nil, fmt.Errorf("%s: decode: %w", method, err)
		}
		if list := present(page[field]); list != nil {
			var items []W
			if err := json.Unmarshal(list, &items); err != nil {
				return nil, fmt.Errorf("%s: decode %s: %w", method, field, err)
			}
			out = append(out, items...)
		}
		cursor = ""
		if c := present(page["nextCursor"]); c != nil {
			if err := json.Unmarshal(c, &cursor); err != nil {
				return nil, fmt.Errorf("%s: decode nextCursor: %w", method, err)
			}
		}
		if cursor == "" {
			return out, nil
		}
		if seen[cursor] {
			return nil, fmt.Errorf("%s: cursor %q repeated", method, cursor)
		}
		seen[cursor] = true
	}
}
