package gateway

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// FuzzCheckHeaders sends a 2026-07-28 request with arbitrary headers and
// arguments through the header checks: what they let through has headers
// that agree with the body, so a router that read only the headers was not
// misled, and a tool's x-mcp-header parameter is in the header exactly when
// its argument is in the body.
func FuzzCheckHeaders(f *testing.F) {
	v := mcp.ProtocolVersion20260728
	f.Add(v, uint8(0), "regional", `{"region":"eu"}`, v, "tools/call", "regional", "eu", true)
	f.Add(v, uint8(0), "regional", `{"region":"é"}`, v, "tools/call", "regional", "=?base64?w6k=?=", true)
	f.Add(v, uint8(0), "regional", `{"region":""}`, v, "tools/call", "=?base64?cmVnaW9uYWw=?=", "", true)
	f.Add(v, uint8(1), "", `{}`, v, "ping", "", "", false)
	f.Add("2025-06-18", uint8(2), "p", `{}`, "2025-06-18", "", "", "", false)
	fx, err := buildFixture(func(o *Options) {
		o.Tools = append(o.Tools, Tool{Name: "regional", Description: "Answers for one region.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`),
			Handle: func(context.Context, json.RawMessage, protov1.CallEvents) (*protov1.Result, error) {
				return &protov1.Result{}, nil
			}})
	})
	if err != nil {
		f.Fatal(err)
	}
	defer fx.srv.Close()
	methods := []string{"tools/call", "ping", "prompts/get", "resources/read", "tools/list"}
	f.Fuzz(func(t *testing.T, proto string, method uint8, name, args, hProto, hMethod, hName, hRegion string, regionSent bool) {
		m := methods[int(method)%len(methods)]
		if !json.Valid([]byte(args)) {
			return
		}
		params, err := json.Marshal(map[string]any{
			"name": name, "uri": name, "arguments": json.RawMessage(args),
			"_meta": map[string]string{mcp.MetaKeyProtocolVersion: proto},
		})
		if err != nil {
			return
		}
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": m, "params": json.RawMessage(params)})
		env, err := parseEnvelope(body)
		if err != nil || !env.isRequest() {
			return
		}
		h := http.Header{}
		for k, v := range map[string]string{headerProtocol: hProto, mcp.HeaderMethod: hMethod, mcp.HeaderName: hName} {
			if v != "" {
				h.Set(k, v)
			}
		}
		if regionSent {
			h["Mcp-Param-Region"] = []string{hRegion}
		} else {
			hRegion = ""
		}
		if fx.srv.checkHeaders(h, env) != nil {
			return
		}
		if hProto != env.params.Meta.ProtocolVersion || hProto == "" {
			t.Fatalf("header %s %q let through for a body of %q", headerProtocol, hProto, env.params.Meta.ProtocolVersion)
		}
		if !mcp.RequiresStandardHeaders(hProto) {
			return
		}
		if hMethod != m {
			t.Fatalf("Mcp-Method %q let through for %s", hMethod, m)
		}
		if m == "tools/call" || m == "prompts/get" || m == "resources/read" {
			if got, ok := mcp.DecodeHeaderValue(hName); !ok || got != name {
				t.Fatalf("Mcp-Name %q let through for %s of %q", hName, m, name)
			}
		}
		if m != "tools/call" || name != "regional" {
			return
		}
		var a map[string]json.RawMessage
		_ = json.Unmarshal([]byte(args), &a)
		var region *string
		_ = json.Unmarshal(a["region"], &region)
		switch {
		case region == nil && hRegion != "":
			t.Fatalf("Mcp-Param-Region %q let through for arguments %s without a region", hRegion, args)
		case region != nil && !regionSent:
			t.Fatalf("arguments %s let through without Mcp-Param-Region", args)
		case region != nil:
			if got, ok := mcp.DecodeHeaderValue(hRegion); !ok || got != *region {
				t.Fatalf("Mcp-Param-Region %q let through for arguments %s", hRegion, args)
			}
		}
	})
}
