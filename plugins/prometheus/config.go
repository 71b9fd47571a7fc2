package prometheus

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/common/model"

	"github.com/toolgate/toolgate/sdk/plugin"
)

// Defaults for settings the operator leaves out. max_series and max_points keep
// one answer small enough for an assistant's context; a call may ask for more.
const (
	defaultTimeout   = 30 * time.Second
	defaultMaxSeries = 50
	defaultMaxPoints = 120
)

// Config is the plugin's `config {}` block.
type Config struct {
	// URL is the Prometheus base URL, e.g. http://127.0.0.1:9090 (a path prefix
	// such as /prometheus is kept).
	URL string `json:"url" pattern:"^https?://"`
	// BearerToken is sent as "Authorization: Bearer ..."; use env() in HCL.
	BearerToken string     `json:"bearer_token,omitempty"`
	BasicAuth   *BasicAuth `json:"basic_auth,omitempty"`
	TLS         *TLSConfig `json:"tls,omitempty"`
	// Timeout bounds each request, as a duration ("30s", "2m").
	Timeout   string            `json:"timeout,omitempty"`
	MaxSeries int               `json:"max_series,omitempty"`
	MaxPoints int               `json:"max_points,omitempty"`
	Headers   map[string]string `json:"headers,omitempty"`
}

// BasicAuth is HTTP basic authentication.
type BasicAuth struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

// TLSConfig trusts a private CA or, for test setups only, any certificate.
type TLSConfig struct {
	CAFile             string `json:"ca_file,omitempty"`
	CAPEM              string `json:"ca_pem,omitempty"`
	ServerName         string `json:"server_name,omitempty"`
	InsecureSkipVerify bool   `json:"insecure_skip_verify,omitempty"`
}

// configSchema describes Config to the gateway, which checks an operator's
// settings against it before the plugin runs. It is built on first use, not
// at init: every toolgate process links this package, few serve it.
var configSchema = sync.OnceValue(func() json.RawMessage {
	s, err := plugin.SchemaOf(Config{})
	if err != nil {
		panic(fmt.Sprintf("config schema: %v", err))
	}
	return s
})

// settings is a validated Config, ready to build a client from.
type settings struct {
	baseURL   *url.URL
	timeout   time.Duration
	maxSeries int
	maxPoints int
	transport *http.Transport
	auth      func(*http.Request)
	headers   map[string]string
}

// parseConfig decodes and checks the config block, collecting every problem so
// the operator can fix them in one pass.
func parseConfig(raw json.RawMessage) (*settings, error) {
	var c Config
	if err := plugin.DecodeConfig(raw, &c); err != nil {
		return nil, err
	}
	var problems []plugin.FieldError
	bad := func(path, format string, args ...any) {
		problems = append(problems, plugin.FieldError{Path: path, Message: fmt.Sprintf(format, args...)})
	}
	s := &settings{timeout: defaultTimeout, maxSeries: defaultMaxSeries, maxPoints: defaultMaxPoints, headers: c.Headers}

	switch u, err := url.Parse(strings.TrimSpace(c.URL)); {
	case strings.TrimSpace(c.URL) == "":
		bad("url", "is required (the Prometheus base URL, e.g. http://127.0.0.1:9090)")
	case !strings.Contains(c.URL, "://") || err == nil && u.Scheme != "http" && u.Scheme != "https":
		bad("url", "must start with http:// or https://, got %s", shownURL(u, err))
	case err != nil:
		bad("url", "is not a URL: %v", unwrapURLError(err)) // *url.Error repeats the whole URL, password and all
	case u.Host == "":
		bad("url", "has no host: %q", u.Redacted())
	case strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/api/v1"):
		// The client adds /api/v1 itself; left in, every request would 404.
		bad("url", "must be the base URL the API lives under, without /api/v1: %q", strings.TrimSuffix(strings.TrimRight(u.Redacted(), "/"), "/api/v1"))
	default:
		s.baseURL = u
	}
	if c.Timeout != "" {
		d, err := model.ParseDuration(c.Timeout)
		if err != nil || d <= 0 {
			bad("timeout", "must be a positive duration such as \"30s\", got %q", c.Timeout)
		} else {
			s.timeout = time.Duration(d)
		}
	}
	if c.MaxSeries < 0 {
		bad("max_series", "must be positive, got %d", c.MaxSeries)
	} else if c.MaxSeries > 0 {
		s.maxSeries = c.MaxSeries
	}
	if c.MaxPoints < 0 || c.MaxPoints == 1 {
		bad("max_points", "must be at least 2, got %d", c.MaxPoints)
	} else if c.MaxPoints > 0 {
		s.maxPoints = c.MaxPoints
	}
	switch {
	case c.BearerToken != "" && c.BasicAuth != nil:
		bad("bearer_token", "set either bearer_token or basic_auth, not both")
	case c.BearerToken != "":
		token := c.BearerToken
		s.auth = func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token) }
	case c.BasicAuth != nil:
		if c.BasicAuth.Username == "" {
			bad("basic_auth.username", "is required")
		}
		user, pass := c.BasicAuth.Username, c.BasicAuth.Password
		s.auth = func(r *http.Request) { r.SetBasicAuth(user, pass) }
	}
	for name := range c.Headers {
		if strings.EqualFold(name, "Authorization") && s.auth != nil {
			bad("headers."+name, "conflicts with bearer_token/basic_auth")
		}
	}
	tlsConf, tlsProblems := buildTLS(c.TLS)
	problems = append(problems, tlsProblems...)
	if len(problems) > 0 {
		return nil, &plugin.ConfigError{Fields: problems}
	}
	s.transport = http.DefaultTransport.(*http.Transport).Clone()
	s.transport.TLSClientConfig = tlsConf
	return s, nil
}

// shownURL is the url setting as an error may show it: its password
// redacted, and not at all when it does not parse, since then nobody can
// tell which part of it is a password.
func shownURL(u *url.URL, parseErr error) string {
	if parseErr != nil || u.Opaque != "" || u.Host == "" {
		return "a value that is not a URL"
	}
	return strconv.Quote(u.Redacted())
}

func buildTLS(c *TLSConfig) (*tls.Config, []plugin.FieldError) {
	if c == nil {
		return nil, nil
	}
	conf := &tls.Config{ServerName: c.ServerName, InsecureSkipVerify: c.InsecureSkipVerify} //nolint:gosec // the operator asked for it
	var pemData []byte
	switch {
	case c.CAFile != "" && c.CAPEM != "":
		return nil, []plugin.FieldError{{Path: "tls.ca_file", Message: "set either ca_file or ca_pem, not both"}}
	case c.CAFile != "":
		b, err := os.ReadFile(c.CAFile)
		if err != nil {
			return nil, []plugin.FieldError{{Path: "tls.ca_file", Message: fmt.Sprintf("cannot read: %v", err)}}
		}
		pemData = b
	case c.CAPEM != "":
		pemData = []byte(c.CAPEM)
	}
	if pemData != nil {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pemData) {
			path := "tls.ca_pem"
			if c.CAFile != "" {
				path = "tls.ca_file"
			}
			return nil, []plugin.FieldError{{Path: path, Message: "holds no PEM certificate"}}
		}
		conf.RootCAs = pool
	}
	return conf, nil
}

// roundTripper adds the configured authentication and headers, and turns a
// non-API answer (a proxy's or auth layer's 401, a 404 from a wrong URL) into
// an HTTPError, which the Prometheus client would otherwise report only as a
// bare status code.
type roundTripper struct {
	next    http.RoundTripper
	auth    func(*http.Request)
	headers map[string]string
	// host is the configured server's host name: credentials and headers
	// go only there, never to another host a redirect points at.
	host string
}

func (rt *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	if req.URL.Hostname() == rt.host {
		for k, v := range rt.headers {
			req.Header.Set(k, v)
		}
		if rt.auth != nil {
			rt.auth(req)
		}
	}
	resp, err := rt.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	switch {
	case resp.StatusCode/100 == 3:
		// The client follows redirects (http to https, a missing slash).
		return resp, nil
	case resp.StatusCode/100 == 2 && isHTML(resp):
		// Grafana, or a single-sign-on page an auth proxy redirected to.
		return nil, newHTTPError(resp)
	case resp.StatusCode/100 == 2:
		return resp, nil
	case req.Method == http.MethodPost && (resp.StatusCode == http.StatusMethodNotAllowed || resp.StatusCode == http.StatusNotImplemented):
		// The client asks again with GET, for proxies that let only GET through.
		return resp, nil
	}
	return apiErrorOrHTTPError(resp)
}

// maxErrorBody bounds how much of a failed answer is read: Prometheus'
// error bodies are a sentence, an auth layer's page is not worth more.
const maxErrorBody = 64 << 10

// apiErrorOrHTTPError passes on a failed answer in which Prometheus' API
// speaks ({"status":"error", ...}), for the client to read its error type
// and message; any other one, JSON too (a cloud gateway's 403
// {"message":"Missing Authentication Token"}), is an HTTPError.
func apiErrorOrHTTPError(resp *http.Response) (*http.Response, error) {
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		return nil, newHTTPError(resp)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("read the answer to a failed request (HTTP %s): %w", resp.Status, err)
	}
	var api struct {
		Status    string `json:"status"`
		ErrorType string `json:"errorType"`
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if json.Unmarshal(body, &api) != nil || api.Status != "error" || api.ErrorType == "" {
		return nil, newHTTPError(resp)
	}
	return resp, nil
}

// withTimeout bounds one request by the configured timeout.
func (s *settings) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.timeout)
}
