// What the line-protocol client scripts (client.mjs, client-requests.mjs)
// share: loading the SDK from MCP_SDK_DIR, the transport named on the command
// line, the ready line, the ops every such client answers, and the loop that
// reads commands from stdin and writes answers to stdout. client.mjs's header
// describes the protocol.
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

// write sends one protocol line.
export const write = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");

// sdkLoader returns a function importing a module of the SDK in MCP_SDK_DIR;
// script names the caller in the error when the variable is not set.
export function sdkLoader(script) {
  const sdkDir = process.env.MCP_SDK_DIR;
  if (!sdkDir) {
    console.error(`${script}: MCP_SDK_DIR is not set`);
    process.exit(2);
  }
  return (p) => import(pathToFileURL(join(sdkDir, "dist/esm", p)).href);
}

// openTransport makes the transport of "http URL" or "stdio COMMAND ARG...";
// token, when set, is sent as the bearer token over HTTP.
export async function openTransport(load, script, [mode, ...rest], token) {
  if (mode === "http") {
    const { StreamableHTTPClientTransport } = await load("client/streamableHttp.js");
    const requestInit = token ? { headers: { Authorization: `Bearer ${token}` } } : undefined;
    return new StreamableHTTPClientTransport(new URL(rest[0]), { requestInit });
  }
  if (mode === "stdio") {
    const { StdioClientTransport } = await load("client/stdio.js");
    return new StdioClientTransport({ command: rest[0], args: rest.slice(1), env: process.env, stderr: "inherit" });
  }
  console.error(`${script}: unknown mode ${mode}; want http or stdio`);
  process.exit(2);
}

// connect initialises the session and writes the ready line (pid: the server
// process over stdio, 0 over HTTP), or the error and exits.
export async function connect(client, transport) {
  try {
    await client.connect(transport);
  } catch (err) {
    write({ ready: false, error: String(err?.stack ?? err) });
    process.exit(1);
  }
  write({ ready: true, pid: transport.pid ?? 0, server: client.getServerVersion() });
}

// standardOp answers list_tools, call and call_task, the ops every line
// client has; any other op is an error.
export async function standardOp(client, CallToolResultSchema, cmd, opts) {
  switch (cmd.op) {
    case "list_tools":
      return client.listTools({}, opts);
    case "call":
      return client.callTool({ name: cmd.name, arguments: cmd.arguments ?? {} }, undefined, opts);
    case "call_task": {
      // The SDK's task flow: tasks/get polls, tasks/result once the task ends
      // or waits for input; the answer is every message the stream yielded.
      const messages = [];
      const stream = client.experimental.tasks.callToolStream(
        { name: cmd.name, arguments: cmd.arguments ?? {} }, CallToolResultSchema, { ...opts, task: { ttl: 60000 } });
      for await (const m of stream) {
        messages.push(m.type === "error" ? { type: "error", error: { code: m.error?.code ?? 0, message: String(m.error?.message ?? m.error) } } : m);
      }
      return messages;
    }
    default:
      throw new Error(`unknown op ${cmd.op}`);
  }
}

// serve reads commands from stdin, runs each with run(cmd, opts) as it
// arrives (any number may be in flight), and writes its answer. "close" ends
// the session at once; the end of stdin ends it once every answer is written.
export function serve(client, run) {
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
    const opts = {};
    if (cmd.timeout_ms) opts.timeout = cmd.timeout_ms;
    if (cmd.progress) opts.onprogress = (p) => write({ id: cmd.id, progress: p });
    const p = run(cmd, opts).then(
      (result) => write({ id: cmd.id, result }),
      (err) => write({ id: cmd.id, error: { code: err?.code ?? 0, message: String(err?.message ?? err) } }),
    );
    pending.add(p);
    p.finally(() => pending.delete(p));
  });
  rl.on("close", async () => {
    if (!closing) await Promise.allSettled([...pending]);
    await client.close().catch(() => {});
    process.exit(0);
  });
}
