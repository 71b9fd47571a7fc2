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
// as the bearer token over HTTP. MCP_ELICITATION, when set, declares elicitation, which
// this client never answers: a task that asks its client something then waits.
import { connect, openTransport, sdkLoader, serve, standardOp, write } from "./lineclient.mjs";

const load = sdkLoader("client.mjs");
const { Client } = await load("client/index.js");
const { CallToolResultSchema, CreateTaskResultSchema, TaskStatusNotificationSchema } = await load("types.js");

const transport = await openTransport(load, "client.mjs", process.argv.slice(2), process.env.MCP_TOKEN);
const capabilities = process.env.MCP_ELICITATION ? { elicitation: {} } : {};
const client = new Client({ name: "toolgate-e2e", version: "1.0.0" }, { capabilities });
// Task status notifications are written as {"notice":{method, params}}.
client.setNotificationHandler(TaskStatusNotificationSchema, (n) => write({ notice: n }));
await connect(client, transport);

serve(client, async (cmd, opts) => {
  switch (cmd.op) {
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
      return standardOp(client, CallToolResultSchema, cmd, opts);
  }
});
