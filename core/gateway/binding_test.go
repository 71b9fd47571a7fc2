package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// notOwner checks that every way into a session (POST, GET stream, DELETE)
// answers intruder exactly as an unknown session, and that the owner can
// still use it afterwards.
func notOwner(t *testing.T, owner, intruder *httpConn) {
	t.Helper()
	intruder.sid = owner.sid
	intruder.header.Set(headerProtocol, "2025-11-25")
	for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
		body := ""
		if method == http.MethodPost {
			body = callBody(1, "echo", `{"text":"intruder"}`, "")
		}
		resp := intruder.do(intruder.request(method, body))
		var got []byte
		if method != http.MethodGet { // an accepted GET would stream for ever
			got, _ = io.ReadAll(resp.Body)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s on another principal's session: %d %s, want 404", method, resp.StatusCode, got)
		}
	}
	if status, msgs := owner.post(callBody(2, "echo", `{"text":"still mine"}`, "")); status != http.StatusOK || len(msgs) != 1 || msgs[0].Error != nil {
		t.Fatalf("owner after the intrusions: %d %+v", status, msgs)
	}
}

func TestHTTPSessionBelongsToItsStaticToken(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.Tokens = []string{"token-a", "token-b"} })
	url := startHTTP(t, f).URL + "/mcp"
	a := newHTTPConn(t, url, nil)
	a.header.Set("Authorization", "Bearer token-a")
	a.initialize()
	b := newHTTPConn(t, url, nil)
	b.header.Set("Authorization", "Bearer token-b")
	notOwner(t, a, b)
}

func TestOAuthSessionBelongsToSubjectAndClient(t *testing.T) {
	as := newAuthServer(t)
	ts, _ := oauthGateway(t, as, nil)
	token := func(sub, client string) string {
		c := as.claims()
		c["sub"], c["client_id"] = sub, client
		return "Bearer " + as.sign(jwt.SigningMethodRS256, "rsa-1", c)
	}
	alice := newHTTPConn(t, ts.URL+"/mcp", nil)
	alice.header.Set("Authorization", token("alice", "ide"))
	alice.initialize()

	for name, auth := range map[string]string{
		"another subject":            token("bob", "ide"),
		"the same subject elsewhere": token("alice", "other-app"),
		"a static token":             "Bearer " + staticToken,
	} {
		t.Run(name, func(t *testing.T) {
			c := newHTTPConn(t, ts.URL+"/mcp", nil)
			c.header.Set("Authorization", auth)
			notOwner(t, alice, c)
		})
	}
	// A fresh token of the same subject and client keeps the session.
	alice.header.Set("Authorization", token("alice", "ide"))
	if status, msgs := alice.post(callBody(3, "echo", `{"text":"renewed"}`, "")); status != http.StatusOK || msgs[0].Error != nil {
		t.Fatalf("renewed token: %d %+v", status, msgs)
	}
}

func TestOAuthListeningStreamEndsAtTokenExpiry(t *testing.T) {
	as := newAuthServer(t)
	ts, _ := oauthGateway(t, as, nil)
	c := newHTTPConn(t, ts.URL+"/mcp", nil)
	claims := as.claims()
	claims["exp"] = time.Now().Add(2 * time.Second).Unix()
	c.header.Set("Authorization", "Bearer "+as.sign(jwt.SigningMethodRS256, "rsa-1", claims))
	c.initialize()

	resp := c.do(c.request(http.MethodGet, ""))
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET: %d", resp.StatusCode)
	}
	ended := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, resp.Body)
		close(ended)
	}()
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		resp.Body.Close()
		<-ended
		t.Fatal("listening stream still open 5s after a token that expires in 2s")
	}
}

func TestToolHandlersLearnTheirCaller(t *testing.T) {
	as := newAuthServer(t)
	logs := &syncWriter{w: &bytes.Buffer{}}
	f := newFixture(t, func(o *Options) {
		o.Logger = hclog.New(&hclog.LoggerOptions{Output: logs})
		o.Tokens = []string{"token-a", "token-b"}
		o.OAuth = &OAuth{Issuer: as.URL, Audience: testAudience}
		o.Tools = append(o.Tools, Tool{Name: "whoami", Handle: func(ctx context.Context, _ json.RawMessage, _ protov1.CallEvents) (*protov1.Result, error) {
			c, ok := CallerFrom(ctx)
			if !ok {
				return nil, errors.New("no caller in the context")
			}
			b, _ := json.Marshal(c)
			return &protov1.Result{Content: []protov1.Content{{Kind: protov1.KindText, Text: string(b)}}}, nil
		}})
	})
	url := startHTTP(t, f).URL + "/mcp"
	claims := as.claims()
	claims["azp"] = "ide"
	for auth, want := range map[string]string{
		"Bearer token-b": `{"Issuer":"token","Subject":"1","Client":"","Session":%q}`,
		"Bearer " + as.sign(jwt.SigningMethodRS256, "rsa-1", claims): `{"Issuer":"` + as.URL + `","Subject":"user-1","Client":"ide","Session":%q}`,
	} {
		c := newHTTPConn(t, url, nil)
		c.header.Set("Authorization", auth)
		c.initialize()
		_, msgs := c.post(callBody(1, "whoami", "", ""))
		var res struct{ Content []struct{ Text string } }
		if err := json.Unmarshal(msgs[0].Result, &res); err != nil || len(res.Content) != 1 {
			t.Fatalf("whoami: %s %v", msgs[0].Result, err)
		}
		if w := fmt.Sprintf(want, c.sid); res.Content[0].Text != w {
			t.Errorf("caller %s, want %s", res.Content[0].Text, w)
		}
	}
}
