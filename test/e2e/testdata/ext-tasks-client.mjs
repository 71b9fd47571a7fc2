// Drives a gateway with the requester of @modelcontextprotocol/ext-tasks,
// the package of the MCP tasks extension, over protocol 2026-07-28: its
// session decides from each result whether a call became a task, polls
// tasks/get, answers the task's inputRequests with tasks/update and cancels
// with tasks/cancel. Only the transport is written here: a port that sends
// each JSON-RPC request as one HTTP POST, framed as 2026-07-28 asks.
//
// Usage: node ext-tasks-client.mjs URL TOKEN TOOL ARGS_JSON MODE
//   MODE settle: call TOOL and settle it, answering an elicitation with the
//                second option offered; cancel: call, then cancel the task
//                it became; snapshot ID: tasks/get of task ID through the
//                session; raw METHOD PARAMS_JSON: one request as is, with
//                every message of its event stream.
// Prints one JSON object on stdout: what the session saw.
import path from "node:path";
import { pathToFileURL } from "node:url";

// The package exports ESM only; its client entry point, as "exports" maps it.
const pkg = path.join(process.env.NODE_PARTS, "node_modules", "@modelcontextprotocol", "ext-tasks");
const { withTasks } = await import(pathToFileURL(path.join(pkg, "dist", "client", "index.js")).href);

const [url, token, tool, argsJSON, mode, ...rest] = process.argv.slice(2);
const version = "2026-07-28";
const capabilities = { elicitation: { form: {} }, extensions: { "io.modelcontextprotocol/tasks": {} } };
const wire = []; // every method sent and what came back, for the test to check
const streamed = []; // every message of the event streams of the answers

let nextID = 1;
async function send(request, options) {
  const msg = { jsonrpc: "2.0", ...request, id: request.id ?? nextID++ };
  const params = { ...(msg.params ?? {}) };
  params._meta = {
    ...(params._meta ?? {}),
    "io.modelcontextprotocol/protocolVersion": version,
    "io.modelcontextprotocol/clientInfo": { name: "ext-tasks-e2e", version: "1.0.0" },
    "io.modelcontextprotocol/clientCapabilities": capabilities,
  };
  msg.params = params;
  const headers = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    Authorization: `Bearer ${token}`,
    "MCP-Protocol-Version": version,
    "Mcp-Method": msg.method,
    ...(options?.context?.headers ?? {}),
  };
  const name = params.name ?? params.taskId;
  if (name !== undefined) headers["Mcp-Name"] = name;
  const resp = await fetch(url, { method: "POST", headers, body: JSON.stringify(msg), signal: options?.signal });
  const text = await resp.text();
  let answer;
  if ((resp.headers.get("content-type") ?? "").includes("text/event-stream")) {
    for (const line of text.split("\n")) {
      if (!line.startsWith("data:")) continue;
      const m = JSON.parse(line.slice(5));
      streamed.push(m);
      if (m.id === msg.id && ("result" in m || "error" in m)) answer = m;
    }
  } else {
    answer = JSON.parse(text);
  }
  if (answer === undefined) throw new Error(`${msg.method}: no answer in ${text}`);
  wire.push({ method: msg.method, status: resp.status, answer: answer.result ?? answer.error });
  return "error" in answer ? { kind: "error", error: answer.error } : { kind: "result", result: answer.result };
}

const port = {
  endpointId: `toolgate-e2e:${url}:${token}`,
  taskCapabilities: { generation: "v2", capabilities: {} },
  dispatch: send,
  onServerRequest: () => () => {},
  onNotification: () => () => {},
  onInvalidated: () => () => {},
  invalidated: false,
};

const asked = [];
const session = mode === "raw" ? undefined : withTasks(port, {
  onInputRequest: async (request, context) => {
    asked.push({ kind: request.kind, scope: context.scope, delivery: context.delivery, taskId: context.taskId, params: request.params });
    if (request.kind !== "elicitation") throw new Error(`unexpected ${request.kind} request`);
    const [field, schema] = Object.entries(request.params.requestedSchema?.properties ?? {})[0] ?? [];
    const options = schema?.oneOf ?? [];
    return { action: "accept", content: field ? { [field]: options[1]?.const ?? "yes" } : {} };
  },
});

const out = { wire, asked };
try {
  if (mode === "raw") {
    const [method, paramsJSON] = rest;
    out.response = await send({ jsonrpc: "2.0", method, params: JSON.parse(paramsJSON) });
    out.streamed = streamed;
  } else if (mode === "snapshot") {
    const view = await session.task(rest[0]).snapshot();
    out.snapshot = { taskId: view.taskId, status: view.status };
  } else {
    const execution = await session.callTool("call_tool", { name: tool, arguments: JSON.parse(argsJSON) });
    out.kind = execution.kind;
    out.taskId = execution.handle?.taskId;
    if (mode === "cancel") {
      await execution.cancel();
      const { outcome } = await execution.settle();
      out.outcome = { status: outcome.status };
    } else {
      const statuses = [];
      const { outcome } = await execution.settle({
        onEvent: (event) => {
          if (event.type === "task") statuses.push(event.task.status);
        },
      });
      out.statuses = statuses;
      out.outcome = { status: outcome.status, result: outcome.result, error: outcome.error?.message };
    }
  }
} catch (err) {
  out.error = String(err?.stack ?? err);
} finally {
  await session?.close();
}
process.stdout.write(JSON.stringify(out) + "\n");
