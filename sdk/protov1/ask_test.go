package protov1_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/sdk/protov1"
)

type capsPeer protov1.PeerCapabilities

func (c capsPeer) Capabilities() protov1.PeerCapabilities { return protov1.PeerCapabilities(c) }
func (c capsPeer) Request(context.Context, string, json.RawMessage) (json.RawMessage, error) {
	return json.RawMessage(`{}`), nil
}

func TestCheckPeerRequest(t *testing.T) {
	all := capsPeer{Sampling: true, SamplingTools: true, Elicitation: true, ElicitationForm: true, ElicitationURL: true, Roots: true}
	plain := capsPeer{Sampling: true, Elicitation: true} // declared before sub-capabilities existed
	urlOnly := capsPeer{Elicitation: true, ElicitationURL: true}
	for _, tc := range []struct {
		name   string
		peer   protov1.Peer
		method string
		params string
		want   string // "" = allowed
		noPeer bool
	}{
		{"sampling", all, protov1.MethodCreateMessage, `{"messages":[]}`, "", false},
		{"roots without params", all, protov1.MethodListRoots, ``, "", false},
		{"null params", all, protov1.MethodListRoots, `null`, "", false},
		{"no client", nil, protov1.MethodListRoots, `{}`, "no client to ask", true},
		{"unknown method", all, "tools/call", `{}`, "not a request a server may send a client", true},
		{"params not an object", all, protov1.MethodCreateMessage, `[1]`, "params must be a JSON object", false},
		{"params not JSON", all, protov1.MethodCreateMessage, `{`, "params must be a JSON object", false},
		{"no capability", capsPeer{Roots: true}, protov1.MethodElicit, `{}`, `did not declare the "elicitation" capability`, true},
		{"sampling with tools", plain, protov1.MethodCreateMessage, `{"tools":[{"name":"x"}]}`, "sampling with tools", true},
		{"sampling with null tools", plain, protov1.MethodCreateMessage, `{"tools":null}`, "", false},
		{"form to a plain client", plain, protov1.MethodElicit, `{"message":"m"}`, "", false},
		{"url to a plain client", plain, protov1.MethodElicit, `{"mode":"url"}`, "URL elicitation", true},
		{"form to a url-only client", urlOnly, protov1.MethodElicit, `{"mode":"form"}`, "form elicitation", true},
		{"url to a url client", urlOnly, protov1.MethodElicit, `{"mode":"url"}`, "", false},
	} {
		err := protov1.CheckPeerRequest(tc.peer, tc.method, json.RawMessage(tc.params))
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		var pe *protov1.PeerError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) || errors.Is(err, protov1.ErrNoPeer) != tc.noPeer {
			t.Errorf("%s: %v; want a PeerError saying %q (ErrNoPeer %v)", tc.name, err, tc.want, tc.noPeer)
		}
		if pe != nil && pe.Method != tc.method {
			t.Errorf("%s: error names method %q", tc.name, pe.Method)
		}
	}
	if _, err := protov1.AskPeer(context.Background(), capsPeer{}, protov1.MethodListRoots, nil); !errors.Is(err, protov1.ErrNoPeer) {
		t.Errorf("AskPeer of a client without roots: %v", err)
	}
}

// FuzzCheckPeerRequest feeds it what a plugin may send: it never panics, and
// it allows only the three methods.
func FuzzCheckPeerRequest(f *testing.F) {
	f.Add("sampling/createMessage", []byte(`{"tools":[]}`))
	f.Add("elicitation/create", []byte(`{"mode":"url"}`))
	f.Add("roots/list", []byte(`null`))
	f.Fuzz(func(t *testing.T, method string, params []byte) {
		err := protov1.CheckPeerRequest(capsPeer{Sampling: true, Elicitation: true, Roots: true}, method, params)
		switch method {
		case protov1.MethodCreateMessage, protov1.MethodElicit, protov1.MethodListRoots:
		default:
			if err == nil {
				t.Fatalf("method %q allowed", method)
			}
		}
	})
}
