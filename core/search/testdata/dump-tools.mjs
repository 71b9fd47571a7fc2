// Regenerates tools/*.json, the tool lists of real MCP servers that the
// quality test ranks against. Run from anywhere:
//
//   node core/search/testdata/dump-tools.mjs
//
// NODE_MODULES points at the installed servers and SDK
// (default ~/.cache/toolgate-test/node-v1/node_modules).
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir, homedir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const modules =
  process.env.NODE_MODULES ||
  join(homedir(), ".cache/toolgate-test/node-v1/node_modules");
const sdk = (p) => import(pathToFileURL(join(modules, "@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StdioClientTransport } = await sdk("client/stdio.js");
const { ListToolsResultSchema, ToolListChangedNotificationSchema } = await sdk("types.js");

const here = dirname(fileURLToPath(import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "dump-tools-"));
const bin = (name) => join(modules, ".bin", name);

// The plugin names are the ones the quality queries use in tool IDs.
const servers = [
  { plugin: "everything", command: bin("mcp-server-everything"), args: ["stdio"] },
  { plugin: "filesystem", command: bin("mcp-server-filesystem"), args: [scratch] },
  { plugin: "memory", command: bin("mcp-server-memory"), args: [], env: { MEMORY_FILE_PATH: join(scratch, "memory.jsonl") } },
  { plugin: "thinking", command: bin("mcp-server-sequential-thinking"), args: [] },
];

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

for (const s of servers) {
  // server-everything offers some tools only to clients that declare roots,
  // sampling, form and URL elicitation, and task-based sampling/elicitation.
  const client = new Client(
    { name: "toolgate-dump-tools", version: "1" },
    {
      capabilities: {
        roots: { listChanged: true },
        sampling: {},
        elicitation: { form: {}, url: {} },
        tasks: { requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } },
      },
    },
  );
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {});
  const transport = new StdioClientTransport({
    command: s.command,
    args: s.args,
    env: { ...process.env, ...(s.env || {}) },
    stderr: "ignore",
  });
  await client.connect(transport);
  // Some servers register tools just after initialize; list until the set stops growing.
  let tools = [];
  for (let i = 0; i < 10; i++) {
    const res = await client.request({ method: "tools/list", params: {} }, ListToolsResultSchema);
    if (i > 0 && res.tools.length === tools.length) break;
    tools = res.tools;
    await sleep(300);
  }
  const out = tools
    .map((t) => ({ name: t.name, description: t.description || "", inputSchema: t.inputSchema }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  writeFileSync(join(here, "tools", `${s.plugin}.json`), JSON.stringify(out, null, 2) + "\n");
  console.log(`${s.plugin}: ${out.length} tools`);
  await client.close();
}
