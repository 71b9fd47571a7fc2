package prometheus

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
)

// authProxy puts the shared Prometheus behind /prometheus on a proxy that
// wants a bearer token, and refuses others with a JSON body of its own, the
// way cloud gateways do. It returns the proxy's URL with the prefix.
func authProxy(t *testing.T, token string) string {
	t.Helper()
	target, err := url.Parse(sharedProm(t).url)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"message":"invalid or missing token"}`)
			return
		}
		path, found := strings.CutPrefix(r.URL.Path, "/prometheus/")
		if !found {
			http.NotFound(w, r)
			return
		}
		r.URL.Path = "/" + path
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/prometheus"
}

// Behind a path prefix the plugin reaches Prometheus with the right token;
// a proxy's own JSON 401 is an HTTP refusal that points at the credentials,
// not a Prometheus error, and never shows the token.
func TestBearerProxyWithPathPrefix(t *testing.T) {
	t.Parallel()
	const token = "tok-sekrit-42"
	u := authProxy(t, token)
	b := serve(t, map[string]any{"url": u, "bearer_token": token})
	var out struct {
		Result []struct {
			Value [2]any `json:"value"`
		} `json:"result"`
	}
	ok(t, b, "query", map[string]any{"query": `sum(http_requests_total{job="checkout"})`, "time": at(300)}, &out)
	if len(out.Result) != 1 || out.Result[0].Value[1] != "3300" {
		t.Fatalf("result through the proxy = %+v", out.Result)
	}

	for _, cfg := range []map[string]any{
		{"url": u, "bearer_token": "wrong-" + token},
		{"url": u},
	} {
		b := serve(t, cfg)
		text, te := failed(t, b, "query", map[string]any{"query": "up"})
		if te.Kind != "http" || te.Status != http.StatusUnauthorized {
			t.Fatalf("error = %+v\n%s", te, text)
		}
		mustContain(t, text, "Prometheus at "+u+" refused the request: HTTP 401 Unauthorized", "invalid or missing token", "bearer_token")
		if strings.Contains(text, token) {
			t.Errorf("the token leaked:\n%s", text)
		}
	}
}

// Behind a proxy that lets only GET through, queries (which the client
// sends as POST first) still work: the client falls back to GET.
func TestGetOnlyProxy(t *testing.T) {
	t.Parallel()
	target, err := url.Parse(sharedProm(t).url)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	b := serve(t, map[string]any{"url": srv.URL})
	text := ok(t, b, "query", map[string]any{"query": `sum(http_requests_total{job="checkout"})`, "time": at(300)}, nil)
	mustContain(t, text, "3300")
	text = ok(t, b, "series", map[string]any{"start": at(0), "selector": `http_requests_total{job="cart"}`}, nil)
	mustContain(t, text, `http_requests_total{code="200", instance="cart-1", job="cart"}`)
}

// A single-sign-on proxy sends a caller without a session to its login page:
// the answer is a web page, said to be one, not a JSON parse error.
func TestLoginPageIsNotTheAPI(t *testing.T) {
	t.Parallel()
	target, err := url.Parse(sharedProm(t).url)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/login":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, "<!doctype html><html><head><title>Sign in</title></head><body><form>…</form></body></html>")
		case r.Header.Get("Cookie") == "":
			http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.String()), http.StatusFound)
		default:
			rp.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	b := serve(t, map[string]any{"url": srv.URL})
	for tool, args := range map[string]map[string]any{"query": {"query": "up"}, "targets": nil} {
		text, te := failed(t, b, tool, args)
		if te.Kind != "http" || te.Status != http.StatusOK {
			t.Fatalf("%s: error = %+v\n%s", tool, te, text)
		}
		mustContain(t, text, "Prometheus at "+srv.URL+" answered with a web page, not the API: HTTP 200 OK: an HTML page from "+srv.URL+"/login.",
			"not Grafana or a login page", "bearer_token")
		if strings.Contains(text, "<") {
			t.Errorf("%s: markup in the message:\n%s", tool, text)
		}
	}
}

// A redirect to another host (here localhost for 127.0.0.1) takes neither
// the token nor the configured headers along.
func TestRedirectElsewhereKeepsCredentials(t *testing.T) {
	t.Parallel()
	got := make(chan http.Header, 4)
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Clone()
		http.Error(w, "not here", http.StatusNotFound)
	}))
	t.Cleanup(elsewhere.Close)
	other := strings.Replace(elsewhere.URL, "127.0.0.1", "localhost", 1)
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Clone()
		http.Redirect(w, r, other+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(redirector.Close)
	b := serve(t, map[string]any{"url": redirector.URL, "bearer_token": "tok-sekrit-42", "headers": map[string]string{"X-Scope-OrgID": "team-a"}})
	text, te := failed(t, b, "targets", nil)
	if te.Kind != "http" || te.Status != http.StatusNotFound {
		t.Fatalf("error = %+v\n%s", te, text)
	}
	first, second := <-got, <-got
	if first.Get("Authorization") != "Bearer tok-sekrit-42" || first.Get("X-Scope-OrgID") != "team-a" {
		t.Errorf("the configured server lacked credentials: %v", first)
	}
	if second.Get("Authorization") != "" || second.Get("X-Scope-OrgID") != "" {
		t.Errorf("credentials followed the redirect to %s: %v", other, second)
	}
}

// A proxy whose Prometheus is down answers 502: the message says Prometheus
// is not available behind it, not that the request was refused.
func TestProxyWithPrometheusDown(t *testing.T) {
	t.Parallel()
	addr, err := freeAddr()
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: addr})
	rp.ErrorLog = log.New(io.Discard, "", 0)
	srv := httptest.NewServer(rp)
	t.Cleanup(srv.Close)
	b := serve(t, map[string]any{"url": srv.URL})
	text, te := failed(t, b, "query", map[string]any{"query": "up"})
	if te.Kind != "http" || te.Status != http.StatusBadGateway {
		t.Fatalf("error = %+v\n%s", te, text)
	}
	mustContain(t, text, "Prometheus at "+srv.URL+" is not available: HTTP 502 Bad Gateway", "could not reach it")
	if strings.Contains(text, "refused") {
		t.Errorf("calls a down backend a refusal:\n%s", text)
	}
}
