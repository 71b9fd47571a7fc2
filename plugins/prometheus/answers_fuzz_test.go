package prometheus

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/toolgate/toolgate/sdk/plugintest"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// answer is what the fake Prometheus of FuzzAnswers sends.
type answer struct {
	status      int
	contentType string
	body        []byte
}

// FuzzAnswers points the plugin at a server answering anything at all, the
// way a proxy, a login page or a broken Prometheus might, and runs a query
// over the real gRPC path: the tool must answer with a result, never fail
// the call itself, whatever the status, content type and body.
func FuzzAnswers(f *testing.F) {
	f.Add(uint8(0), uint8(0), []byte(`{"status":"success","data":{"resultType":"vector","result":[{"metric":{"job":"x"},"value":[1700000000,"1"]}]}}`))
	f.Add(uint8(2), uint8(0), []byte(`{"status":"error","errorType":"bad_data","error":"1:5: parse error: unexpected"}`))
	f.Add(uint8(4), uint8(0), []byte(`{"status":"error","errorType":"timeout","error":"query timed out"}`))
	f.Add(uint8(5), uint8(2), []byte("upstream down"))
	f.Add(uint8(6), uint8(1), []byte("<html>login</html>"))
	f.Add(uint8(0), uint8(0), []byte(`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"NaN"],[2,"1e308"]]}]},"warnings":["w"]}`))

	var current atomic.Pointer[answer]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		a := current.Load()
		w.Header().Set("Content-Type", a.contentType)
		w.WriteHeader(a.status)
		_, _ = w.Write(a.body)
	}))
	defer srv.Close()
	p, a := newPlugin()
	b := plugintest.ServePlugin(f, p)
	defer a.close()
	cfg, _ := json.Marshal(map[string]any{"url": srv.URL})
	if err := b.Configure(context.Background(), cfg); err != nil {
		f.Fatal(err)
	}
	statuses := []int{200, 204, 400, 401, 422, 502, 503, 500, 404, 302}
	types := []string{"application/json", "text/html; charset=utf-8", "text/plain", ""}
	f.Fuzz(func(t *testing.T, status, contentType uint8, body []byte) {
		current.Store(&answer{status: statuses[int(status)%len(statuses)], contentType: types[int(contentType)%len(types)], body: body})
		for _, tool := range []string{"query", "query_range"} {
			res, err := b.CallTool(context.Background(), &protov1.CallRequest{Name: tool, Arguments: json.RawMessage(`{"query":"up"}`)}, &plugintest.Events{})
			if err != nil {
				t.Fatalf("%s answered by %d %q: the call failed: %v", tool, statuses[int(status)%len(statuses)], body, err)
			}
			if len(res.Content) == 0 {
				t.Fatalf("%s answered by %d %q: empty result", tool, statuses[int(status)%len(statuses)], body)
			}
		}
	})
}
