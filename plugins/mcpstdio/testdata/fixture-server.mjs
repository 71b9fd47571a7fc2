// An MCP stdio server built on the official TypeScript SDK, for what the
// reference servers do not do on demand: change its lists while running,
// log during a call, announce resource updates, return audio and annotated
// content, write stray non-JSON lines to stdout, and ask its client for a
// sampling that names the call it belongs to by progress token, or gives up on
// it after a timeout while the call goes on; and answer with the _meta a call
// brought, plainly or as a task.
//
// MCP_SDK_DIR must name the installed @modelcontextprotocol/sdk package.
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const sdk = (p) => import(pathToFileURL(join(process.env.MCP_SDK_DIR, "dist/esm", p)).href);
const { Server } = await sdk("server/index.js");
const { StdioServerTransport } = await sdk("server/stdio.js");
const types = await sdk("types.js");

// A banner on stdout before any JSON-RPC, as careless servers print.
process.stdout.write("fixture server starting (not JSON)\n");

const obj = (props = {}, required = []) => ({ type: "object", properties: props, required });
const tools = [
  { name: "add-tool", description: "Register a tool with the given name.", inputSchema: obj({ name: { type: "string" } }, ["name"]) },
  { name: "add-prompt", description: "Register a prompt with the given name.", inputSchema: obj({ name: { type: "string" } }, ["name"]) },
  { name: "log-and-answer", description: "Send a log message, then answer.", inputSchema: obj({ text: { type: "string" } }) },
  { name: "log-later", description: "Send a log message shortly after answering.", inputSchema: obj() },
  { name: "touch-resource", description: "Announce that a resource changed.", inputSchema: obj({ uri: { type: "string" } }, ["uri"]) },
  { name: "wait-for-cancel", description: "Answer only when cancelled; say so on stderr.", inputSchema: obj() },
  { name: "noise", description: "Print lines that are no JSON-RPC message to stdout, then answer.", inputSchema: obj() },
  { name: "sample", description: "Ask the client to sample, naming the call by its progress token; give up after timeoutMs.",
    inputSchema: obj({ text: { type: "string" }, timeoutMs: { type: "number" }, stay: { type: "boolean" } }) },
  { name: "echo-meta", description: "Answer with the _meta of this call as the server received it.", inputSchema: obj(),
    execution: { taskSupport: "optional" } },
  { name: "rich", description: "Answer with every kind of content.", inputSchema: obj(),
    outputSchema: obj({ ok: { type: "boolean" } }), annotations: { readOnlyHint: true, idempotentHint: true },
    _meta: { "example.com/tool": 1 } },
];
const prompts = [{ name: "hello", description: "Say hello.", arguments: [{ name: "who", required: true }] }];

const server = new Server({ name: "fixture", version: "1.0.0" },
  { capabilities: { tools: { listChanged: true }, prompts: { listChanged: true }, resources: {}, logging: {},
    tasks: { requests: { tools: { call: {} } } } } });
let taskCount = 0;

server.setRequestHandler(types.ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(types.ListPromptsRequestSchema, async () => ({ prompts }));
server.setRequestHandler(types.ListResourcesRequestSchema, async () => ({ resources: [] }));
server.setRequestHandler(types.GetPromptRequestSchema, async (req) => ({
  messages: [{ role: "user", content: { type: "text", text: `hello ${req.params.arguments?.who}` } }],
}));
server.setRequestHandler(types.CallToolRequestSchema, async (req, extra) => {
  const args = req.params.arguments ?? {};
  const text = (t) => ({ content: [{ type: "text", text: t }] });
  switch (req.params.name) {
    case "add-tool":
      tools.push({ name: args.name, description: "Added at run time.", inputSchema: obj() });
      await server.sendToolListChanged();
      return text(`added ${args.name}`);
    case "add-prompt":
      prompts.push({ name: args.name, description: "Added at run time." });
      await server.sendPromptListChanged();
      return text(`added ${args.name}`);
    case "log-and-answer":
      await server.sendLoggingMessage({ level: "warning", logger: "fixture", data: { said: args.text ?? "" } });
      return text(`answered ${args.text ?? ""}`);
    case "log-later":
      setTimeout(() => server.sendLoggingMessage({ level: "info", logger: "fixture", data: "later" }), 200);
      return text("scheduled");
    case "touch-resource":
      await server.sendResourceUpdated({ uri: args.uri });
      return text("touched");
    case "wait-for-cancel":
      await new Promise((resolve) => extra.signal.addEventListener("abort", resolve));
      process.stderr.write(`cancelled request ${extra.requestId}: ${extra.signal.reason}\n`);
      return text("too late");
    case "sample": {
      const token = req.params._meta?.progressToken;
      const params = { messages: [{ role: "user", content: { type: "text", text: args.text ?? "" } }], maxTokens: 5 };
      if (token !== undefined) params._meta = { progressToken: token };
      try {
        const res = await extra.sendRequest({ method: "sampling/createMessage", params }, types.CreateMessageResultSchema,
          { timeout: args.timeoutMs ?? 60000 });
        return text(`sampled: ${res.content.text}`);
      } catch (err) {
        // With stay, the call goes on after giving up, until it is cancelled.
        if (args.stay) await new Promise((resolve) => extra.signal.addEventListener("abort", resolve));
        throw err;
      }
    }
    case "echo-meta":
      if (req.params.task) {
        // Run as a task, which says the _meta in its status message.
        const now = new Date().toISOString();
        return { task: { taskId: `echo-${++taskCount}`, status: "completed", statusMessage: JSON.stringify(req.params._meta ?? null),
          createdAt: now, lastUpdatedAt: now, ttl: 60000 } };
      }
      return { content: [{ type: "text", text: JSON.stringify(req.params._meta ?? null) }], structuredContent: { meta: req.params._meta ?? null } };
    case "noise":
      process.stdout.write("debug: this line is not JSON\n");
      // JSON, but no JSON-RPC message either.
      process.stdout.write("42\n[\"debug\", 2]\n");
      return text("quiet again");
    case "rich":
      return {
        content: [
          { type: "text", text: "plain", annotations: { audience: ["user"], priority: 0.5 }, _meta: { "example.com/block": "t" } },
          { type: "audio", data: Buffer.from("RIFF-not-really-wav").toString("base64"), mimeType: "audio/wav" },
          { type: "resource", resource: { uri: "fixture://text", mimeType: "text/plain", text: "embedded text", _meta: { "example.com/res": true } } },
          { type: "resource", resource: { uri: "fixture://empty", mimeType: "application/octet-stream", blob: "" } },
          { type: "resource_link", uri: "fixture://linked", name: "linked", title: "Linked", description: "a link", mimeType: "text/markdown", size: 42,
            annotations: { priority: 1 } },
        ],
        structuredContent: { ok: true },
        _meta: { "example.com/result": "r" },
      };
  }
  return { isError: true, content: [{ type: "text", text: `unknown tool ${req.params.name}` }] };
});

await server.connect(new StdioServerTransport());
