package gateway

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
)

const pingBody = `{"jsonrpc":"2.0","id":1,"method":"ping"}`

func TestHTTPAccessRules(t *testing.T) {
	f := newFixture(t, func(o *Options) {
		o.Tokens = []string{"first-secret", "second-secret"}
		o.AllowedHosts = []string{"mcp.example.com", "gw.internal:8443"}
		o.AllowedOrigins = []string{"https://app.example.com"}
		o.MaxRequestBytes = 1024
	})
	ts := startHTTP(t, f)
	bigBody := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 2000) + `"}}`

	for _, tc := range []struct {
		name       string
		host       string
		origin     string
		auth       string
		body       string
		chunked    bool
		wantStatus int
		wantInBody string
		wantAuthn  string
	}{
		{name: "loopback host and token", auth: "Bearer first-secret", wantStatus: 200},
		{name: "second token", auth: "Bearer second-secret", wantStatus: 200},
		{name: "scheme is case-insensitive", auth: "bearer first-secret", wantStatus: 200},
		{name: "no token", wantStatus: 401, wantAuthn: `Bearer realm="toolgate"`},
		{name: "wrong token", auth: "Bearer first-secreT", wantStatus: 401, wantAuthn: `Bearer realm="toolgate", error="invalid_token"`},
		{name: "token prefix", auth: "Bearer first", wantStatus: 401},
		{name: "basic auth", auth: "Basic Zmlyc3Qtc2VjcmV0", wantStatus: 401},
		{name: "localhost any port", host: "localhost:9", auth: "Bearer first-secret", wantStatus: 200},
		{name: "ipv6 loopback", host: "[::1]:8700", auth: "Bearer first-secret", wantStatus: 200},
		{name: "rebinding host", host: "evil.example:8700", auth: "Bearer first-secret", wantStatus: 403, wantInBody: `Host "evil.example:8700" is not allowed; add it to listen.allowed_hosts`},
		{name: "bad host before auth", host: "evil.example", wantStatus: 403},
		{name: "allowed host any port", host: "mcp.example.com:1234", auth: "Bearer first-secret", wantStatus: 200},
		{name: "allowed host and port", host: "gw.internal:8443", auth: "Bearer first-secret", wantStatus: 200},
		{name: "allowed host other port", host: "gw.internal:9000", auth: "Bearer first-secret", wantStatus: 403},
		{name: "loopback origin", origin: "http://localhost:5173", auth: "Bearer first-secret", wantStatus: 200},
		{name: "allowed origin", origin: "https://app.example.com", auth: "Bearer first-secret", wantStatus: 200},
		{name: "foreign origin", origin: "https://evil.example", auth: "Bearer first-secret", wantStatus: 403, wantInBody: `Origin "https://evil.example" is not allowed; add it to listen.allowed_origins`},
		{name: "opaque origin", origin: "null", auth: "Bearer first-secret", wantStatus: 403},
		{name: "allowed origin other scheme", origin: "http://app.example.com", auth: "Bearer first-secret", wantStatus: 403},
		{name: "body over limit", auth: "Bearer first-secret", body: bigBody, wantStatus: 413, wantInBody: "limit of 1024 bytes (gateway.max_request_bytes)"},
		{name: "chunked body over limit", auth: "Bearer first-secret", body: bigBody, chunked: true, wantStatus: 413, wantInBody: "limit of 1024 bytes (gateway.max_request_bytes)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := tc.body
			if body == "" {
				body = pingBody
			}
			var reader io.Reader = strings.NewReader(body)
			if tc.chunked {
				reader = io.MultiReader(reader) // hides the length: sent chunked
			}
			req, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", reader)
			req.Header.Set("Content-Type", "application/json")
			if tc.host != "" {
				req.Host = tc.host
			}
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			got, _ := io.ReadAll(resp.Body)
			// 200 here is the transport's answer to a request without a session.
			status := resp.StatusCode
			if status == http.StatusBadRequest && bytes.Contains(got, []byte(headerSessionID)) {
				status = http.StatusOK
			}
			if status != tc.wantStatus {
				t.Fatalf("status %d (%s), want %d", resp.StatusCode, got, tc.wantStatus)
			}
			if tc.wantInBody != "" && !bytes.Contains(got, []byte(tc.wantInBody)) {
				t.Errorf("body %q lacks %q", got, tc.wantInBody)
			}
			if tc.wantAuthn != "" && resp.Header.Get("WWW-Authenticate") != tc.wantAuthn {
				t.Errorf("WWW-Authenticate = %q, want %q", resp.Header.Get("WWW-Authenticate"), tc.wantAuthn)
			}
		})
	}
}

func TestHTTPWithoutTokensNeedsNoAuthorization(t *testing.T) {
	f := newFixture(t, nil)
	c := newHTTPConn(t, startHTTP(t, f).URL+"/mcp", nil)
	c.initialize()
	if status, msgs := c.post(pingBody); status != 200 || msgs[0].Error != nil {
		t.Fatalf("ping: %d %+v", status, msgs)
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	for name, mod := range map[string]func(*Options){
		"empty token":      func(o *Options) { o.Tokens = []string{""} },
		"cert without key": func(o *Options) { o.TLSCert = "cert.pem" },
		"duplicate tool":   func(o *Options) { o.Tools = append(o.Tools, o.Tools[0]) },
		"tool no handler":  func(o *Options) { o.Tools[0].Handle = nil },
		"schema not object": func(o *Options) {
			o.Tools[0].InputSchema = []byte(`[1]`)
		},
		"duplicate resource": func(o *Options) { o.Resources = append(o.Resources, o.Resources[0]) },
		"no name":            func(o *Options) { o.Name = "" },
		"unknown version":    func(o *Options) { o.ProtocolVersions = []string{"2025-11-25", "2024-01-01"} },
		"only 2026-07-28":    func(o *Options) { o.ProtocolVersions = []string{"2026-07-28"} },
		"short state key":    func(o *Options) { o.InputStateKey = []byte("short") },
		"negative state ttl": func(o *Options) { o.InputStateTTL = -1 },
		"tasks of no tool":   func(o *Options) { o.Tasks = &Tasks{Tool: "nowhere", Runner: noTasks{}} },
		"tasks no runner":    func(o *Options) { o.Tasks = &Tasks{Tool: o.Tools[0].Name} },
	} {
		if _, err := buildFixture(mod); err == nil {
			t.Errorf("%s: New succeeded", name)
		} else if _, ok := err.(*OptionError); !ok {
			t.Errorf("%s: error %T %v, want *OptionError", name, err, err)
		}
	}
}

// writeTestCert writes a self-signed certificate for 127.0.0.1 and returns
// the file paths and a pool that trusts it.
func writeTestCert(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "toolgate test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile, pool
}

// serve runs ServeHTTP until the test ends and returns its address.
func serve(t *testing.T, f *fixture, addr string) (net.Addr, context.CancelFunc, <-chan error) {
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() { done <- f.srv.ServeHTTP(ctx, addr, func(a net.Addr) { ready <- a }) }()
	t.Cleanup(cancel)
	select {
	case a := <-ready:
		return a, cancel, done
	case err := <-done:
		t.Fatalf("ServeHTTP: %v", err)
	case <-time.After(5 * time.Second):
		t.Fatal("ServeHTTP not ready within 5s")
	}
	return nil, nil, nil
}

func TestServeHTTPOverTLS(t *testing.T) {
	certFile, keyFile, pool := writeTestCert(t)
	f := newFixture(t, func(o *Options) { o.TLSCert, o.TLSKey = certFile, keyFile })
	addr, cancel, done := serve(t, f, "127.0.0.1:0")

	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	defer tr.CloseIdleConnections()
	c := newHTTPConn(t, "https://"+addr.String()+"/mcp", &http.Client{Transport: tr})
	c.initialize()
	if status, msgs := c.post(callBody(1, "echo", `{"text":"over tls"}`, "")); status != 200 || !bytes.Contains(msgs[0].Result, []byte("over tls")) {
		t.Fatalf("call over TLS: %d %+v", status, msgs)
	}

	// Plain HTTP and an untrusted certificate are both refused.
	plain := &http.Client{Transport: &http.Transport{}}
	if resp, err := plain.Post("http://"+addr.String()+"/mcp", "application/json", strings.NewReader(pingBody)); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Errorf("plain HTTP to the TLS port answered 200")
		}
	}
	untrusted := &http.Client{Transport: &http.Transport{}}
	if resp, err := untrusted.Post("https://"+addr.String()+"/mcp", "application/json", strings.NewReader(pingBody)); err == nil {
		resp.Body.Close()
		t.Errorf("a client without the CA connected")
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ServeHTTP = %v after ctx ended, want nil", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("ServeHTTP did not return after ctx ended")
	}
}

func TestServeHTTPShutdownEndsListeningStreams(t *testing.T) {
	f := newFixture(t, nil)
	addr, cancel, done := serve(t, f, "127.0.0.1:0")
	c := newHTTPConn(t, "http://"+addr.String()+"/mcp", nil)
	c.initialize()
	resp := c.do(c.request(http.MethodGet, ""))
	defer resp.Body.Close()
	start := time.Now()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ServeHTTP = %v", err)
		}
	case <-time.After(DefaultShutdownGrace + 5*time.Second):
		t.Fatal("ServeHTTP did not return")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("shutdown took %v: an open listening stream held it up", d)
	}
	if _, err := io.ReadAll(resp.Body); err != nil {
		t.Logf("stream ended with %v", err)
	}
}

// A non-loopback bind with no authentication is refused, unless the
// operator opted in, which is served with a loud warning.
func TestServeHTTPRefusesOpenNonLoopbackBind(t *testing.T) {
	for _, tc := range []struct {
		name   string
		addr   string
		tokens []string
		allow  bool
		refuse bool
		warn   bool
	}{
		{name: "loopback", addr: "127.0.0.1:0"},
		{name: "all interfaces without token", addr: "0.0.0.0:0", refuse: true},
		{name: "all interfaces without token, allowed", addr: "0.0.0.0:0", allow: true, warn: true},
		{name: "all interfaces with token", addr: "0.0.0.0:0", tokens: []string{"s3cret"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			f := newFixture(t, func(o *Options) {
				o.Tokens, o.AllowUnauthenticated = tc.tokens, tc.allow
				o.Logger = hclog.New(&hclog.LoggerOptions{Output: &syncWriter{w: &logs}, Level: hclog.Warn})
			})
			if tc.refuse {
				ctx, cancel := context.WithCancel(context.Background())
				err := f.srv.ServeHTTP(ctx, tc.addr, func(net.Addr) {
					t.Error("served an open non-loopback address")
					cancel()
				})
				cancel()
				var uerr *UnauthenticatedError
				if !errors.As(err, &uerr) || uerr.Addr == "" {
					t.Fatalf("ServeHTTP = %v, want an *UnauthenticatedError naming the address", err)
				}
				return
			}
			_, cancel, done := serve(t, f, tc.addr)
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(logs.String(), "SECURITY WARNING"); got != tc.warn {
				t.Errorf("warning logged = %v, want %v; log:\n%s", got, tc.warn, logs.String())
			}
		})
	}
}

func TestServeHTTPReportsBadTLSFiles(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.TLSCert, o.TLSKey = "/nonexistent/cert.pem", "/nonexistent/key.pem" })
	err := f.srv.ServeHTTP(context.Background(), "127.0.0.1:0", nil)
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/cert.pem") {
		t.Fatalf("ServeHTTP = %v, want an error naming the certificate", err)
	}
}

func TestServeHTTPShutdownGraceIsTheConfiguredOne(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.ShutdownGrace = 200 * time.Millisecond })
	addr, cancel, done := serve(t, f, "127.0.0.1:0")
	c := newHTTPConn(t, "http://"+addr.String()+"/mcp", nil)
	c.initialize()
	// A call that only ends when cancelled holds the shutdown for the grace.
	// It is answered when the grace runs out, naming the tool it was asked
	// to run (as call_tool's "name" does), not only the tool that ran it.
	answered := make(chan string, 1)
	go func() {
		resp, err := http.DefaultClient.Do(c.request(http.MethodPost, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"block","arguments":{"name":"x_slow_tool"}}}`))
		if err != nil {
			answered <- err.Error()
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		answered <- string(body)
	}()
	time.Sleep(100 * time.Millisecond)
	start := time.Now()
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("ServeHTTP did not return")
	}
	if d := time.Since(start); d < 150*time.Millisecond || d > 2*time.Second {
		t.Errorf("shutdown took %v with a call in flight, want about the 200ms grace", d)
	}
	if got := <-answered; !strings.Contains(got, `the call to \"x_slow_tool\" was stopped: the gateway is shutting down`) {
		t.Errorf("the call cut off by shutdown was answered %s", got)
	}
}
