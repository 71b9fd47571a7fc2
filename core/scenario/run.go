package scenario

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/toolgate/toolgate/core/client"
)

// Gateway is a running gateway a scenario talks to.
type Gateway struct {
	URL, Token string
	// Stop ends a gateway the runner started; nil for one it did not.
	Stop func()
}

// Runner runs scenario files and reports on Out as it goes.
type Runner struct {
	// StartGateway serves a config file for the scenarios that name it; each
	// config is started once per Run and stopped at its end.
	StartGateway func(ctx context.Context, config string) (*Gateway, error)
	// Config, when set, replaces every scenario's config and url.
	Config string
	// URL, when set, is the gateway for every scenario; Token authenticates.
	URL, Token string
	// StepTimeout bounds one call of a step (60s when 0).
	StepTimeout time.Duration
	Out         io.Writer
}

// Run runs every file in order. Scenario failures are in the report; the
// error is for a ctx that ended.
func (r *Runner) Run(ctx context.Context, files []string) (*Report, error) {
	rep := &Report{}
	gateways := map[string]*Gateway{}
	defer func() {
		for _, gw := range gateways {
			if gw.Stop != nil {
				gw.Stop()
			}
		}
	}()
	for _, file := range files {
		suite := r.runFile(ctx, file, gateways)
		rep.add(suite)
		if ctx.Err() != nil {
			// What ran is still reported: a CI job cancelled midway shows
			// how far it got.
			fmt.Fprintf(r.Out, "%d passed, %d failed (interrupted)\n", rep.Passed, rep.Failed)
			return rep, ctx.Err()
		}
	}
	fmt.Fprintf(r.Out, "%d passed, %d failed\n", rep.Passed, rep.Failed)
	return rep, nil
}

func (r *Runner) runFile(ctx context.Context, file string, gateways map[string]*Gateway) *Suite {
	start := time.Now()
	s, err := Load(file)
	if err != nil {
		suite := &Suite{Name: file, File: file}
		suite.fail("load", err.Error(), start)
		// A JUnit reader links the case to the line the problem is on.
		var le *LoadError
		if errors.As(err, &le) {
			suite.Cases[0].Line = le.Line
		}
		r.report(suite, &suite.Cases[0])
		return suite
	}
	suite := &Suite{Name: s.Name, File: file}
	fmt.Fprintf(r.Out, "=== %s (%s)\n", s.Name, file)
	c, err := r.connect(ctx, s, gateways)
	if err != nil {
		suite.fail("connect", fmt.Sprintf("%s: %v", file, err), start)
		r.report(suite, &suite.Cases[0])
		return suite
	}
	defer c.Close()

	results := map[string]*stepResult{}
	failed := false
	for i := range s.Steps {
		st := &s.Steps[i]
		tc := Case{Name: st.Name, Line: st.Line}
		switch {
		case ctx.Err() != nil:
			tc.Skipped = "interrupted"
		case failed:
			tc.Skipped = "an earlier step failed"
		default:
			begin := time.Now()
			msg := r.runStep(ctx, c, st, results)
			tc.Time = time.Since(begin)
			if msg != "" {
				tc.Failure = fmt.Sprintf("%s:%d: step %q: %s", file, st.Line, st.Name, msg)
				failed = true
			}
		}
		suite.Cases = append(suite.Cases, tc)
		r.report(suite, &suite.Cases[len(suite.Cases)-1])
	}
	suite.Time = time.Since(start)
	return suite
}

// connect finds the scenario's gateway: --url, --config, its url, its
// config, in that order; a config's gateway is started once and shared.
func (r *Runner) connect(ctx context.Context, s *Scenario, gateways map[string]*Gateway) (*client.Client, error) {
	url, token, config := r.URL, r.Token, r.Config
	if url == "" && config == "" {
		url, config = s.URL, s.Config
	}
	switch {
	case url != "":
	case config == "":
		return nil, errNoTarget
	default:
		key, err := filepath.Abs(config)
		if err != nil {
			return nil, fmt.Errorf("config %s: %w", config, err)
		}
		gw, ok := gateways[key]
		if !ok {
			if r.StartGateway == nil {
				return nil, fmt.Errorf("config %s: this runner cannot start gateways; give a url", config)
			}
			if gw, err = r.StartGateway(ctx, config); err != nil {
				return nil, err
			}
			gateways[key] = gw
		}
		url, token = gw.URL, gw.Token
	}
	return client.Connect(ctx, client.Options{URL: url, Token: token, ReconnectWindow: 5 * time.Second}, "toolgate-test", "1")
}

// runStep calls the step's tool, repeating it under wait_for, and returns
// why it failed ("" when it passed).
func (r *Runner) runStep(ctx context.Context, c *client.Client, st *Step, results map[string]*stepResult) string {
	args, err := render(st.Args, results)
	if err != nil {
		return err.Error()
	}
	in, _ := args.(map[string]any)
	deadline, interval, timeout := time.Now(), time.Second, 30*time.Second
	if st.WaitFor != nil {
		if st.WaitFor.Timeout > 0 {
			timeout = time.Duration(st.WaitFor.Timeout)
		}
		if st.WaitFor.Interval > 0 {
			interval = time.Duration(st.WaitFor.Interval)
		}
		deadline = deadline.Add(timeout)
	}
	for tries := 1; ; tries++ {
		res, msg := r.callOnce(ctx, c, st, in, results)
		if msg == "" {
			results[st.Name] = &stepResult{text: allText(res), json: resultJSON(res), isError: res.IsError}
			return ""
		}
		if st.WaitFor == nil || !time.Now().Add(interval).Before(deadline) || ctx.Err() != nil {
			if st.WaitFor != nil {
				return fmt.Sprintf("wait_for: still not matched after %s (%d tries); last: %s", timeout, tries, msg)
			}
			return msg
		}
		select {
		case <-time.After(interval):
		case <-ctx.Done():
		}
	}
}

func (r *Runner) callOnce(ctx context.Context, c *client.Client, st *Step, in map[string]any, results map[string]*stepResult) (*client.ToolResult, string) {
	timeout := r.StepTimeout
	if st.Timeout > 0 {
		timeout = time.Duration(st.Timeout)
	}
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	callCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var res *client.ToolResult
	var err error
	switch {
	case st.Call != "" && st.Timeout > 0:
		// The step's timeout is the call's deadline at the gateway too,
		// which otherwise ends the call at its own call_timeout.
		res, err = c.CallTool(callCtx, st.Call, in, client.WithTimeout(timeout))
	case st.Call != "":
		res, err = c.CallTool(callCtx, st.Call, in)
	default:
		res, err = c.Meta(callCtx, st.Meta, in)
	}
	switch {
	case ctx.Err() != nil:
		return nil, "interrupted"
	case errors.Is(err, context.DeadlineExceeded):
		return nil, fmt.Sprintf("no answer within %s", timeout)
	case err != nil:
		return nil, err.Error()
	}
	msg, err := st.Expect.check(res, results)
	if err != nil {
		return nil, err.Error()
	}
	return res, msg
}

func (r *Runner) report(s *Suite, c *Case) {
	switch {
	case c.Failure != "":
		fmt.Fprintf(r.Out, "FAIL  %s/%s (%s)\n      %s\n", s.Name, c.Name, c.Time.Round(time.Millisecond), c.Failure)
	case c.Skipped != "":
		fmt.Fprintf(r.Out, "SKIP  %s/%s (%s)\n", s.Name, c.Name, c.Skipped)
	default:
		fmt.Fprintf(r.Out, "PASS  %s/%s (%s)\n", s.Name, c.Name, c.Time.Round(time.Millisecond))
	}
}
