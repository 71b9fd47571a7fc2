package metatools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// Tasks runs call_tool's calls as MCP tasks in the plugins that own the
// tools: a long call answers its client at once, which then asks for the
// outcome by task id. It is the gateway's task runner; the gateway names
// the plugin in the id it gives the client and routes later requests back
// here by it.
type Tasks struct{ h *Handlers }

// Tasks returns the task runner of call_tool.
func (h *Handlers) Tasks() Tasks { return Tasks{h: h} }

// StartTask checks call_tool's arguments as a call would, then asks the
// tool's plugin to run the call as a task. Core tools do not run as tasks.
// client says what the task's client answers (nil: nothing). The Observer
// hears of it as of a call, which ends when the task is made.
func (t Tasks) StartTask(ctx context.Context, raw json.RawMessage, ttlMs *int64, client *protov1.PeerCapabilities) (plugin string, task protov1.Task, err error) {
	_, err = t.h.observe(ctx, raw, nil, func(ctx context.Context, raw json.RawMessage, _ protov1.CallEvents, rec *CallRecord) (*protov1.Result, error) {
		var err error
		plugin, task, err = t.start(ctx, raw, ttlMs, client, rec)
		if err != nil {
			return nil, err
		}
		return &protov1.Result{Content: []protov1.Content{{Kind: protov1.KindText, Text: fmt.Sprintf("task %q of plugin %q created", task.ID, plugin)}}}, nil
	})
	return plugin, task, err
}

func (t Tasks) start(ctx context.Context, raw json.RawMessage, ttlMs *int64, client *protov1.PeerCapabilities, rec *CallRecord) (string, protov1.Task, error) {
	var in callArgs
	if err := decode("call_tool", raw, &in); err != nil {
		return "", protov1.Task{}, protov1.InvalidArgumentf("%v", err)
	}
	rec.Name, rec.ArgumentBytes = in.Name, len(in.Arguments)
	if in.Name == "" {
		return "", protov1.Task{}, protov1.InvalidArgumentf("call_tool: argument \"name\" is required (the tool to run as a task)")
	}
	if a := strings.TrimSpace(string(in.Arguments)); a != "" && a != "null" && a[0] != '{' {
		return "", protov1.Task{}, protov1.InvalidArgumentf("call_tool: argument \"arguments\" must be an object of the tool's arguments")
	}
	if _, ok := t.h.core[in.Name]; ok {
		return "", protov1.Task{}, fmt.Errorf("%s is a core tool and does not run as a task; call it without \"task\": %w", in.Name, protov1.ErrNoTask)
	}
	tool, ok := t.h.Catalog.Tool(in.Name)
	if !ok {
		return "", protov1.Task{}, protov1.InvalidArgumentf("%s", t.h.unknownTool(in.Name).Content[0].Text)
	}
	rec.Tool, rec.Plugin = tool.ID, tool.Plugin
	if err := tool.ValidateArguments(in.Arguments); err != nil {
		return "", protov1.Task{}, protov1.InvalidArgumentf("%v\nexpected arguments (input schema of %s): %s", err, tool.ID, compact(tool.Def.InputSchema))
	}
	sup, ok := t.h.Plugins.Get(tool.Plugin)
	if !ok {
		return "", protov1.Task{}, protov1.InvalidArgumentf("tool %s belongs to plugin %q, which is not configured", tool.ID, tool.Plugin)
	}
	args := in.Arguments
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	// A task is not asked about (permit refuses it at once), so no wait is
	// set up for an answer.
	if refused, outcome := t.h.permit(ctx, tool, args, true); refused != nil {
		rec.Outcome = outcome
		return "", protov1.Task{}, protov1.InvalidArgumentf("%s", refused.Content[0].Text)
	}
	var task protov1.Task
	err := sup.Tasks(ctx, func(r protov1.TaskRunner) error {
		var err error
		task, err = r.CreateTask(ctx, &protov1.CallRequest{Name: tool.Def.Name, Arguments: args, TaskClient: client}, ttlMs)
		return err
	})
	return tool.Plugin, task, err
}

// GetTask asks plugin for the state of its task id.
func (t Tasks) GetTask(ctx context.Context, plugin, id string) (task protov1.Task, err error) {
	err = t.run(ctx, plugin, func(r protov1.TaskRunner) (err error) {
		task, err = r.GetTask(ctx, id)
		return err
	})
	return task, err
}

// TaskResult waits for plugin's task id to end and answers its result.
func (t Tasks) TaskResult(ctx context.Context, plugin, id string) (res *protov1.Result, err error) {
	err = t.run(ctx, plugin, func(r protov1.TaskRunner) (err error) {
		res, err = r.TaskResult(ctx, id)
		return err
	})
	return res, err
}

// CancelTask asks plugin to cancel its task id.
func (t Tasks) CancelTask(ctx context.Context, plugin, id string) (task protov1.Task, err error) {
	err = t.run(ctx, plugin, func(r protov1.TaskRunner) (err error) {
		task, err = r.CancelTask(ctx, id)
		return err
	})
	return task, err
}

// AnswerTaskInput hands plugin the client's answer to what its task id
// asked under key.
func (t Tasks) AnswerTaskInput(ctx context.Context, plugin, id, key string, result json.RawMessage, perr *protov1.PeerError) error {
	return t.run(ctx, plugin, func(r protov1.TaskRunner) error {
		a, ok := r.(protov1.TaskInputAnswerer)
		if !ok {
			return protov1.InvalidArgumentf("plugin %q takes no answers for its tasks", plugin)
		}
		return a.AnswerTaskInput(ctx, id, key, result, perr)
	})
}

func (t Tasks) run(ctx context.Context, plugin string, f func(protov1.TaskRunner) error) error {
	sup, ok := t.h.Plugins.Get(plugin)
	if !ok {
		return protov1.NotFoundf("plugin %q is no longer configured", plugin)
	}
	return sup.Tasks(ctx, f)
}
