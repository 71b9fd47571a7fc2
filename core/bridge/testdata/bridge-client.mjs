// Drives `toolgate bridge` with the official MCP TypeScript SDK client over
// stdio, as an IDE does, and prints what it saw as one JSON line
// {"result": ...} on stdout. The Go test decides what is right.
//
// Midway it prints {"step":"restart"} and waits for a line on stdin: the test
// then stops the gateway, answers, and starts it again a moment later, so the
// next call goes out while the gateway is down.
//
// Env: SDK_DIR (node_modules holding @modelcontextprotocol/sdk), TOOLGATE
// (the binary), GATEWAY_URL.
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const sdk = (p) => import(pathToFileURL(join(process.env.SDK_DIR, '@modelcontextprotocol/sdk/dist/esm', p)).href);
const { Client } = await sdk('client/index.js');
const { StdioClientTransport, getDefaultEnvironment } = await sdk('client/stdio.js');

const rl = createInterface({ input: process.stdin });
const input = rl[Symbol.asyncIterator]();
async function step(name) {
  console.log(JSON.stringify({ step: name }));
  return (await input.next()).value;
}

const out = { errors: [] };
const transport = new StdioClientTransport({
  command: process.env.TOOLGATE,
  args: ['bridge', '--url', process.env.GATEWAY_URL, '--log-level', 'debug'],
  env: getDefaultEnvironment(),
  stderr: 'inherit',
});
const client = new Client({ name: 'toolgate-bridge-test', version: '1.0.0' });
client.onerror = (e) => out.errors.push(String(e));

let t0 = performance.now();
await client.connect(transport);
out.initMs = performance.now() - t0;
out.server = client.getServerVersion();

out.tools = (await client.listTools()).tools.map((t) => t.name);
const found = await client.callTool({ name: 'filter_tools', arguments: { query: 'count up to a number' } });
out.filter = JSON.parse(found.content[0].text).tools.map((t) => t.name);

const call = (name, args, opts) =>
  client.callTool({ name: 'call_tool', arguments: { name, arguments: args } }, undefined, opts);

// Progress travels back through the bridge before the result.
out.sequence = [];
const counted = await call('x_hello_count', { to: 3, delay_ms: 20 }, { onprogress: (p) => out.sequence.push(p) });
out.sequence.push({ result: counted.content[0].text });

// Cancellation: abort once the call reports that it runs.
const abort = new AbortController();
t0 = performance.now();
try {
  await call('x_hello_count', { to: 100, delay_ms: 100 }, {
    signal: abort.signal,
    onprogress: () => abort.abort('test cancels'),
  });
  out.cancel = 'resolved';
} catch (e) {
  out.cancel = `rejected: ${e.message ?? e}`;
}
out.cancelMs = performance.now() - t0;
out.afterCancel = (await call('x_hello_echo', { text: 'still here' })).content[0].text;

// The gateway restarts; the session behind the bridge is gone.
await step('restart');
t0 = performance.now();
out.afterRestart = (await call('x_hello_greet', { name: 'Ada' })).content[0].text;
out.restartMs = performance.now() - t0;
out.progressAfterRestart = [];
// (delay_ms: the SDK handles notifications a microtask later than
// responses, so a progress read in the same chunk as its result is dropped.)
await call('x_hello_count', { to: 2, delay_ms: 20 }, { onprogress: (p) => out.progressAfterRestart.push(p.progress) });
out.toolsAfterRestart = (await client.listTools()).tools.length;

await client.close();
rl.close();
console.log(JSON.stringify({ result: out }));
