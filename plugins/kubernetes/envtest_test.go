package kubernetes

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"go.uber.org/goleak"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	kubeclient "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/toolgate/toolgate/internal/testparts"
)

// One control plane (kube-apiserver + etcd, RBAC on) serves every test of
// the package: starting one costs seconds, and each test works in its own
// namespace.
func TestMain(m *testing.M) {
	ctrllog.SetLogger(logr.Discard())
	code := m.Run()
	if err := stopCluster(); err != nil {
		fmt.Fprintln(os.Stderr, "stop control plane:", err)
		code = 1
	}
	if code == 0 {
		if err := goleak.Find(
			// klog's flush daemon lives for the process, by design.
			goleak.IgnoreTopFunction("k8s.io/klog/v2.(*flushDaemon).run"),
		); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

var widgetGVR = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

// testCluster is the shared control plane and an admin's clients for
// setting up what the tools should find.
type testCluster struct {
	env        *envtest.Environment
	dir        string
	kubeconfig string // system:masters
	typed      kubeclient.Interface
	dynamic    dynamic.Interface
}

var shared struct {
	once sync.Once
	c    *testCluster
	err  error
}

// kubeCluster starts the shared control plane on first use.
func kubeCluster(t *testing.T) *testCluster {
	t.Helper()
	assets := testparts.KubeAssets(t)
	shared.once.Do(func() { shared.c, shared.err = startCluster(assets) })
	if shared.err != nil {
		t.Fatalf("start control plane: %v", shared.err)
	}
	return shared.c
}

func startCluster(assets string) (*testCluster, error) {
	dir, err := os.MkdirTemp("", "toolgate-k8s-")
	if err != nil {
		return nil, err
	}
	c := &testCluster{dir: dir, env: &envtest.Environment{
		BinaryAssetsDirectory:    assets,
		CRDs:                     []*apiextensionsv1.CustomResourceDefinition{widgetCRD()},
		ControlPlaneStartTimeout: time.Minute,
		ControlPlaneStopTimeout:  30 * time.Second,
	}}
	shared.c = c // so stopCluster cleans up even after a failed start
	cfg, err := c.env.Start()
	if err != nil {
		return nil, err
	}
	if c.typed, err = kubeclient.NewForConfig(cfg); err != nil {
		return nil, err
	}
	if c.dynamic, err = dynamic.NewForConfig(cfg); err != nil {
		return nil, err
	}
	if c.kubeconfig, err = c.userKubeconfig("admin", "system:masters"); err != nil {
		return nil, err
	}
	return c, nil
}

func stopCluster() error {
	c := shared.c
	if c == nil {
		return nil
	}
	defer os.RemoveAll(c.dir)
	return c.env.Stop()
}

// userKubeconfig writes a kubeconfig for a user authenticated by a client
// certificate, as an operator's would be.
func (c *testCluster) userKubeconfig(name string, groups ...string) (string, error) {
	u, err := c.env.AddUser(envtest.User{Name: name, Groups: groups}, nil)
	if err != nil {
		return "", err
	}
	return writeKubeconfig(filepath.Join(c.dir, name+".kubeconfig"), u.Config())
}

func writeKubeconfig(path string, cfg *rest.Config) (string, error) {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["envtest"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["user"] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData}
	kc.Contexts["envtest"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "user"}
	kc.CurrentContext = "envtest"
	return path, clientcmd.WriteToFile(*kc, path)
}

// namespace creates a fresh namespace for one test.
func (c *testCluster) namespace(t *testing.T, labels map[string]string) string {
	t.Helper()
	name := strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name()))
	if len(name) > 50 {
		name = name[:50]
	}
	name = strings.Trim(name, "-")
	_, err := c.typed.CoreV1().Namespaces().Create(context.Background(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create namespace %s: %v", name, err)
	}
	return name
}

func widgetCRD() *apiextensionsv1.CustomResourceDefinition {
	str := apiextensionsv1.JSONSchemaProps{Type: "string"}
	integer := apiextensionsv1.JSONSchemaProps{Type: "integer"}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget",
				ListKind: "WidgetList", ShortNames: []string{"wd"}},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec":   {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"size": str, "replicas": integer}},
						"status": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"replicas": integer}},
					},
				}},
				Subresources: &apiextensionsv1.CustomResourceSubresources{
					Status: &apiextensionsv1.CustomResourceSubresourceStatus{},
					Scale:  &apiextensionsv1.CustomResourceSubresourceScale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas"},
				},
				AdditionalPrinterColumns: []apiextensionsv1.CustomResourceColumnDefinition{{Name: "Size", Type: "string", JSONPath: ".spec.size"}},
			}},
		},
	}
}

func (c *testCluster) createWidget(t *testing.T, ns, name, size string, labels map[string]string) {
	t.Helper()
	w := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec":     map[string]any{"size": size, "replicas": int64(1)},
	}}
	w.SetLabels(labels)
	if _, err := c.dynamic.Resource(widgetGVR).Namespace(ns).Create(context.Background(), w, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create widget %s: %v", name, err)
	}
}

func (c *testCluster) createConfigMap(t *testing.T, ns, name string, labels map[string]string) {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels}, Data: map[string]string{"k": "v"}}
	if _, err := c.typed.CoreV1().ConfigMaps(ns).Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create configmap %s: %v", name, err)
	}
}

func (c *testCluster) createDeployment(t *testing.T, ns, name string, labels map[string]string) *appsv1.Deployment {
	t.Helper()
	replicas := int32(1)
	sel := map[string]string{"app": name}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels,
			Annotations: map[string]string{lastApplied: `{"apiVersion":"apps/v1","kind":"Deployment"}`, "team": "shop"}},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: sel},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: sel},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:1.27"}}},
			},
		},
	}
	out, err := c.typed.AppsV1().Deployments(ns).Create(context.Background(), d, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create deployment %s: %v", name, err)
	}
	return out
}

// adminPlugin serves the plugin as a cluster admin, with extra settings.
func (c *testCluster) adminPlugin(t *testing.T, extra map[string]any) pluginUnderTest {
	t.Helper()
	config := map[string]any{"kubeconfig": c.kubeconfig}
	for k, v := range extra {
		config[k] = v
	}
	return pluginUnderTest{t: t, b: servePlugin(t, config)}
}
