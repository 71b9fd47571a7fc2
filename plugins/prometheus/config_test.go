package prometheus

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/testparts"
	"github.com/toolgate/toolgate/sdk/plugin"
	"github.com/toolgate/toolgate/sdk/plugintest"
)

func TestConfigErrorsNameTheField(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cfg  string
		want []string // "path: message" fragments
	}{
		{`{}`, []string{"url: is required"}},
		{`{"url":"127.0.0.1:9090"}`, []string{"url: must start with http:// or https://"}},
		{`{"url":"ftp://ops:sekrit@127.0.0.1:9090"}`, []string{`url: must start with http:// or https://, got "ftp://ops:xxxxx@127.0.0.1:9090"`}},
		{`{"url":"ops:sekrit@127.0.0.1:9090"}`, []string{`url: must start with http:// or https://, got a value that is not a URL`}},
		{`{"url":"http://ops:sekrit@127.0.0.1:9090/%zz"}`, []string{`url: is not a URL: invalid URL escape "%zz"`}},
		{`{"url":"http://u:pw@127.0.0.1:9090/prom/api/v1/"}`, []string{`url: must be the base URL the API lives under, without /api/v1: "http://u:xxxxx@127.0.0.1:9090/prom"`}},
		{`{"url":"http://x","timeout":"soon","max_points":1,"max_series":-1}`,
			[]string{"timeout: must be a positive duration", "max_points: must be at least 2", "max_series: must be positive"}},
		{`{"url":"http://x","bearer_token":"t","basic_auth":{"username":"u","password":"p"}}`, []string{"bearer_token: set either"}},
		{`{"url":"http://x","basic_auth":{"password":"p"}}`, []string{"basic_auth.username: is required"}},
		{`{"url":"http://x","bearer_token":"t","headers":{"Authorization":"x"}}`, []string{"headers.Authorization: conflicts"}},
		{`{"url":"http://x","tls":{"ca_pem":"not a cert"}}`, []string{"tls.ca_pem: holds no PEM certificate"}},
		{`{"url":"http://x","tls":{"ca_file":"/nonexistent/ca.pem"}}`, []string{"tls.ca_file: cannot read"}},
		{`{"url":"http://x","timeuot":"5s"}`, []string{`timeuot: unknown setting; did you mean "timeout"?`}},
	} {
		_, err := parseConfig(json.RawMessage(tc.cfg))
		var ce *plugin.ConfigError
		if !errors.As(err, &ce) {
			t.Errorf("%s: want a ConfigError, got %v", tc.cfg, err)
			continue
		}
		if strings.Contains(ce.Error(), "sekrit") {
			t.Errorf("%s: error %q shows the password", tc.cfg, ce.Error())
		}
		for _, w := range tc.want {
			if !strings.Contains(ce.Error(), w) {
				t.Errorf("%s: error %q lacks %q", tc.cfg, ce.Error(), w)
			}
		}
	}
	s, err := parseConfig(json.RawMessage(`{"url":"http://127.0.0.1:9090/prom/","timeout":"2m","max_series":7,"max_points":300}`))
	if err != nil || s.timeout != 2*time.Minute || s.maxSeries != 7 || s.maxPoints != 300 || s.baseURL.Path != "/prom/" {
		t.Fatalf("settings = %+v, %v", s, err)
	}
}

// The config error crosses the gRPC boundary with its field paths intact, so
// the gateway can point at the operator's line.
func TestConfigureOverGRPC(t *testing.T) {
	t.Parallel()
	p, _ := newPlugin()
	b := plugintest.ServePlugin(t, p)
	err := b.Configure(context.Background(), json.RawMessage(`{"url":""}`))
	var ce *plugin.ConfigError
	if !errors.As(err, &ce) || len(ce.Fields) != 1 || ce.Fields[0].Path != "url" {
		t.Fatalf("configure error = %#v", err)
	}
}

// Bearer token and extra headers reach the server on every request.
func TestBearerTokenAndHeadersAreSent(t *testing.T) {
	t.Parallel()
	got := make(chan http.Header, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case got <- r.Header.Clone():
		default:
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"status":"success","data":{"resultType":"scalar","result":[1700000000,"1"]}}`)
	}))
	defer srv.Close()
	b := serve(t, map[string]any{"url": srv.URL, "bearer_token": "tok-123", "headers": map[string]string{"X-Scope-OrgID": "team-a"}})
	ok(t, b, "query", map[string]any{"query": "1"}, nil)
	h := <-got
	if h.Get("Authorization") != "Bearer tok-123" || h.Get("X-Scope-OrgID") != "team-a" {
		t.Fatalf("headers = %v", h)
	}
}

// TLS against a real Prometheus serving a certificate from a private CA: the
// CA makes it trusted, skip-verify accepts it, and without either the error
// says why.
func TestTLS(t *testing.T) {
	t.Parallel()
	prom, _ := testparts.Prometheus(t)
	dir := t.TempDir()
	caPEM := writeCert(t, dir)
	web := "tls_server_config:\n  cert_file: " + filepath.Join(dir, "cert.pem") + "\n  key_file: " + filepath.Join(dir, "key.pem") + "\n"
	if err := os.WriteFile(filepath.Join(dir, "web.yml"), []byte(web), 0o600); err != nil {
		t.Fatal(err)
	}
	addr, err := freeAddr()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := startPrometheus(prom, dir, "https", addr, "scrape_configs: []\n", filepath.Join(dir, "tsdb"),
		"--web.config.file="+filepath.Join(dir, "web.yml"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.stop)
	url := srv.url
	b := serve(t, map[string]any{"url": url, "tls": map[string]any{"ca_pem": caPEM}})
	ok(t, b, "query", map[string]any{"query": "vector(7)"}, nil)
	caFile := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(caFile, []byte(caPEM), 0o600); err != nil {
		t.Fatal(err)
	}
	b = serve(t, map[string]any{"url": url, "tls": map[string]any{"ca_file": caFile}})
	ok(t, b, "query", map[string]any{"query": "vector(7)"}, nil)
	b = serve(t, map[string]any{"url": url, "tls": map[string]any{"insecure_skip_verify": true}})
	ok(t, b, "query", map[string]any{"query": "vector(7)"}, nil)
	b = serve(t, map[string]any{"url": url})
	text, _ := failed(t, b, "query", map[string]any{"query": "vector(7)"})
	mustContain(t, text, "Cannot reach Prometheus at "+url, "certificate")
}

// writeCert writes a serving certificate for 127.0.0.1 signed by a new CA and
// returns the CA in PEM.
func writeCert(t *testing.T, dir string) string {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "prometheus"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(key)
	for name, block := range map[string]*pem.Block{
		"cert.pem": {Type: "CERTIFICATE", Bytes: der},
		"key.pem":  {Type: "EC PRIVATE KEY", Bytes: keyDER},
	} {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}))
}
