package testparts_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/toolgate/toolgate/internal/testparts"
)

// TestKubeAssetsRunEnvtest proves the built binaries form a working control
// plane for the Kubernetes plugin's tests: envtest starts them, client-go
// reads, writes and watches through them (watches are what an etcd too old
// for this API server breaks), and they stop cleanly.
func TestKubeAssetsRunEnvtest(t *testing.T) {
	t.Setenv("KUBEBUILDER_ASSETS", testparts.KubeAssets(t))

	env := &envtest.Environment{ControlPlaneStartTimeout: time.Minute}
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("start envtest control plane: %v", err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("stop envtest control plane: %v", err)
		}
	})

	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatalf("client for envtest: %v", err)
	}
	ctx := t.Context()
	namespaces := client.CoreV1().Namespaces()

	list, err := namespaces.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list namespaces: %v", err)
	}
	names := map[string]bool{}
	for _, ns := range list.Items {
		names[ns.Name] = true
	}
	if !names["default"] {
		t.Errorf("namespaces = %v, want one named default", names)
	}

	w, err := namespaces.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatalf("watch namespaces: %v", err)
	}
	defer w.Stop()

	const name = "testparts-probe"
	if _, err := namespaces.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create namespace %s: %v", name, err)
	}

	timeout := time.After(30 * time.Second)
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatal("namespace watch closed before the created namespace was seen")
			}
			if ns, isNS := ev.Object.(*corev1.Namespace); ev.Type == watch.Added && isNS && ns.Name == name {
				return
			}
		case <-timeout:
			t.Fatalf("namespace %s was created but the watch did not report it within 30s", name)
		}
	}
}
