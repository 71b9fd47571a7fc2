package kubernetes

import (
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// silentServer accepts connections and never answers, as an API server
// that hangs does; it counts the connections it was sent.
type silentServer struct {
	ln    net.Listener
	dials atomic.Int32
	mu    sync.Mutex
	conns []net.Conn
	done  sync.WaitGroup
}

func newSilentServer(t *testing.T) *silentServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &silentServer{ln: ln}
	s.done.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			s.dials.Add(1)
			s.mu.Lock()
			s.conns = append(s.conns, conn)
			s.mu.Unlock()
		}
	})
	t.Cleanup(func() {
		ln.Close()
		s.done.Wait()
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, c := range s.conns {
			c.Close()
		}
	})
	return s
}

func (s *silentServer) kubeconfig(t *testing.T) string {
	return writeFile(t, "kubeconfig", fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: silent
  cluster: {server: "https://%s", insecure-skip-tls-verify: true}
contexts:
- name: silent
  context: {cluster: silent, user: u}
current-context: silent
users:
- name: u
  user: {token: t}
`, s.ln.Addr()))
}

// TestNamespaceRefusedWithoutTheServer: a namespace outside
// allowed_namespaces is refused at once, before the plugin asks the server
// anything, so the refusal does not wait on a server that hangs.
func TestNamespaceRefusedWithoutTheServer(t *testing.T) {
	s := newSilentServer(t)
	b := servePlugin(t, map[string]any{"kubeconfig": s.kubeconfig(t), "timeout": "20s", "namespace": "shop",
		"allowed_namespaces": []string{"shop"}, "read_only": false, "allow_destructive": true})
	object := map[string]any{"kind": "deploy", "name": "web", "namespace": "kube-system"}
	with := func(extra map[string]any) map[string]any {
		out := map[string]any{}
		for k, v := range object {
			out[k] = v
		}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"list_resources", map[string]any{"kind": "cm", "namespace": "kube-system"}},
		{"get_resource", object},
		{"describe_resource", object},
		{"list_events", map[string]any{"namespace": "kube-system", "kind": "deploy"}},
		{"get_pod_logs", map[string]any{"name": "p", "namespace": "kube-system"}},
		{"rollout_status", object},
		{"rollout_history", object},
		{"top", map[string]any{"namespace": "kube-system"}},
		{"apply_manifest", map[string]any{"manifest": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n", "namespace": "kube-system"}},
		{"apply_manifest", map[string]any{"manifest": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: kube-system}\n"}},
		{"patch_resource", with(map[string]any{"patch": `{"metadata":{"labels":{"a":"b"}}}`})},
		{"scale_resource", with(map[string]any{"replicas": 2})},
		{"rollout_restart", object},
		{"rollout_undo", object},
		{"delete_resource", object},
	} {
		start := time.Now()
		text := mustFail(t, callTool(t, b, call.tool, call.args))
		mustContain(t, text, `namespace "kube-system" is not in the plugin's allowed_namespaces (shop)`, "not allowed by the plugin config")
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("%s took %v to refuse a namespace outside allowed_namespaces", call.tool, took)
		}
	}
	if n := s.dials.Load(); n != 0 {
		t.Errorf("the plugin connected to the server %d times to refuse namespaces it may not use", n)
	}
}

// TestSilentServerIsATimeout: a server that does not answer is reported as
// one, never as a kind or API version it does not serve, and no call
// outlives the configured timeout by much.
func TestSilentServerIsATimeout(t *testing.T) {
	s := newSilentServer(t)
	b := servePlugin(t, map[string]any{"kubeconfig": s.kubeconfig(t), "timeout": "1s", "read_only": false})
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"apply_manifest", map[string]any{"manifest": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"}},
		{"list_resources", map[string]any{"kind": "deployments", "api_version": "apps/v1"}},
		{"get_resource", map[string]any{"kind": "cm", "name": "c"}},
	} {
		start := time.Now()
		text := mustFail(t, callTool(t, b, call.tool, call.args))
		mustContain(t, text, "did not answer in time", s.ln.Addr().String())
		mustNotContain(t, text, "unknown resource kind", "not served")
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("%s answered after %v with a 1s timeout", call.tool, took)
		}
	}
}
