// Drives `toolgate bridge` with the official MCP TypeScript SDK client over
// stdio, as an IDE does, at a URL where no gateway runs, and prints what it
// saw as one JSON line {"result": ...} on stdout. The Go test decides what is
// right.
//
// First the IDE connects while nothing listens at the URL. Then it prints
// {"step":"start"} and connects again through a new bridge: the test starts
// the gateway once that bridge says it waits for one, as when a gateway and
// an IDE start at the same moment.
//
// Env: SDK_DIR (node_modules holding @modelcontextprotocol/sdk), TOOLGATE
// (the binary), GATEWAY_URL.
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const sdk = (p) => import(pathToFileURL(join(process.env.SDK_DIR, '@modelcontextprotocol/sdk/dist/esm', p)).href);
const { Client } = await sdk('client/index.js');
const { StdioClientTransport, getDefaultEnvironment } = await sdk('client/stdio.js');

const bridge = () => new StdioClientTransport({
  command: process.env.TOOLGATE,
  args: ['bridge', '--url', process.env.GATEWAY_URL],
  env: getDefaultEnvironment(),
  stderr: 'inherit',
});
const out = {};

let client = new Client({ name: 'toolgate-no-gateway-test', version: '1.0.0' });
try {
  await client.connect(bridge());
  out.refused = 'connected';
} catch (e) {
  out.refused = String(e.message ?? e);
}
await client.close();

console.log(JSON.stringify({ step: 'start' }));
client = new Client({ name: 'toolgate-no-gateway-test', version: '1.0.0' });
try {
  await client.connect(bridge());
  out.late = (await client.listTools()).tools.length;
} catch (e) {
  out.late = String(e.message ?? e);
}
await client.close();
console.log(JSON.stringify({ result: out }));
