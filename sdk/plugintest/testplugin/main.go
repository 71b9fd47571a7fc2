// Command testplugin is a plugin that misbehaves on request — crashes, hangs,
// panics, spawns children, reports its environment — so hosts can test how they
// cope with real process failures.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/toolgate/toolgate/sdk/plugin"
)

type sleepArgs struct {
	MS int `json:"ms" description:"How long to sleep, in milliseconds."`
}

type exitArgs struct {
	Code int `json:"code" description:"Exit code."`
}

type echoArgs struct {
	Text string `json:"text" description:"Text to send back."`
}

// rootsChanged counts the host's notices that a client's roots changed.
var rootsChanged atomic.Int64

func main() {
	if os.Getenv("TESTPLUGIN_DIE_AT_START") != "" {
		fmt.Fprintln(os.Stderr, "testplugin: dying at start as asked")
		os.Exit(3)
	}
	p := &plugin.Plugin{
		Name:    "testplugin",
		Version: "0.0.1",
		Tools: []plugin.Tool{
			plugin.NewTool("echo", "Send the text back.", func(_ context.Context, _ *plugin.Call, in echoArgs) (*plugin.Result, error) {
				return plugin.Text(in.Text), nil
			}, plugin.ReadOnly(), plugin.Idempotent()),
			plugin.NewTool("sleep", "Sleep, reporting progress every 10 ms, until done or cancelled.", func(ctx context.Context, call *plugin.Call, in sleepArgs) (*plugin.Result, error) {
				deadline := time.Now().Add(time.Duration(in.MS) * time.Millisecond)
				for i := 0; time.Now().Before(deadline); i++ {
					call.Progress(float64(i), 0, "sleeping")
					select {
					case <-ctx.Done():
						return nil, ctx.Err()
					case <-time.After(10 * time.Millisecond):
					}
				}
				return plugin.Text("slept"), nil
			}),
			plugin.NewTool("exit", "Exit the plugin process at once with the given code.", func(_ context.Context, _ *plugin.Call, in exitArgs) (*plugin.Result, error) {
				os.Exit(in.Code)
				return nil, nil
			}, plugin.Destructive()),
			plugin.NewTool("panic", "Panic inside the handler.", func(context.Context, *plugin.Call, struct{}) (*plugin.Result, error) {
				panic("boom")
			}),
			plugin.NewTool("spawn", "Start a child process that sleeps for an hour; answer its pid.", func(context.Context, *plugin.Call, struct{}) (*plugin.Result, error) {
				cmd := exec.Command("sleep", "3600")
				if err := cmd.Start(); err != nil {
					return nil, err
				}
				go func() { _ = cmd.Wait() }()
				return plugin.Text(fmt.Sprint(cmd.Process.Pid)), nil
			}),
			plugin.NewTool("env", "List the names of the environment variables the plugin was given.", func(context.Context, *plugin.Call, struct{}) (*plugin.Result, error) {
				var names []string
				for _, kv := range os.Environ() {
					names = append(names, strings.SplitN(kv, "=", 2)[0])
				}
				sort.Strings(names)
				return plugin.Text(strings.Join(names, "\n")), nil
			}, plugin.ReadOnly()),
			plugin.NewTool("stdin", "Report what reading stdin gives.", func(context.Context, *plugin.Call, struct{}) (*plugin.Result, error) {
				n, err := os.Stdin.Read(make([]byte, 1))
				return plugin.Text(fmt.Sprintf("read %d bytes, err=%v", n, err)), nil
			}, plugin.ReadOnly()),
			plugin.NewTool("sample", "Ask the calling client's model to complete the text; answer what it said.", func(ctx context.Context, call *plugin.Call, in echoArgs) (*plugin.Result, error) {
				res, err := call.Sample(ctx, plugin.SampleRequest{Messages: []plugin.SamplingMessage{plugin.UserText(in.Text)}, MaxTokens: 10})
				if err != nil {
					return nil, err
				}
				return plugin.Text(res.Content.Text()), nil
			}),
			plugin.NewTool("roots_changed", "Say how many times the plugin heard that a client's roots changed.", func(context.Context, *plugin.Call, struct{}) (*plugin.Result, error) {
				return plugin.Text(fmt.Sprint(rootsChanged.Load())), nil
			}, plugin.ReadOnly()),
			plugin.NewTool("log", "Log the text through a logger made in the handler, and write it to stderr.", func(_ context.Context, _ *plugin.Call, in echoArgs) (*plugin.Result, error) {
				plugin.Logger().Warn("handler log", "text", in.Text)
				fmt.Fprintln(os.Stderr, "handler stderr: "+in.Text)
				return plugin.Text("logged"), nil
			}),
		},
	}
	p.RootsChanged = func(context.Context) error {
		rootsChanged.Add(1)
		return nil
	}
	// With TESTPLUGIN_HANG_CONFIGURE_FILE, only a start made once the file
	// exists hangs: the plugin first starts well and tells its tools.
	hangFile := os.Getenv("TESTPLUGIN_HANG_CONFIGURE_FILE")
	if os.Getenv("TESTPLUGIN_HANG_CONFIGURE") != "" || hangFile != "" {
		p.Configure = func(ctx context.Context, _ json.RawMessage) error {
			if _, err := os.Stat(hangFile); hangFile != "" && err != nil {
				return nil
			}
			// Said, so a host's test knows the start is in Configure now.
			fmt.Fprintf(os.Stderr, "testplugin: pid %d hanging in configure as asked\n", os.Getpid())
			<-ctx.Done()
			return ctx.Err()
		}
	}
	if f := os.Getenv("TESTPLUGIN_UNHEALTHY_FILE"); f != "" {
		// Healthy until the file exists: a backend that goes bad while its
		// process keeps serving.
		p.Health = func(context.Context) error {
			if _, err := os.Stat(f); err == nil {
				return errors.New("backend unhealthy as asked")
			}
			return nil
		}
	}
	plugin.Serve(p)
	if os.Getenv("TESTPLUGIN_HANG_ON_EXIT") != "" {
		// A plugin whose own clean-up never ends: the host's polite stop
		// has to end in a kill.
		fmt.Fprintln(os.Stderr, "testplugin: hanging on exit as asked")
		time.Sleep(time.Hour)
	}
}
