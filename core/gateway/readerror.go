package gateway

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// mcp-go answers every error of a resource, prompt or completion handler
// with -32603, internal error. When a plugin says that the resource does not
// exist, or that the URI is not a valid one, or a prompts/get lacks an
// argument the prompt requires, or a completion's ref names nothing served,
// that is not the gateway's fault: MCP has codes for these (-32002, or
// invalid params on 2026-07-28; -32602), which a client may act on. The
// handler marks the request; dispatch corrects the code.

type readErrorKey struct{}

// markReadError tells dispatch what err, from the handler serving ctx's
// resources/read or prompts/get, means.
func markReadError(ctx context.Context, err error) {
	mark, ok := ctx.Value(readErrorKey{}).(*atomic.Int32)
	if !ok {
		return
	}
	switch {
	case errors.Is(err, protov1.ErrNotFound):
		mark.Store(mcp.RESOURCE_NOT_FOUND)
	case errors.Is(err, protov1.ErrInvalidArgument):
		mark.Store(codeInvalidParams)
	}
}

// watchReadError prepares ctx for markReadError on a resources/read,
// prompts/get or completion/complete.
func watchReadError(ctx context.Context, env *envelope) (context.Context, *atomic.Int32) {
	switch mcp.MCPMethod(env.Method) {
	case mcp.MethodResourcesRead, mcp.MethodPromptsGet, mcp.MethodCompletionComplete:
	default:
		return ctx, nil
	}
	if !env.isRequest() {
		return ctx, nil
	}
	mark := new(atomic.Int32)
	return context.WithValue(ctx, readErrorKey{}, mark), mark
}

// readErrorCode gives a marked request's internal-error answer the code its
// handler's error calls for.
func readErrorCode(resp any, mark *atomic.Int32, env *envelope) any {
	r, ok := resp.(rpcResponse)
	if mark == nil || mark.Load() == 0 || !ok || r.Error == nil || r.Error.Code != codeInternalError {
		return resp
	}
	e := *r.Error
	e.Code = int(mark.Load())
	if e.Code == mcp.RESOURCE_NOT_FOUND && (env.modern() || env.Method != string(mcp.MethodResourcesRead)) {
		// 2026-07-28 has no code of its own for it, and a prompt or ref
		// that is not there is an invalid param on every version.
		e.Code = codeInvalidParams
	}
	r.Error = &e
	return r
}

// unknownNativeAnswer answers a prompts/get or resources/read of a name or
// URI the sources do not serve with their own words, which say what the
// client probably meant, instead of mcp-go's. The codes are MCP's: invalid
// params for a prompt; for a resource, -32002 before 2026-07-28 and invalid
// params from it on (SEP-2164), with the URI in data as both ask.
func (s *Server) unknownNativeAnswer(env *envelope) *rpcResponse {
	p := env.callParams()
	var r rpcResponse
	switch {
	case env.Method == string(mcp.MethodPromptsGet) && s.opts.Prompts != nil:
		err := s.opts.Prompts.UnknownPrompt(p.Name)
		if err == nil {
			return nil
		}
		r = errorResponse(env.ID, codeInvalidParams, err.Error())
	case env.Method == string(mcp.MethodResourcesRead) && s.opts.PluginResources != nil:
		err := s.opts.PluginResources.UnknownResource(p.URI)
		if err == nil {
			return nil
		}
		code := mcp.RESOURCE_NOT_FOUND
		if env.modern() {
			code = codeInvalidParams
		}
		r = errorResponse(env.ID, code, err.Error())
		r.Error.Data = map[string]string{"uri": p.URI}
	default:
		return nil
	}
	return &r
}
