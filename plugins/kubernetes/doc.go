// Package kubernetes is toolgate's built-in Kubernetes plugin: it lets an
// assistant inspect any kind a cluster serves and, only when the operator
// allows it, change the cluster.
//
// It works generically through discovery and the dynamic client, so custom
// resources are as visible as pods. Which tools exist follows the config:
// under read_only (the default) no write tool is registered at all, and
// delete_resource also needs allow_destructive, so an assistant can never
// reach a verb the operator did not grant — not even by guessing its name.
package kubernetes
