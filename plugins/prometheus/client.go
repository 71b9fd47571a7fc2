package prometheus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"

	"github.com/toolgate/toolgate/internal/clip"
	"github.com/toolgate/toolgate/sdk/plugin"
)

// client is one configured connection to a Prometheus server.
type client struct {
	api v1.API
	*settings
}

func newClient(s *settings) (*client, error) {
	c, err := api.NewClient(api.Config{
		Address:      s.baseURL.String(),
		RoundTripper: &roundTripper{next: s.transport, auth: s.auth, headers: s.headers, host: s.baseURL.Hostname()},
	})
	if err != nil {
		return nil, fmt.Errorf("create Prometheus client for %s: %w", s.baseURL.Redacted(), err)
	}
	return &client{api: v1.NewAPI(c), settings: s}, nil
}

// close drops idle keep-alive connections, so nothing lingers after the
// client is replaced or the plugin stops.
func (c *client) close() { c.transport.CloseIdleConnections() }

// HTTPError is an HTTP answer that is not the Prometheus API speaking: an
// authentication layer's 401, a 404 from a URL that is not Prometheus, a
// login page.
type HTTPError struct {
	StatusCode int
	Status     string
	Body       string // the start of the body, for the reason a server gave
	// Page is where an HTML page came from (after redirects), whose markup
	// says nothing a person could act on; empty for other answers.
	Page string
}

func (e *HTTPError) Error() string {
	switch {
	case e.Page != "":
		return fmt.Sprintf("HTTP %s: an HTML page from %s", e.Status, e.Page)
	case e.Body == "":
		return "HTTP " + e.Status
	}
	return fmt.Sprintf("HTTP %s: %s", e.Status, e.Body)
}

func newHTTPError(resp *http.Response) *HTTPError {
	defer resp.Body.Close()
	e := &HTTPError{StatusCode: resp.StatusCode, Status: resp.Status}
	if isHTML(resp) {
		page := *resp.Request.URL
		page.RawQuery, page.User = "", nil
		e.Page = page.String()
		return e
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	e.Body = strings.TrimSpace(string(b))
	return e
}

func isHTML(resp *http.Response) bool {
	return strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html")
}

// Position is where in a PromQL expression Prometheus found a problem.
type Position struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// positionRE finds the "line:col: parse error" Prometheus puts in bad_data
// messages; the position is only ever given inside the message text.
var positionRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[\s:"])(\d+):(\d+): parse error`)
})

// parsePosition extracts the parse position from a Prometheus error message.
func parsePosition(msg string) (Position, bool) {
	m := positionRE().FindStringSubmatch(msg)
	if m == nil {
		return Position{}, false
	}
	line, err1 := strconv.Atoi(m[1])
	col, err2 := strconv.Atoi(m[2])
	if err1 != nil || err2 != nil || line < 1 || col < 1 {
		return Position{}, false
	}
	return Position{Line: line, Column: col}, true
}

// toolError is the structured content of a failed call.
type toolError struct {
	Kind      string    `json:"kind"` // promql, prometheus, unreachable, timeout, http
	URL       string    `json:"url"`
	ErrorType string    `json:"errorType,omitempty"` // Prometheus' own error type
	Message   string    `json:"message"`
	Status    int       `json:"status,omitempty"`
	Position  *Position `json:"position,omitempty"`
}

// errorResult turns a failed request into a result the assistant can act on.
// It returns a Go error only when the caller itself went away, which is not
// the tool's failure to report.
func (c *client) errorResult(ctx context.Context, query string, err error) (*plugin.Result, error) {
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	te := toolError{URL: c.baseURL.Redacted(), Message: err.Error()}
	var text string
	apiErr, isAPI := prometheusError(err)
	var httpErr *HTTPError
	var netErr net.Error
	switch {
	case isAPI && apiErr.Type == v1.ErrBadData:
		te.Kind, te.ErrorType, te.Message = "promql", string(apiErr.Type), apiErr.Msg
		text = fmt.Sprintf("Prometheus rejected the request (%s): %s", apiErr.Type, apiErr.Msg)
		if pos, ok := parsePosition(apiErr.Msg); ok {
			te.Position = &pos
			text += "\n" + pointAt(query, pos)
		}
	case isAPI && isServerTimeout(apiErr):
		te.Kind, te.ErrorType, te.Message = "timeout", string(apiErr.Type), apiErr.Msg
		text = fmt.Sprintf("Prometheus at %s gave up on the query (%s: %s): it stops a query after the shorter of its --query.timeout and the plugin's timeout (%s).\n"+
			"Narrow the query: fewer series (add label matchers), a shorter range or a larger step.",
			te.URL, apiErr.Type, apiErr.Msg, c.timeout)
	case isAPI:
		te.Kind, te.ErrorType, te.Message = "prometheus", string(apiErr.Type), apiErr.Msg
		text = fmt.Sprintf("Prometheus at %s answered with an error (%s): %s", te.URL, apiErr.Type, apiErr.Msg)
		if apiErr.Detail != "" {
			text += "\n" + truncate(apiErr.Detail, 300)
		}
	case errors.As(err, &httpErr):
		te.Kind, te.Status, te.Message = "http", httpErr.StatusCode, httpErr.Error()
		text = fmt.Sprintf("Prometheus at %s refused the request: %s", te.URL, httpErr.Error())
		switch {
		case httpErr.StatusCode/100 == 2:
			text = fmt.Sprintf("Prometheus at %s answered with a web page, not the API: %s.\n"+
				"Check that url points at the Prometheus server, not Grafana or a login page; "+
				"an auth proxy showing a login page wants the bearer_token or basic_auth settings.", te.URL, httpErr.Error())
		case httpErr.StatusCode == http.StatusUnauthorized, httpErr.StatusCode == http.StatusForbidden:
			text += "\nCheck the bearer_token or basic_auth settings of this plugin."
		case httpErr.StatusCode == http.StatusNotFound:
			text += "\nCheck that url points at the Prometheus server (including any path prefix)."
		case httpErr.StatusCode == http.StatusBadGateway, httpErr.StatusCode == http.StatusServiceUnavailable,
			httpErr.StatusCode == http.StatusGatewayTimeout:
			text = fmt.Sprintf("Prometheus at %s is not available: %s.\n"+
				"A proxy or load balancer in front of it could not reach it, or it is still starting: check that Prometheus runs and is ready.",
				te.URL, httpErr.Error())
		}
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) && netErr.Timeout():
		te.Kind = "timeout"
		text = fmt.Sprintf("Prometheus at %s did not answer within %s, the plugin's timeout. "+
			"When even small requests time out, the server is overloaded, stuck or paused: check the server itself.", te.URL, c.timeout)
		if query != "" {
			text += " For a heavy query, narrow it: fewer series (add label matchers), a shorter range or a larger step."
		}
		text += " If the server is just slow, raise the plugin's timeout setting."
	case errors.As(err, &netErr):
		te.Kind = "unreachable"
		text = fmt.Sprintf("Cannot reach Prometheus at %s: %v", te.URL, unwrapURLError(err))
		if errors.Is(err, http.ErrSchemeMismatch) {
			text += "\nThe server speaks plain HTTP: write url with http://, or give Prometheus a TLS web config."
		}
	default:
		te.Kind = "prometheus"
		text = fmt.Sprintf("Request to Prometheus at %s failed: %v", te.URL, err)
	}
	// A body is quoted as it came: a proxy's page in Latin-1, or cut inside
	// a character. Text that is not UTF-8 cannot be sent back at all.
	res, jerr := plugin.JSON(map[string]any{"error": te}, strings.ToValidUTF8(text, "\uFFFD"))
	if jerr != nil {
		return nil, jerr
	}
	res.IsError = true
	return res, nil
}

// prometheusError is Prometheus' own error of a failed request. The client
// library keeps Prometheus' error type and message only from 400 and 422
// answers; from the 503 of a query timeout or the 500 of an internal error
// it makes a bare "server error: 503" and keeps the body, where Prometheus
// wrote its type and message, as Detail.
func prometheusError(err error) (*v1.Error, bool) {
	var e *v1.Error
	if !errors.As(err, &e) {
		return nil, false
	}
	if e.Type != v1.ErrServer && e.Type != v1.ErrClient {
		return e, true
	}
	var body struct {
		Status    string       `json:"status"`
		ErrorType v1.ErrorType `json:"errorType"`
		Error     string       `json:"error"`
	}
	if json.Unmarshal([]byte(e.Detail), &body) != nil || body.Status != "error" || body.ErrorType == "" {
		return e, true
	}
	return &v1.Error{Type: body.ErrorType, Msg: body.Error}, true
}

// isServerTimeout tells Prometheus' own query timeout from other errors.
// Prometheus reports it as a timeout when time runs out during evaluation,
// but as an execution error carrying the context's message when time runs
// out while it reads series; that message is the only sign the API gives.
func isServerTimeout(e *v1.Error) bool {
	return e.Type == v1.ErrTimeout ||
		e.Type == v1.ErrExec && strings.HasSuffix(e.Msg, context.DeadlineExceeded.Error())
}

// unwrapURLError drops net/http's "Get <url>:" prefix, whose URL carries the
// whole query string and says nothing the message does not already.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// pointAt shows the query line at fault with a caret under the column.
func pointAt(query string, pos Position) string {
	lines := strings.Split(query, "\n")
	if pos.Line < 1 || pos.Column < 1 || pos.Line > len(lines) {
		return fmt.Sprintf("at line %d, column %d", pos.Line, pos.Column)
	}
	line := lines[pos.Line-1]
	col := min(pos.Column, len(line)+1)
	return fmt.Sprintf("at line %d, column %d:\n  %s\n  %s^", pos.Line, pos.Column, line, strings.Repeat(" ", col-1))
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return clip.Prefix(s, n) + "…"
}

// queryOpts passes the request timeout on to Prometheus, so the server stops
// evaluating a query nobody waits for any more.
func (c *client) queryOpts() []v1.Option {
	return []v1.Option{v1.WithTimeout(c.timeout)}
}

// warningsText renders Prometheus' warnings as lines after a result.
func warningsText(w v1.Warnings) string {
	var b strings.Builder
	for _, s := range w {
		b.WriteString("\nwarning: " + s)
	}
	return b.String()
}

// appendNote adds note to notes unless it is empty.
func appendNote(notes []string, note string) []string {
	if note == "" {
		return notes
	}
	return append(notes, note)
}

// notesText renders how the plugin read or changed the arguments, as lines
// after a result, so the assistant learns what was actually asked.
func notesText(notes []string) string {
	var b strings.Builder
	for _, n := range notes {
		b.WriteString("\nnote: " + n)
	}
	return b.String()
}

// since formats how long ago t was, for "last scrape 2s ago".
func since(now, t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	d := now.Sub(t).Round(time.Second)
	if d < 0 {
		d = 0
	}
	return d.String() + " ago"
}
