package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"text/tabwriter"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/toolgate/toolgate/core/client"
	"github.com/toolgate/toolgate/core/config"
	"github.com/toolgate/toolgate/core/metatools"
)

// clientFlags are the flags of every command that talks to a gateway.
type clientFlags struct {
	url, config, token, output string
	// elicit, when set, answers the gateway's elicitation requests.
	elicit func(context.Context, json.RawMessage) json.RawMessage
}

// add registers the flags on cmd; persistent so subcommands inherit them.
func (f *clientFlags) add(cmd *cobra.Command) {
	fs := cmd.PersistentFlags()
	fs.StringVar(&f.url, "url", client.DefaultURL, "the gateway's streamable HTTP endpoint")
	fs.StringVar(&f.config, "config", "", "run a gateway in-process with this config for the command, instead of --url")
	fs.StringVar(&f.token, "token", "", "bearer token for the gateway (default $TOOLGATE_TOKEN)")
	addOutputFlag(cmd, fs, &f.output)
}

// addOutputFlag defines -o the way every command that prints a result
// spells it.
func addOutputFlag(cmd *cobra.Command, fs *pflag.FlagSet, output *string) {
	fs.StringVarP(output, "output", "o", "table", "output format: table or json")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"table", "json"}, cobra.ShellCompDirectiveNoFileComp))
}

// addPageFlags defines --limit and --offset of a listing of what, refused
// out of range before any call: the client leaves a limit of 0 to the
// gateway's default, a page the user did not ask for, and the gateway's
// refusal of a larger one would name its meta-tool's argument.
func addPageFlags(c *cobra.Command, page *client.Page, what string, limit int) {
	c.Flags().IntVar(&page.Limit, "limit", limit, "at most this many "+what)
	c.Flags().IntVar(&page.Offset, "offset", 0, "skip this many "+what)
	c.PreRunE = func(*cobra.Command, []string) error {
		if page.Limit < 1 || page.Limit > metatools.MaxLimit {
			return fmt.Errorf("--limit %d: want 1 to %d", page.Limit, metatools.MaxLimit)
		}
		if page.Offset < 0 {
			return fmt.Errorf("--offset %d: want 0 or more", page.Offset)
		}
		return nil
	}
}

// checkOutput refuses an -o value other than table or json.
func checkOutput(output string) error {
	if output != "table" && output != "json" {
		return fmt.Errorf("-o %q: want table or json", output)
	}
	return nil
}

func (f *clientFlags) json() bool { return f.output == "json" }

// session is a connected client and what ends it.
type session struct {
	*client.Client
	stop func()
}

func (s *session) Close() { s.stop() }

// connect checks the flags and opens a session with the gateway they name,
// starting one in-process for --config.
func (f *clientFlags) connect(cmd *cobra.Command) (*session, error) {
	if err := checkOutput(f.output); err != nil {
		return nil, err
	}
	ctx := cmd.Context()
	url, token := f.url, f.token
	if token == "" {
		token = os.Getenv("TOOLGATE_TOKEN")
	}
	stopGateway := func() {}
	if f.config != "" {
		if cmd.Flags().Changed("url") {
			return nil, errors.New("use either --url or --config, not both")
		}
		gw, err := startGateway(ctx, f.config)
		if err != nil {
			return nil, err
		}
		url, token, stopGateway = gw.url, gw.token, gw.stop
	}
	c, err := client.Connect(ctx, client.Options{URL: url, Token: token, ReconnectWindow: 2 * time.Second, Elicit: f.elicit}, "toolgate-cli", version)
	if err != nil {
		stopGateway()
		return nil, err
	}
	if f.config != "" {
		settle(ctx, c)
	}
	return &session{Client: c, stop: func() { _ = c.Close(); stopGateway() }}, nil
}

// inProcess is a gateway this process runs for one command or test run.
type inProcess struct {
	url, token string
	stop       func()
}

// startGateway serves configPath on an ephemeral loopback port, with a fresh
// token so no other local process can use it, until stop.
func startGateway(ctx context.Context, configPath string) (*inProcess, error) {
	cfg, err := config.Resolve(configPath)
	if err != nil {
		return nil, err
	}
	if err := cfg.Layer(nil); err != nil {
		return nil, err
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("token for the in-process gateway: %w", err)
	}
	token := hex.EncodeToString(b[:])
	cfg.Listen.HTTP, cfg.Listen.Tokens = "127.0.0.1:0", []string{token}
	cfg.Listen.TLSCert, cfg.Listen.TLSKey = "", ""
	// The command's own output matters here; the gateway speaks up only for
	// trouble unless asked for more.
	level := hclog.Warn
	if os.Getenv("TOOLGATE_LOG_LEVEL") != "" {
		level = hclog.LevelFromString(cfg.Gateway.LogLevel)
	}
	logger := gatewayLogger(cfg, level)

	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	ready := make(chan net.Addr, 1)
	served := make(chan error, 1)
	go func() { served <- serve(runCtx, cfg, logger, nil, nil, func(a net.Addr) { ready <- a }) }()
	select {
	case a := <-ready:
		return &inProcess{
			url: fmt.Sprintf("http://%s/mcp", a), token: token,
			stop: func() { cancel(); <-served },
		}, nil
	case err := <-served:
		cancel()
		if err == nil {
			err = errors.New("gateway stopped before serving")
		}
		return nil, fmt.Errorf("start gateway for %s: %w", configPath, err)
	}
}

// settle waits, a bounded time, for plugins that are still starting, so a
// command run against a fresh in-process gateway sees their tools.
func settle(ctx context.Context, c *client.Client) {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		plugins, err := c.Plugins(ctx)
		if err != nil {
			return
		}
		starting := false
		for _, p := range plugins {
			starting = starting || p.State == "starting"
		}
		if !starting || sleepCtx(ctx, 100*time.Millisecond) != nil {
			return
		}
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// toolFailure turns a meta-tool's isError answer, or a failure that puts it
// in the CLI's words, into its message (and hint) on stderr and exit status
// 1; other errors pass through (exit status 2).
func toolFailure(cmd *cobra.Command, err error) error {
	var f *failure
	if errors.As(err, &f) {
		fmt.Fprintln(cmd.ErrOrStderr(), "error:", f.message)
		if f.hint != "" {
			fmt.Fprintln(cmd.ErrOrStderr(), "hint:", f.hint)
		}
		return exitError{code: 1}
	}
	var te *client.ToolError
	if errors.As(err, &te) {
		fmt.Fprintln(cmd.ErrOrStderr(), "error:", te.Message)
		return exitError{code: 1}
	}
	return err
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// table writes rows under a header, in aligned columns.
func table(w io.Writer, header []string, rows [][]string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	line := func(cells []string) {
		for i, c := range cells {
			if i > 0 {
				fmt.Fprint(tw, "\t")
			}
			fmt.Fprint(tw, c)
		}
		fmt.Fprintln(tw)
	}
	line(header)
	for _, r := range rows {
		line(r)
	}
	return tw.Flush()
}

// show connects to the gateway, asks it with fetch, and prints the answer: as
// JSON with -o json, otherwise with text.
func show[T any](cmd *cobra.Command, f *clientFlags, fetch func(context.Context, *session) (T, error), text func(T) error) error {
	s, err := f.connect(cmd)
	if err != nil {
		return err
	}
	defer s.Close()
	v, err := fetch(cmd.Context(), s)
	if err != nil {
		return toolFailure(cmd, err)
	}
	if f.json() {
		return printJSON(cmd.OutOrStdout(), v)
	}
	return text(v)
}
