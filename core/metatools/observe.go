package metatools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// CallObserver learns of every call_tool, so metrics, traces and an audit log
// can follow calls without the handlers knowing about any of them.
type CallObserver interface {
	// CallStarted is told of a call_tool before its arguments are read. The
	// call runs under the context it returns (a tracer puts its span there;
	// outgoing gRPC metadata in it reaches the plugin), and end is called
	// exactly once, when the call has its answer.
	CallStarted(ctx context.Context) (_ context.Context, end func(CallRecord))
}

// Outcome is how a call_tool ended, as one word an operator can count.
type Outcome string

const (
	OutcomeOK               Outcome = "ok"                // the tool answered without isError
	OutcomeToolError        Outcome = "tool_error"        // the tool answered with isError
	OutcomeInvalidArguments Outcome = "invalid_arguments" // call_tool's or the tool's arguments were refused
	OutcomeUnknownTool      Outcome = "unknown_tool"      // no such tool (or the plugin no longer has it)
	OutcomeTimeout          Outcome = "timeout"           // the call's deadline passed
	OutcomeCancelled        Outcome = "cancelled"         // the client gave up
	OutcomeCrash            Outcome = "crash"             // the plugin died during the call
	OutcomeUnavailable      Outcome = "unavailable"       // the plugin could not take the call
	OutcomeError            Outcome = "error"             // any other failure on the way
	OutcomeDenied           Outcome = "denied"            // a tool that may delete data was refused or declined (permit.go)
	OutcomeInputRequired    Outcome = "input_required"    // the client is asked first, on MCP 2026-07-28
)

// Outcomes lists every Outcome.
func Outcomes() []Outcome {
	return []Outcome{OutcomeOK, OutcomeToolError, OutcomeInvalidArguments, OutcomeUnknownTool,
		OutcomeTimeout, OutcomeCancelled, OutcomeCrash, OutcomeUnavailable, OutcomeError, OutcomeDenied, OutcomeInputRequired}
}

// CallRecord is what an observer hears of one call_tool. It never holds the
// arguments themselves: they may carry secrets.
type CallRecord struct {
	// Name is the tool name as the client sent it ("" when it sent none).
	Name string
	// Tool is the name of the tool that ran (a catalog name or a core tool),
	// "" when Name matched none: unlike Name, its values are bounded.
	Tool string
	// Plugin owns Tool; "" for core tools and unmatched names. A name of a
	// configured plugin that could not list its tools has the plugin, with
	// Tool "".
	Plugin        string
	Outcome       Outcome
	ArgumentBytes int // size of the "arguments" JSON as sent
	Duration      time.Duration
	// Error is the failure's text as the client read it; "" when OutcomeOK.
	Error string
}

// observe runs call under the observer, if any, and tells it how it ended.
func (h *Handlers) observe(ctx context.Context, raw json.RawMessage, events protov1.CallEvents,
	call func(context.Context, json.RawMessage, protov1.CallEvents, *CallRecord) (*protov1.Result, error)) (*protov1.Result, error) {
	var rec CallRecord
	if h.Observer == nil {
		return call(ctx, raw, events, &rec)
	}
	start := time.Now()
	ctx, end := h.Observer.CallStarted(ctx)
	res, err := call(ctx, raw, events, &rec)
	rec.Duration = time.Since(start)
	var ae *ArgumentError
	switch {
	case errors.As(err, &ae):
		rec.Outcome, rec.Error = OutcomeInvalidArguments, ae.Error()
	case err != nil:
		rec.Outcome, rec.Error = OutcomeError, err.Error()
	case res == nil:
		rec.Outcome = OutcomeError
	case res.IsError:
		if rec.Outcome == "" {
			rec.Outcome = OutcomeToolError
		}
		rec.Error = resultText(res)
	case rec.Outcome == "":
		rec.Outcome = OutcomeOK
	}
	end(rec)
	return res, err
}

// resultText is the text an isError result gives the model.
func resultText(res *protov1.Result) string {
	var parts []string
	for _, c := range res.Content {
		if c.Kind == protov1.KindText && c.Text != "" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}
