// A real MCP client for the end-to-end tests: the official TypeScript SDK,
// connected to toolgate the way an IDE connects, driven by the Go test through
// newline-delimited JSON on stdin/stdout.
//
//   node client.mjs http URL
//   node client.mjs stdio COMMAND ARG...
//
// Commands (one JSON object a line; any number may be in flight at once):
//   {"id":1,"op":"list_tools"}
//   {"id":2,"op":"call","name":"call_tool","arguments":{...},"progress":true,"timeout_ms":5000}
//   {"id":3,"op":"close"}
// MCP tasks (the SDK's experimental tasks API; "name" carries the task id):
//   {"id":4,"op":"call_task","name":"call_tool","arguments":{...}}  runs a task-augmented
//       call to its end as the SDK does (tasks/get polls, then tasks/result) and answers
//       the messages the SDK yielded: [{"type":"taskCreated","task":{...}}, ..., {"type":"result",...}]
//   {"id":5,"op":"create_task","name":"call_tool","arguments":{...}}  answers the CreateTaskResult
//   {"id":6,"op":"get_task"|"task_result"|"cancel_task","name":TASK_ID}   {"id":7,"op":"list_tasks"}
// Answers: {"id":1,"result":{...}} or {"id":1,"error":{"code":-32602,"message":"..."}};
// progress notifications of a call arrive as {"id":2,"progress":{...}} while it runs;
// notifications/tasks/status as {"notice":{"method":...,"params":{...}}}.
// The first line written is {"ready":true,"pid":N} once the session is initialised
// (pid: the server process over stdio, 0 over HTTP).
//
// The SDK is imported from the directory in MCP_SDK_DIR; MCP_TOKEN, when set, is sent
// as the bearer token over HTTP.
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const sdkDir = process.env.MCP_SDK_DIR;
if (!sdkDir) {
  console.error("client.mjs: MCP_SDK_DIR is not set");
  process.exit(2);
}
const load = (p) => import(pathToFileURL(join(sdkDir, "dist/esm", p)).href);
const { Client } = await load("client/index.js");
const { CallToolResultSchema, CreateTaskResultSchema, TaskStatusNotificationSchema } = await load("types.js");

const [mode, ...rest] = process.argv.slice(2);
let transport;
if (mode === "http") {
  const { StreamableHTTPClientTransport } = await load("client/streamableHttp.js");
  const token = process.env.MCP_TOKEN;
  const requestInit = token ? { headers: { Authorization: `Bearer ${token}` } } : undefined;
  transport = new StreamableHTTPClientTransport(new URL(rest[0]), { requestInit });
} else if (mode === "stdio") {
  const { StdioClientTransport } = await load("client/stdio.js");
  transport = new StdioClientTransport({ command: rest[0], args: rest.slice(1), env: process.env, stderr: "inherit" });
} else {
  console.error(`client.mjs: unknown mode ${mode}; want http or stdio`);
  process.exit(2);
}

const write = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");

const client = new Client({ name: "toolgate-e2e", version: "1.0.0" }, { capabilities: {} });
// Task status notifications are written as {"notice":{method, params}}.
client.setNotificationHandler(TaskStatusNotificationSchema, (n) => write({ notice: n }));
try {
  await client.connect(transport);
} catch (err) {
  write({ ready: false, error: String(err?.stack ?? err) });
  process.exit(1);
}
write({ ready: true, pid: transport.pid ?? 0, server: client.getServerVersion() });

async function run(cmd) {
  const opts = {};
  if (cmd.timeout_ms) opts.timeout = cmd.timeout_ms;
  if (cmd.progress) opts.onprogress = (p) => write({ id: cmd.id, progress: p });
  switch (cmd.op) {
    case "list_tools":
      return client.listTools({}, opts);
    case "call":
      return client.callTool({ name: cmd.name, arguments: cmd.arguments ?? {} }, undefined, opts);
    case "call_task": {
      const messages = [];
      const stream = client.experimental.tasks.callToolStream(
        { name: cmd.name, arguments: cmd.arguments ?? {} }, CallToolResultSchema, { ...opts, task: { ttl: 60000 } });
      for await (const m of stream) {
        messages.push(m.type === "error" ? { type: "error", error: { code: m.error?.code ?? 0, message: String(m.error?.message ?? m.error) } } : m);
      }
      return messages;
    }
    case "create_task":
      return client.request(
        { method: "tools/call", params: { name: cmd.name, arguments: cmd.arguments ?? {}, task: { ttl: 60000 } } },
        CreateTaskResultSchema, opts);
    case "get_task":
      return client.experimental.tasks.getTask(cmd.name, opts);
    case "task_result":
      return client.experimental.tasks.getTaskResult(cmd.name, CallToolResultSchema, opts);
    case "list_tasks":
      return client.experimental.tasks.listTasks(undefined, opts);
    case "cancel_task":
      return client.experimental.tasks.cancelTask(cmd.name, opts);
    default:
      throw new Error(`unknown op ${cmd.op}`);
  }
}

let closing = false;
const pending = new Set();
const rl = createInterface({ input: process.stdin });
rl.on("line", (line) => {
  if (!line.trim()) return;
  const cmd = JSON.parse(line);
  if (cmd.op === "close") {
    closing = true;
    rl.close();
    return;
  }
  const p = run(cmd).then(
    (result) => write({ id: cmd.id, result }),
    (err) => write({ id: cmd.id, error: { code: err?.code ?? 0, message: String(err?.message ?? err) } }),
  );
  pending.add(p);
  p.finally(() => pending.delete(p));
});
rl.on("close", async () => {
  // stdin closed: answer what is in flight unless told to close now.
  if (!closing) await Promise.allSettled([...pending]);
  await client.close().catch(() => {});
  process.exit(0);
});
