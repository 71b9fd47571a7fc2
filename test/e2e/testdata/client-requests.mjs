// The official TypeScript SDK client as an IDE that a backend may ask things:
// it declares sampling, elicitation and roots, answers them, and records every
// request and cancellation the server sends it. Driven by the Go test through
// newline-delimited JSON on stdin/stdout, in the same protocol as client.mjs.
//
//   node client-requests.mjs [FLAGS] http URL
//   node client-requests.mjs [FLAGS] stdio COMMAND ARG...
//
// Flags:
//   --no-capabilities   declare nothing and set no handlers
//   --silent-sampling   take sampling requests and never answer them
//   --decline           decline every elicitation
//   --tag TAG           put TAG in what this client answers (model, text, name, root)
//
// Commands beyond client.mjs's list_tools and call:
//   {"id":4,"op":"set_roots","arguments":{"roots":[{"uri":"file:///x","name":"x"}]}}
//       replaces the roots and sends notifications/roots/list_changed
//   {"id":6,"op":"call_task","name":"call_tool","arguments":{...}}
//       runs a task-augmented call with the SDK's task stream, as client.mjs does
//   {"id":5,"op":"seen"}
//       answers {"protocolVersion":"...","requests":[{"id":..,"method":..,"relatedTask":..}],
//                "cancelled":[{"requestId":..,"reason":..}]}: the version the server
//       chose, and what the server sent this client so far
// The first line is {"ready":true,"pid":N} once the session is initialised.
//
// The SDK is imported from the directory in MCP_SDK_DIR.
import { connect, openTransport, sdkLoader, serve, standardOp } from "./lineclient.mjs";

const load = sdkLoader("client-requests.mjs");
const { Client } = await load("client/index.js");
const { CallToolResultSchema, CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } = await load("types.js");

const args = process.argv.slice(2);
const flags = { capabilities: true, silentSampling: false, decline: false, tag: "ts" };
while (args[0]?.startsWith("--")) {
  const flag = args.shift();
  if (flag === "--no-capabilities") flags.capabilities = false;
  else if (flag === "--silent-sampling") flags.silentSampling = true;
  else if (flag === "--decline") flags.decline = true;
  else if (flag === "--tag") flags.tag = args.shift();
  else {
    console.error(`client-requests.mjs: unknown flag ${flag}`);
    process.exit(2);
  }
}
const transport = await openTransport(load, "client-requests.mjs", args);

// Everything the server sends this client, seen before the SDK handles it:
// Protocol.connect sets onmessage, then starts the transport.
const seen = { protocolVersion: "", requests: [], cancelled: [] };
const start = transport.start.bind(transport);
transport.start = async () => {
  const handle = transport.onmessage;
  transport.onmessage = (msg, extra) => {
    if (msg?.result?.protocolVersion && !seen.protocolVersion) seen.protocolVersion = msg.result.protocolVersion;
    if (msg?.method && msg.id !== undefined) {
      seen.requests.push({ id: msg.id, method: msg.method, relatedTask: msg.params?._meta?.["io.modelcontextprotocol/related-task"]?.taskId });
    }
    if (msg?.method === "notifications/cancelled") seen.cancelled.push(msg.params);
    return handle(msg, extra);
  };
  return start();
};

let roots = [{ uri: `file:///${flags.tag}/project`, name: `${flags.tag} project` }];
const capabilities = flags.capabilities
  ? { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } }
  : {};
const client = new Client({ name: `toolgate-e2e-${flags.tag}`, version: "1.0.0" }, { capabilities });
if (flags.capabilities) {
  client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
    if (flags.silentSampling) return new Promise(() => {});
    const asked = req.params.messages.map((m) => m.content?.text ?? "").join(" ");
    return { model: `${flags.tag}-model`, role: "assistant", content: { type: "text", text: `${flags.tag} sampled <${asked}>` } };
  });
  client.setRequestHandler(ElicitRequestSchema, async () => flags.decline ? { action: "decline" } : {
    action: "accept",
    content: { name: `${flags.tag} Ada Lovelace`, check: true, email: "ada@example.com" },
  });
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots }));
}
await connect(client, transport);

serve(client, async (cmd, opts) => {
  switch (cmd.op) {
    case "set_roots":
      roots = cmd.arguments.roots;
      await client.sendRootsListChanged();
      return {};
    case "seen":
      return seen;
    default:
      return standardOp(client, CallToolResultSchema, cmd, opts);
  }
});
