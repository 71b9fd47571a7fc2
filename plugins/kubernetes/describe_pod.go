package kubernetes

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	discoveryv1 "k8s.io/api/discovery/v1"
)

// container is one container of a pod, or of a workload's pod template, with
// what explains a crash: the state now, how the last run ended, restarts,
// resources and probes.
type container struct {
	Name      string `json:"name"`
	Image     string `json:"image"`
	Ready     bool   `json:"ready"`
	Restarts  int64  `json:"restarts"`
	State     string `json:"state"`
	LastState string `json:"lastState,omitempty"`
	Requests  string `json:"requests,omitempty"`
	Limits    string `json:"limits,omitempty"`
	Liveness  string `json:"liveness,omitempty"`
	Readiness string `json:"readiness,omitempty"`
	Startup   string `json:"startup,omitempty"`
}

// containers joins a pod's container specs (init containers first) with
// their statuses; for a workload it lists its pod template's containers.
func containers(o map[string]any) []container {
	statuses := map[string]map[string]any{}
	for _, key := range []string{"initContainerStatuses", "containerStatuses"} {
		for _, s := range nestedSlice(o, "status", key) {
			if m, ok := s.(map[string]any); ok {
				statuses[nestedString(m, "name")] = m
			}
		}
	}
	spec, state := nested(o, "spec"), "not started"
	if tmpl, ok := nested(o, "spec", "template", "spec").(map[string]any); ok {
		spec, state = tmpl, "pod template"
	}
	specMap, _ := spec.(map[string]any)
	var out []container
	for _, key := range []string{"initContainers", "containers"} {
		for _, c := range nestedSlice(specMap, key) {
			m, ok := c.(map[string]any)
			if !ok || nestedString(m, "image") == "" {
				continue
			}
			ct := container{Name: nestedString(m, "name"), Image: nestedString(m, "image"), State: state,
				Requests: resourceList(m, "requests"), Limits: resourceList(m, "limits"),
				Liveness: probe(m, "livenessProbe"), Readiness: probe(m, "readinessProbe"), Startup: probe(m, "startupProbe")}
			if key == "initContainers" {
				ct.Name += " (init)"
			}
			if st, ok := statuses[nestedString(m, "name")]; ok {
				ct.Ready, _ = nested(st, "ready").(bool)
				ct.Restarts, _ = nestedInt(st, "restartCount")
				ct.State = containerState(nested(st, "state"))
				if last := containerState(nested(st, "lastState")); last != "unknown" {
					ct.LastState = last
				}
			}
			out = append(out, ct)
		}
	}
	return out
}

// containerState renders a state as kubectl describe does: the reason, the
// exit code of a terminated run (137 with OOMKilled is the memory limit),
// the message, and when it ended.
func containerState(v any) string {
	state, _ := v.(map[string]any)
	if s, ok := state["waiting"].(map[string]any); ok {
		return joinNonEmpty("waiting", nestedString(s, "reason"), nestedString(s, "message"))
	}
	if s, ok := state["terminated"].(map[string]any); ok {
		out := joinNonEmpty("terminated", nestedString(s, "reason"))
		if code, ok := nestedInt(s, "exitCode"); ok {
			out += fmt.Sprintf(" (exit code %d", code)
			if sig, ok := nestedInt(s, "signal"); ok && sig != 0 {
				out += fmt.Sprintf(", signal %d", sig)
			}
			out += ")"
		}
		if fin := nestedString(s, "finishedAt"); fin != "" {
			out += ", finished " + fin
		}
		if msg := nestedString(s, "message"); msg != "" {
			out += ": " + msg
		}
		return out
	}
	if s, ok := state["running"].(map[string]any); ok {
		if started := nestedString(s, "startedAt"); started != "" {
			return "running since " + started
		}
		return "running"
	}
	return "unknown"
}

func joinNonEmpty(head string, parts ...string) string {
	out := head
	for i, p := range parts {
		if p == "" {
			continue
		}
		if i == 0 {
			out += ": " + p
		} else {
			out += " (" + p + ")"
		}
	}
	return out
}

// resourceList renders requests or limits as cpu=100m, memory=128Mi.
func resourceList(c map[string]any, which string) string {
	m, _ := nested(c, "resources", which).(map[string]any)
	keys := slices.Sorted(maps.Keys(m))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%v", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// probe renders a probe in kubectl's shape: the action, then its timing.
func probe(c map[string]any, which string) string {
	p, ok := c[which].(map[string]any)
	if !ok {
		return ""
	}
	var action string
	switch {
	case nested(p, "httpGet") != nil:
		scheme := strings.ToLower(firstNonEmpty(nestedString(p, "httpGet", "scheme"), "http"))
		action = fmt.Sprintf("http-get %s://%s:%v%s", scheme, nestedString(p, "httpGet", "host"), nested(p, "httpGet", "port"), nestedString(p, "httpGet", "path"))
	case nested(p, "tcpSocket") != nil:
		action = fmt.Sprintf("tcp-socket port %v", nested(p, "tcpSocket", "port"))
	case nested(p, "grpc") != nil:
		action = fmt.Sprintf("grpc port %v", nested(p, "grpc", "port"))
	case nested(p, "exec") != nil:
		cmd := nestedSlice(p, "exec", "command")
		parts := make([]string, len(cmd))
		for i, a := range cmd {
			parts[i] = fmt.Sprint(a)
		}
		action = "exec [" + strings.Join(parts, " ") + "]"
	}
	for _, t := range []struct{ key, label, unit string }{{"initialDelaySeconds", "delay", "s"}, {"timeoutSeconds", "timeout", "s"},
		{"periodSeconds", "period", "s"}, {"failureThreshold", "failure", ""}} {
		if n, ok := nestedInt(p, t.key); ok {
			action += fmt.Sprintf(" %s=%d%s", t.label, n, t.unit)
		}
	}
	return action
}

// containersText renders containers one block each: with last termination,
// probes and resources there is too much for a table row.
func containersText(cs []container) string {
	var b strings.Builder
	b.WriteString("Containers:\n")
	for _, c := range cs {
		fmt.Fprintf(&b, "  %s:\n", c.Name)
		line := func(label, value string) {
			if value != "" {
				fmt.Fprintf(&b, "    %-12s %s\n", label+":", value)
			}
		}
		line("Image", c.Image)
		line("State", c.State)
		line("Last state", c.LastState)
		if c.State != "pod template" && c.State != "not started" {
			line("Ready", fmt.Sprint(c.Ready))
			line("Restarts", fmt.Sprint(c.Restarts))
		}
		line("Requests", c.Requests)
		line("Limits", c.Limits)
		line("Liveness", c.Liveness)
		line("Readiness", c.Readiness)
		line("Startup", c.Startup)
	}
	return b.String()
}

// servicePorts renders a Service's ports as name port/protocol -> target.
func servicePorts(o map[string]any) []string {
	var out []string
	for _, p := range nestedSlice(o, "spec", "ports") {
		m, ok := p.(map[string]any)
		if !ok {
			continue
		}
		port, _ := nestedInt(m, "port")
		s := fmt.Sprintf("%d/%s", port, firstNonEmpty(nestedString(m, "protocol"), "TCP"))
		if name := nestedString(m, "name"); name != "" {
			s = name + " " + s
		}
		if target := nested(m, "targetPort"); target != nil {
			s += fmt.Sprintf(" -> %v", target)
		}
		if np, ok := nestedInt(m, "nodePort"); ok {
			s += fmt.Sprintf(" (node port %d)", np)
		}
		out = append(out, s)
	}
	return out
}

// endpoints lists the ready and not-ready addresses behind a Service, from
// its EndpointSlices, as ip:port.
func (c *cluster) endpoints(ctx context.Context, ns, service string) ([]string, error) {
	sliceResource := resource{GVR: discoveryv1.SchemeGroupVersion.WithResource("endpointslices"), Namespaced: true}
	var list discoveryv1.EndpointSliceList
	req := c.rest.Get().AbsPath(apiPath(sliceResource, ns)...).Param("labelSelector", discoveryv1.LabelServiceName+"="+service)
	if err := getJSON(ctx, req, &list); err != nil {
		return nil, err
	}
	var out []string
	for _, s := range list.Items {
		for _, ep := range s.Endpoints {
			ready := ep.Conditions.Ready == nil || *ep.Conditions.Ready
			for _, addr := range ep.Addresses {
				for _, p := range s.Ports {
					a := addr
					if p.Port != nil {
						a = fmt.Sprintf("%s:%d", addr, *p.Port)
					}
					if !ready {
						a += " (not ready)"
					}
					out = append(out, a)
				}
				if len(s.Ports) == 0 {
					out = append(out, addr)
				}
			}
		}
	}
	return out, nil
}
