package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/toolgate/toolgate/sdk/plugin"
)

const (
	defaultTailLines = 200
	// logByteLimit keeps one answer readable; the tail is what matters.
	logByteLimit = 256 << 10
	// defaultContainerAnnotation names the container kubectl picks by default.
	defaultContainerAnnotation = "kubectl.kubernetes.io/default-container"
)

// podResource is the kind logs are read from, for the config's limits.
var podResource = resource{GVR: corev1.SchemeGroupVersion.WithResource("pods"), Kind: "Pod", Singular: "pod",
	Namespaced: true, ShortNames: []string{"po"}}

type logsArgs struct {
	contextArg
	Name       string `json:"name" description:"Pod name."`
	Namespace  string `json:"namespace,omitempty" description:"Namespace of the pod; default the plugin's namespace."`
	Container  string `json:"container,omitempty" description:"Container name; needed when the pod has several (default: the only one, or the pod's default container)."`
	TailLines  int64  `json:"tail_lines,omitempty" description:"Return only the newest N lines (default 200)."`
	Since      string `json:"since,omitempty" description:"Only lines newer than this duration, e.g. 10m or 2h."`
	Previous   bool   `json:"previous,omitempty" description:"Logs of the previous instance of the container, the one that crashed or restarted."`
	Timestamps bool   `json:"timestamps,omitempty" description:"Prefix each line with its timestamp."`
}

func (a logsArgs) namespaceArg() string { return a.Namespace }

func (k *kube) podLogs(ctx context.Context, in logsArgs) (*plugin.Result, error) {
	ns := in.Namespace
	if ns == "" {
		ns = k.c.namespace
	}
	t := target{verb: "get", resource: "pods", name: in.Name, namespace: ns}
	if res := k.allowed(t, podResource); res != nil {
		return res, nil
	}
	if in.Name == "" {
		return plugin.Errorf("get_pod_logs: name is required (list_resources kind=pods lists them)"), nil
	}
	opts := &corev1.PodLogOptions{Container: in.Container, Previous: in.Previous, Timestamps: in.Timestamps, LimitBytes: ptrTo(int64(logByteLimit))}
	if in.Since != "" {
		d, err := time.ParseDuration(in.Since)
		if err != nil || d <= 0 {
			return plugin.Errorf("get_pod_logs: since must be a positive duration such as 10m, got %q", in.Since), nil
		}
		opts.SinceSeconds = ptrTo(int64(d.Seconds()))
	}
	switch {
	case in.TailLines > 0:
		opts.TailLines = ptrTo(in.TailLines)
	case in.Since == "":
		opts.TailLines = ptrTo(int64(defaultTailLines))
	}

	pod := &corev1.Pod{}
	if err := getJSON(ctx, k.c.rest.Get().AbsPath(append(apiPath(podResource, ns), in.Name)...), pod); err != nil {
		return k.c.fail(t, err), nil
	}
	container, err := pickContainer(pod, in.Container)
	if err != nil {
		return plugin.Errorf("get_pod_logs: pod %s/%s: %v", ns, in.Name, err), nil
	}
	opts.Container = container
	if why := logsUnavailable(pod, container, in.Previous); why != "" {
		return notAvailable(ns, in.Name, container, why)
	}
	raw, err := k.c.podLogs(ctx, ns, in.Name, opts)
	if err != nil {
		var status apierrors.APIStatus
		if !errors.As(err, &status) || apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) {
			return k.c.fail(target{verb: "get", resource: "pods/log", name: in.Name, namespace: ns}, err), nil
		}
		// The pod was just read, so any other status means the API server
		// could not get the logs from the node: no kubelet, node gone (a
		// NotFound for the node), container never ran.
		return notAvailable(ns, in.Name, container, fmt.Sprintf("the API server could not fetch them from node %q: %s", pod.Spec.NodeName, status.Status().Message))
	}
	text := string(raw)
	if text == "" {
		text = "(no log lines)"
	}
	if len(raw) >= logByteLimit {
		text += fmt.Sprintf("\n\n[cut at %d KiB; ask for fewer tail_lines or a shorter since]", logByteLimit>>10)
	}
	return plugin.Text(text), nil
}

// pickContainer chooses the container as kubectl does and names the choices
// when the caller must pick.
func pickContainer(pod *corev1.Pod, want string) (string, error) {
	var names []string
	for _, c := range pod.Spec.InitContainers {
		names = append(names, c.Name)
	}
	for _, c := range pod.Spec.Containers {
		names = append(names, c.Name)
	}
	for _, c := range pod.Spec.EphemeralContainers {
		names = append(names, c.Name)
	}
	switch {
	case want != "":
		if !slices.Contains(names, want) {
			return "", fmt.Errorf("has no container %q (it has: %s)", want, strings.Join(names, ", "))
		}
		return want, nil
	case pod.Annotations[defaultContainerAnnotation] != "":
		return pod.Annotations[defaultContainerAnnotation], nil
	case len(pod.Spec.Containers) == 1:
		return pod.Spec.Containers[0].Name, nil
	}
	return "", fmt.Errorf("has several containers; pass container= one of: %s", strings.Join(names, ", "))
}

// logsUnavailable says why the cluster cannot have logs for the container,
// or "" when it may.
func logsUnavailable(pod *corev1.Pod, container string, previous bool) string {
	if pod.Spec.NodeName == "" {
		return fmt.Sprintf("the pod is not scheduled to a node (phase %s), so no container of it has run", phaseOf(pod))
	}
	for _, st := range append(append(pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses...), pod.Status.EphemeralContainerStatuses...) {
		if st.Name != container {
			continue
		}
		if previous && st.RestartCount == 0 && st.LastTerminationState.Terminated == nil {
			return "the container has not restarted, so there is no previous instance"
		}
		if w := st.State.Waiting; w != nil && !previous && st.RestartCount == 0 {
			return fmt.Sprintf("the container has not started yet (waiting: %s %s)", w.Reason, w.Message)
		}
	}
	return ""
}

func phaseOf(pod *corev1.Pod) string {
	if pod.Status.Phase == "" {
		return "unknown"
	}
	return string(pod.Status.Phase)
}

func notAvailable(ns, pod, container, why string) (*plugin.Result, error) {
	text := fmt.Sprintf("Logs of pod %s/%s (container %s) are not available: %s.", ns, pod, container, strings.TrimSpace(why))
	res, err := plugin.JSON(map[string]any{"available": false, "pod": pod, "namespace": ns, "container": container, "reason": why}, text)
	if err != nil {
		return nil, err
	}
	res.IsError = true
	return res, nil
}

func ptrTo[T any](v T) *T { return &v }

// podLogs reads a container's log through the pod's log subresource.
func (c *cluster) podLogs(ctx context.Context, ns, name string, opts *corev1.PodLogOptions) ([]byte, error) {
	req := c.rest.Get().AbsPath(append(apiPath(podResource, ns), name, "log")...)
	if opts.Container != "" {
		req = req.Param("container", opts.Container)
	}
	if opts.Previous {
		req = req.Param("previous", "true")
	}
	if opts.Timestamps {
		req = req.Param("timestamps", "true")
	}
	for param, v := range map[string]*int64{"sinceSeconds": opts.SinceSeconds, "tailLines": opts.TailLines, "limitBytes": opts.LimitBytes} {
		if v != nil {
			req = req.Param(param, strconv.FormatInt(*v, 10))
		}
	}
	res := req.Do(ctx)
	if err := res.Error(); err != nil {
		raw, _ := res.Raw()
		return nil, statusFromBody(raw, err)
	}
	return res.Raw()
}
