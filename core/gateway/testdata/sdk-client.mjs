// Drives a toolgate gateway with the official MCP TypeScript SDK client, as an
// IDE would, and prints what it received as one JSON object on stdout. The Go
// test decides what is right; this script only records.
//
// Env: SDK_DIR  node_modules directory holding @modelcontextprotocol/sdk
//      MCP_URL  streamable HTTP endpoint, or
//      MCP_CMD  command of a stdio server (MCP_ENV: JSON object of extra env)
//      MCP_TOKEN optional bearer token
//      MCP_ASKS  arguments of the "ask" tool: requests the gateway sends this
//                client, which answers sampling, elicitation and roots
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const sdk = (p) => import(pathToFileURL(join(process.env.SDK_DIR, '@modelcontextprotocol/sdk/dist/esm', p)).href);
const { Client } = await sdk('client/index.js');
const {
  ResourceUpdatedNotificationSchema, LoggingMessageNotificationSchema,
  CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema,
} = await sdk('types.js');

let transport;
if (process.env.MCP_URL) {
  const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');
  const headers = process.env.MCP_TOKEN ? { Authorization: `Bearer ${process.env.MCP_TOKEN}` } : {};
  transport = new StreamableHTTPClientTransport(new URL(process.env.MCP_URL), { requestInit: { headers } });
} else {
  const { StdioClientTransport, getDefaultEnvironment } = await sdk('client/stdio.js');
  transport = new StdioClientTransport({
    command: process.env.MCP_CMD,
    env: { ...getDefaultEnvironment(), ...JSON.parse(process.env.MCP_ENV || '{}') },
    stderr: 'inherit',
  });
}

const out = {};
const client = new Client({ name: 'toolgate-gateway-test', version: '1.0.0' }, {
  capabilities: { sampling: { tools: {} }, elicitation: { form: {}, url: {} }, roots: { listChanged: true } },
});
client.setRequestHandler(CreateMessageRequestSchema, async (req) => ({
  model: 'ts-model', role: 'assistant',
  content: { type: 'text', text: `ts sampled: ${req.params.systemPrompt}${req.params.tools ? ` with tool ${req.params.tools[0].name}` : ''}` },
}));
client.setRequestHandler(ElicitRequestSchema, async (req) =>
  req.params.mode === 'url' ? { action: 'accept' } : { action: 'accept', content: { name: 'Grace' } });
client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///ts/project', name: 'project' }] }));
const errors = [];
client.onerror = (e) => errors.push(String(e));
await client.connect(transport);
out.server = client.getServerVersion();

out.tools = (await client.listTools()).tools;
out.kinds = await client.callTool({ name: 'kinds', arguments: {} });
out.unknown = await client.callTool({ name: 'x_everything_echo', arguments: {} });
out.fail = await client.callTool({ name: 'fail', arguments: {} });
if (process.env.MCP_ASKS) {
  out.asked = await client.callTool({ name: 'ask', arguments: JSON.parse(process.env.MCP_ASKS) });
}

// Progress: the order in which progress and the result reach the client.
out.sequence = [];
const steps = await client.callTool({ name: 'steps', arguments: { n: 5 } }, undefined, {
  onprogress: (p) => out.sequence.push(p),
});
out.sequence.push({ result: steps.content[0].text });

// Cancellation: abort once the tool has reported that it is running.
const abort = new AbortController();
try {
  await client.callTool({ name: 'block', arguments: {} }, undefined, {
    signal: abort.signal,
    onprogress: () => abort.abort('test cancels'),
  });
  out.cancel = 'resolved';
} catch (e) {
  out.cancel = `rejected: ${e.message ?? e}`;
}

// Resources, subscription, and notifications the server sends on its own.
out.resources = (await client.listResources()).resources;
out.read = await client.readResource({ uri: 'toolgate://catalog' });
const updated = new Promise((resolve) =>
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => resolve(n.params)));
const logged = new Promise((resolve) =>
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    if (n.params.level === 'warning') resolve(n.params);
  }));
await client.subscribeResource({ uri: 'toolgate://catalog' });
// Log broadcasts go only to sessions that asked for them.
await client.setLoggingLevel('info');
await client.callTool({ name: 'trigger', arguments: {} });
// unref: a pending timer must not keep node running once everything arrived.
const timeout = (what) => new Promise((_, reject) => setTimeout(() => reject(new Error(`no ${what} within 5s`)), 5000).unref());
out.updated = await Promise.race([updated, timeout('resources/updated')]);
out.logged = await Promise.race([logged, timeout('notifications/message')]);

await client.close();
out.errors = errors;
process.stdout.write(JSON.stringify(out) + '\n');
