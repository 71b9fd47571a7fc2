package kubernetes

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"k8s.io/client-go/util/flowcontrol"

	"github.com/toolgate/toolgate/sdk/protov1"
)

func TestDecodeConfigDefaults(t *testing.T) {
	_, s, err := decodeConfig(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := settings{readOnly: true, maxItems: defaultMaxItems, timeout: defaultTimeout, secrets: secretPolicy{reveal: map[string]bool{}}}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("defaults = %+v, want %+v", s, want)
	}
	_, s, err = decodeConfig(json.RawMessage(`{"read_only": false, "allow_destructive": true, "max_items": 7, "timeout": "5s"}`))
	if err != nil {
		t.Fatal(err)
	}
	want = settings{readOnly: false, allowDestructive: true, maxItems: 7, timeout: 5 * time.Second, secrets: secretPolicy{reveal: map[string]bool{}}}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("settings = %+v, want %+v", s, want)
	}
}

func TestConfigureRejectsBadFields(t *testing.T) {
	kubeconfig := writeFile(t, "kubeconfig", offlineKubeconfig)
	cases := []struct {
		name, config, path string
	}{
		{"typo", `{"read_onyl": false}`, "read_onyl"},
		{"max_items below 1", `{"max_items": -1}`, "max_items"},
		{"max_items too large", `{"max_items": 100000}`, "max_items"},
		{"timeout not a duration", `{"timeout": "soon"}`, "timeout"},
		{"timeout not positive", `{"timeout": "0s"}`, "timeout"},
		{"destructive while read-only", `{"allow_destructive": true}`, "allow_destructive"},
		{"in_cluster with kubeconfig", `{"in_cluster": true, "kubeconfig": "x"}`, "in_cluster"},
		{"missing kubeconfig", `{"kubeconfig": "/nonexistent/kubeconfig"}`, "kubeconfig"},
		{"unknown context", `{"kubeconfig": "` + kubeconfig + `", "context": "three"}`, "context"},
		{"wrong type", `{"max_items": "many"}`, "max_items"},
		{"reveal without namespace", `{"reveal_secrets": ["db-password"]}`, "reveal_secrets"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := New(hclog.NewNullLogger()).Configure(context.Background(), json.RawMessage(tc.config))
			var ce *protov1.ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("Configure(%s) = %v, want a *ConfigError", tc.config, err)
			}
			if len(ce.Fields) == 0 || ce.Fields[0].Path != tc.path {
				t.Errorf("Configure(%s) fields = %+v, want path %q", tc.config, ce.Fields, tc.path)
			}
		})
	}
}

func TestConfigurePicksContextAndNamespace(t *testing.T) {
	kubeconfig := writeFile(t, "kubeconfig", offlineKubeconfig)
	cases := []struct {
		config     map[string]any
		server, ns string
	}{
		{map[string]any{"kubeconfig": kubeconfig}, "https://127.0.0.1:1", "team-a"},
		{map[string]any{"kubeconfig": kubeconfig, "context": "two"}, "https://127.0.0.1:2", "default"},
		{map[string]any{"kubeconfig": kubeconfig, "namespace": "ops"}, "https://127.0.0.1:1", "ops"},
	}
	for _, tc := range cases {
		raw, _ := json.Marshal(tc.config)
		c, s, err := decodeConfig(raw)
		if err != nil {
			t.Fatal(err)
		}
		conn, err := connect(c, s.timeout)
		if err != nil {
			t.Fatalf("connect(%s): %v", raw, err)
		}
		if conn.rest.Host != tc.server || conn.namespace != tc.ns {
			t.Errorf("connect(%s) = server %s namespace %s, want %s %s", raw, conn.rest.Host, conn.namespace, tc.server, tc.ns)
		}
		if conn.rest.Timeout != defaultTimeout {
			t.Errorf("request timeout = %v, want %v", conn.rest.Timeout, defaultTimeout)
		}
	}
}

// TestKubeconfigFromEnvironment checks the default lookup: $KUBECONFIG
// before ~/.kube/config.
func TestKubeconfigFromEnvironment(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("KUBECONFIG", writeFile(t, "kubeconfig", offlineKubeconfig))
	conn, err := connect(Config{}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if conn.rest.Host != "https://127.0.0.1:1" {
		t.Errorf("server = %s, want the one from $KUBECONFIG", conn.rest.Host)
	}

	t.Setenv("KUBECONFIG", "")
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	_, err = connect(Config{}, time.Second)
	var ce *protov1.ConfigError
	if !errors.As(err, &ce) || ce.Fields[0].Path != "kubeconfig" {
		t.Errorf("connect without any kubeconfig = %v, want a kubeconfig field error", err)
	}
}

func TestExpandHome(t *testing.T) {
	t.Setenv("HOME", "/home/op")
	for in, want := range map[string]string{
		"~/.kube/config": "/home/op/.kube/config",
		"~":              "/home/op",
		"/etc/kube":      "/etc/kube",
		"~other/x":       "~other/x",
	} {
		if got := expandHome(in); got != want {
			t.Errorf("expandHome(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRateLimitPastDeadlineIsATimeout: a request the client-side rate
// limiter cannot let through before the call's deadline fails as a timeout,
// not as a server that cannot be reached.
func TestRateLimitPastDeadlineIsATimeout(t *testing.T) {
	l := deadlineLimiter{flowcontrol.NewTokenBucketRateLimiter(0.001, 1)}
	l.Accept() // the only token
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := l.Wait(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Wait with no token before the deadline = %v, want a deadline error", err)
	}
	cancelled, cancelNow := context.WithCancel(context.Background())
	cancelNow()
	if err := l.Wait(cancelled); errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Wait on a cancelled call = %v, want no deadline error", err)
	}
}
