// Captures the tool catalogs of real MCP servers for the search quality
// evaluation: starts each server over stdio with a client that declares
// roots, sampling and elicitation (some servers list more tools then), takes
// tools/list and writes core/search/testdata/catalogs/<short>.json with the
// npm package, its version and the tools exactly as served.
//
// Run through scripts/capture-catalogs.sh, which installs the pinned servers.
// NODE_MODULES points at that install; OUT at the catalogs directory.
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const modules = process.env.NODE_MODULES;
const out = process.env.OUT;
if (!modules || !out) {
  console.error("capture: NODE_MODULES and OUT must be set");
  process.exit(2);
}
const sdk = (p) => import(pathToFileURL(join(modules, "@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StdioClientTransport } = await sdk("client/stdio.js");
const { ListToolsResultSchema, ToolListChangedNotificationSchema } = await sdk("types.js");

const scratch = mkdtempSync(join(tmpdir(), "capture-catalogs-"));
const kubeconfig = join(scratch, "kubeconfig");
// A kubeconfig naming an unreachable cluster: the server lists its tools
// without talking to it.
writeFileSync(kubeconfig, `apiVersion: v1
kind: Config
clusters: [{name: none, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: none, user: {token: dummy}}]
contexts: [{name: none, context: {cluster: none, user: none}}]
current-context: none
`);
const bin = (name) => join(modules, ".bin", name);

// Servers that want credentials list their tools with dummy values; none of
// them is called, so nothing leaves this machine.
const servers = [
  { short: "everything", pkg: "@modelcontextprotocol/server-everything", command: bin("mcp-server-everything"), args: ["stdio"] },
  { short: "filesystem", pkg: "@modelcontextprotocol/server-filesystem", command: bin("mcp-server-filesystem"), args: [scratch] },
  { short: "memory", pkg: "@modelcontextprotocol/server-memory", command: bin("mcp-server-memory"), env: { MEMORY_FILE_PATH: join(scratch, "memory.jsonl") } },
  { short: "thinking", pkg: "@modelcontextprotocol/server-sequential-thinking", command: bin("mcp-server-sequential-thinking") },
  { short: "github", pkg: "@modelcontextprotocol/server-github", command: bin("mcp-server-github"), env: { GITHUB_PERSONAL_ACCESS_TOKEN: "dummy" } },
  { short: "gitlab", pkg: "@modelcontextprotocol/server-gitlab", command: bin("mcp-server-gitlab"), env: { GITLAB_PERSONAL_ACCESS_TOKEN: "dummy", GITLAB_API_URL: "http://127.0.0.1:1/api/v4" } },
  { short: "git", pkg: "@cyanheads/git-mcp-server", command: bin("git-mcp-server"), env: { MCP_TRANSPORT_TYPE: "stdio", MCP_LOG_LEVEL: "error", GIT_BASE_DIR: scratch } },
  { short: "postgres", pkg: "@modelcontextprotocol/server-postgres", command: bin("mcp-server-postgres"), args: ["postgresql://dummy@127.0.0.1:1/dummy"] },
  { short: "pgsql", pkg: "@henkey/postgres-mcp-server", command: bin("postgres-mcp"), args: ["--connection-string", "postgresql://dummy@127.0.0.1:1/dummy"] },
  { short: "puppeteer", pkg: "@modelcontextprotocol/server-puppeteer", command: bin("mcp-server-puppeteer") },
  { short: "playwright", pkg: "@playwright/mcp", command: bin("playwright-mcp"), args: ["--headless"] },
  { short: "fetch", pkg: "mcp-fetch-server", command: bin("mcp-fetch-server") },
  { short: "kubernetes", pkg: "mcp-server-kubernetes", command: bin("mcp-server-kubernetes"), env: { KUBECONFIG: kubeconfig } },
  { short: "sentry", pkg: "@sentry/mcp-server", command: bin("sentry-mcp"), args: ["--access-token=dummy"] },
  { short: "datadog", pkg: "@winor30/mcp-server-datadog", command: bin("mcp-server-datadog"), env: { DATADOG_API_KEY: "dummy", DATADOG_APP_KEY: "dummy" } },
  { short: "grafana", pkg: "@leval/mcp-grafana", command: bin("mcp-grafana"), env: { GRAFANA_URL: "http://127.0.0.1:1", GRAFANA_API_KEY: "dummy" } },
  { short: "slack", pkg: "@modelcontextprotocol/server-slack", command: bin("mcp-server-slack"), env: { SLACK_BOT_TOKEN: "dummy", SLACK_TEAM_ID: "dummy" } },
  { short: "brave", pkg: "@modelcontextprotocol/server-brave-search", command: bin("mcp-server-brave-search"), env: { BRAVE_API_KEY: "dummy" } },
  { short: "tavily", pkg: "tavily-mcp", command: bin("tavily-mcp"), env: { TAVILY_API_KEY: "dummy" } },
  { short: "cloudflare", pkg: "@cloudflare/mcp-server-cloudflare", command: bin("mcp-server-cloudflare"), args: ["run", "dummy"], env: { CLOUDFLARE_ACCOUNT_ID: "dummy", CLOUDFLARE_API_TOKEN: "dummy" } },
  { short: "maps", pkg: "@modelcontextprotocol/server-google-maps", command: bin("mcp-server-google-maps"), env: { GOOGLE_MAPS_API_KEY: "dummy" } },
];

const only = process.argv.slice(2);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const within = (ms, p, what) =>
  Promise.race([p, sleep(ms).then(() => { throw new Error(`${what}: no answer in ${ms} ms`); })]);

async function capture(s) {
  const client = new Client(
    { name: "toolgate-capture-catalogs", version: "1" },
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
    args: s.args || [],
    env: { ...process.env, ...(s.env || {}) },
    cwd: scratch,
    stderr: "ignore",
  });
  try {
    await within(30000, client.connect(transport), "initialize");
    // Some servers register tools just after initialize; list until the set stops growing.
    let tools = [];
    for (let i = 0; i < 10; i++) {
      const res = await within(30000, client.request({ method: "tools/list", params: {} }, ListToolsResultSchema), "tools/list");
      if (i > 0 && res.tools.length === tools.length) break;
      tools = res.tools;
      await sleep(300);
    }
    return tools;
  } finally {
    await client.close().catch(() => {});
  }
}

const version = (pkg) => JSON.parse(readFileSync(join(modules, pkg, "package.json"), "utf8")).version;

mkdirSync(out, { recursive: true });
let failed = 0;
for (const s of servers) {
  if (only.length && !only.includes(s.short)) continue;
  try {
    const tools = await capture(s);
    if (tools.length === 0) throw new Error("listed no tools");
    tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const doc = { package: s.pkg, version: version(s.pkg), tools };
    writeFileSync(join(out, `${s.short}.json`), JSON.stringify(doc, null, 2) + "\n");
    console.log(`${s.short.padEnd(12)} ${s.pkg}@${doc.version}: ${tools.length} tools`);
  } catch (err) {
    failed++;
    console.error(`${s.short.padEnd(12)} ${s.pkg}: ${err.message}`);
  }
}
process.exit(failed ? 1 : 0);
