package kubernetes

import (
	"context"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/sdk/plugin"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// kube is one configured plugin: the cluster it talks to and what the
// operator allows. Tool handlers are its methods.
type kube struct {
	c        *cluster
	s        settings
	contexts []contextInfo
	logger   hclog.Logger
	now      func() time.Time
	// contextName is the kubeconfig context c talks to; clusters holds one
	// cluster per context of allowedContexts, for the per-call context.
	contextName     string
	allowedContexts []string
	clusters        map[string]*cluster
}

// call bounds one tool call by the configured request timeout.
func (k *kube) call(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, k.s.timeout)
}

// inContext makes h a tool handler: each call is bounded by the request
// timeout and runs on the plugin as it works in the kubeconfig context the
// call names, or is refused when the operator did not allow that context.
func inContext[A interface{ contextName() string }](k *kube, h func(*kube, context.Context, A) (*plugin.Result, error)) func(context.Context, *plugin.Call, A) (*plugin.Result, error) {
	return func(ctx context.Context, call *plugin.Call, in A) (*plugin.Result, error) {
		ctx, cancel := k.call(ctx)
		defer cancel()
		on, refused := k.on(in.contextName())
		if refused != nil {
			return refused, nil
		}
		// A namespace outside allowed_namespaces is refused before the kind
		// is looked up: the answer must not wait on, or depend on, a server
		// that is slow or down.
		if n, ok := any(in).(namespacedArgs); ok {
			if err := on.s.limits.checkNamed(call.Name, n.namespaceArg()); err != nil {
				return plugin.Errorf("%v", err), nil
			}
		}
		return h(on, ctx, in)
	}
}

// namespacedArgs are the arguments of a tool that takes a namespace.
type namespacedArgs interface{ namespaceArg() string }

func readTool() plugin.ToolOption {
	return plugin.Labels(map[string]string{"category": "kubernetes", "access": "read"})
}

func writeTool() plugin.ToolOption {
	return plugin.Labels(map[string]string{"category": "kubernetes", "access": "write"})
}

// nonDestructive marks a write that replaces nothing the caller did not name
// and loses no data.
func nonDestructive() plugin.ToolOption {
	return func(t *protov1.Tool) {
		f := false
		t.Annotations.ReadOnly, t.Annotations.Destructive = &f, &f
	}
}

// toolsFor is the tool set the settings allow. Tools the operator did not
// allow are left out entirely rather than refused at call time, so they are
// neither listed nor searchable nor callable.
func toolsFor(k *kube) []plugin.Tool {
	tools := []plugin.Tool{
		plugin.NewTool("list_contexts",
			"List the kubeconfig contexts (cluster, API server URL, user, default namespace) and which one this plugin uses. Like `kubectl config get-contexts`.",
			k.listContexts, plugin.Title("List Kubernetes contexts"), plugin.ReadOnly(), plugin.Idempotent(), readTool()),
		plugin.NewTool("list_namespaces",
			"List the namespaces of the Kubernetes cluster with their status and age. Like `kubectl get namespaces`.",
			inContext(k, (*kube).listNamespaces), plugin.Title("List namespaces"), plugin.ReadOnly(), plugin.Idempotent(), readTool()),
		plugin.NewTool("list_api_resources",
			"List every resource kind the cluster serves — built-in kinds and custom resources (CRDs) — with API group/version, short names, whether it is namespaced, and its verbs. Like `kubectl api-resources`. Use it to find the kind name other tools take.",
			inContext(k, (*kube).listAPIResources), plugin.Title("List API resource kinds"), plugin.ReadOnly(), plugin.Idempotent(), readTool()),
		plugin.NewTool("list_resources",
			"List Kubernetes objects of one kind — pods, deployments, services, configmaps, nodes, custom resources — in a namespace or across all namespaces, with label and field selectors and paging. Like `kubectl get pods` or `kubectl get deployments -n NAMESPACE -l app=web`: a table plus the objects.",
			inContext(k, (*kube).listResources), plugin.Title("List objects of a kind"), plugin.ReadOnly(), plugin.Idempotent(), readTool()),
		plugin.NewTool("get_resource",
			"Get one Kubernetes object (any kind, including custom resources) as YAML or JSON, with managedFields and other noise removed. Like `kubectl get deployment web -o yaml`.",
			inContext(k, (*kube).getResource), plugin.Title("Get one object"), plugin.ReadOnly(), plugin.Idempotent(), readTool()),
		plugin.NewTool("describe_resource",
			"Describe one Kubernetes object in a short summary: status, replicas, conditions, containers, owner, and its recent events. Like `kubectl describe`. Use it to find out why a pod or deployment is not healthy.",
			inContext(k, (*kube).describeResource), plugin.Title("Describe an object"), plugin.ReadOnly(), plugin.Idempotent(), readTool()),
		plugin.NewTool("list_events",
			"List recent cluster events (newest last), optionally only those of one object, one namespace, or only Warning events. Like `kubectl get events`. Shows why pods fail to schedule, pull images or start.",
			inContext(k, (*kube).listEvents), plugin.Title("List events"), plugin.ReadOnly(), plugin.Idempotent(), readTool()),
		plugin.NewTool("get_pod_logs",
			"Read the logs of a container in a pod, like `kubectl logs`: the newest lines, those since a duration, or the previous (crashed) container's. Says clearly when the cluster cannot serve them.",
			inContext(k, (*kube).podLogs), plugin.Title("Read pod logs"), plugin.ReadOnly(), plugin.Idempotent(), readTool()),
		plugin.NewTool("rollout_status",
			"Show whether a deployment, statefulset or daemonset has finished rolling out: updated, available and old replicas, a paused rollout, or a rollout past its progress deadline. Like `kubectl rollout status` (without waiting).",
			inContext(k, (*kube).rolloutStatus), plugin.Title("Rollout status"), plugin.ReadOnly(), plugin.Idempotent(), readTool()),
		plugin.NewTool("rollout_history",
			"List the revisions of a deployment, statefulset or daemonset with their change cause, images and age, and which is current. Like `kubectl rollout history`. Use it to pick the revision rollout_undo goes back to.",
			inContext(k, (*kube).rolloutHistory), plugin.Title("Rollout history"), plugin.ReadOnly(), plugin.Idempotent(), readTool()),
		plugin.NewTool("top",
			"Show the CPU and memory use of pods or nodes from the metrics API (metrics.k8s.io, served by metrics-server), highest first when sorted. Like `kubectl top pods`. Says clearly when the cluster does not serve it.",
			inContext(k, (*kube).top), plugin.Title("CPU and memory use"), plugin.ReadOnly(), plugin.Idempotent(), readTool()),
		plugin.NewTool("explain",
			"Explain a kind or one of its fields from the server's own OpenAPI schema: type, description, and the fields below it, required ones marked. Like `kubectl explain deployment.spec.strategy`. Use it before writing a patch or manifest.",
			inContext(k, (*kube).explain), plugin.Title("Explain a kind's fields"), plugin.ReadOnly(), plugin.Idempotent(), readTool()),
	}
	if k.s.readOnly {
		return tools
	}
	tools = append(tools,
		plugin.NewTool("apply_manifest",
			"Create or update Kubernetes objects from a YAML or JSON manifest (one or several documents) with server-side apply. Like `kubectl apply --server-side -f`. Supports dry_run.",
			inContext(k, (*kube).apply), plugin.Title("Apply a manifest"), plugin.Destructive(), plugin.Idempotent(), writeTool()),
		plugin.NewTool("patch_resource",
			"Change fields of one Kubernetes object — labels, annotations, image, env, resources, any spec field — with a merge, JSON or strategic merge patch. Like `kubectl patch` or `kubectl label`. Supports dry_run.",
			inContext(k, (*kube).patch), plugin.Title("Patch an object"), plugin.Destructive(), writeTool()),
		plugin.NewTool("scale_resource",
			"Set the replica count of a deployment, statefulset, replicaset or any kind with a scale subresource. Like `kubectl scale --replicas=N`.",
			inContext(k, (*kube).scale), plugin.Title("Scale a workload"), plugin.Destructive(), plugin.Idempotent(), writeTool()),
		plugin.NewTool("rollout_restart",
			"Restart a workload (deployment, statefulset or daemonset): its pods are replaced one by one with a rolling update, as `kubectl rollout restart` does.",
			inContext(k, (*kube).rolloutRestart), plugin.Title("Restart a workload"), nonDestructive(), writeTool()),
		plugin.NewTool("rollout_undo",
			"Roll a deployment, statefulset or daemonset back to an earlier revision (default the previous one) after a bad rollout. Like `kubectl rollout undo --to-revision=N`. Supports dry_run.",
			inContext(k, (*kube).rolloutUndo), plugin.Title("Roll back a workload"), plugin.Destructive(), writeTool()),
		plugin.NewTool("rollout_pause",
			"Pause the rollout of a deployment: changes to its pod template wait until rollout_resume. Like `kubectl rollout pause`.",
			inContext(k, (*kube).rolloutPause), plugin.Title("Pause a rollout"), nonDestructive(), plugin.Idempotent(), writeTool()),
		plugin.NewTool("rollout_resume",
			"Resume a paused deployment rollout, so pending pod template changes roll out. Like `kubectl rollout resume`.",
			inContext(k, (*kube).rolloutResume), plugin.Title("Resume a rollout"), nonDestructive(), plugin.Idempotent(), writeTool()),
	)
	if k.s.allowDestructive {
		tools = append(tools, plugin.NewTool("delete_resource",
			"Delete (remove) one Kubernetes object of any kind from the cluster: a pod, service, deployment, namespace or custom resource. Like `kubectl delete`. Supports dry_run and the propagation policy for dependents.",
			inContext(k, (*kube).deleteResource), plugin.Title("Delete an object"), plugin.Destructive(), plugin.Idempotent(), writeTool()))
	}
	return tools
}
