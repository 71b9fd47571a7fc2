// The official TypeScript SDK client using a gateway's native prompts,
// resources and completions the way an IDE does: slash commands from
// prompts/list, arguments completed while typed, resources attached and
// watched. It prints one JSON object of what it saw.
//
//   node native-client.mjs URL
//
// The SDK is imported from the directory in MCP_SDK_DIR. A step that fails
// records its error under "errors" and the run goes on.
import { sdkLoader } from "./lineclient.mjs";

const load = sdkLoader("native-client.mjs");
const { Client } = await load("client/index.js");
const { StreamableHTTPClientTransport } = await load("client/streamableHttp.js");
const { ResourceUpdatedNotificationSchema } = await load("types.js");

const client = new Client({ name: "toolgate-native", version: "1.0.0" }, { capabilities: {} });
await client.connect(new StreamableHTTPClientTransport(new URL(process.argv[2])));

const out = { capabilities: client.getServerCapabilities(), errors: [] };
const step = async (name, f) => {
  try {
    out[name] = await f();
  } catch (err) {
    out.errors.push(`${name}: ${err?.message ?? err}`);
  }
};

const updated = [];
client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updated.push(n.params.uri));

const prefix = "x_everything_";
await step("prompts", async () => {
  const names = [];
  let cursor;
  do {
    const page = await client.listPrompts(cursor ? { cursor } : {});
    names.push(...page.prompts.filter((p) => p.name.startsWith(prefix)).map((p) => ({ name: p.name, arguments: (p.arguments ?? []).map((a) => a.name) })));
    cursor = page.nextCursor;
  } while (cursor);
  return names;
});
await step("rendered", async () =>
  client.getPrompt({ name: prefix + "args-prompt", arguments: { city: "Lisbon", state: "Lisboa" } }));
await step("missingArgument", async () => {
  try {
    await client.getPrompt({ name: prefix + "args-prompt", arguments: {} });
    return "no error";
  } catch (err) {
    return err.message;
  }
});
await step("departments", async () =>
  (await client.complete({ ref: { type: "ref/prompt", name: prefix + "completable-prompt" }, argument: { name: "department", value: "E" } })).completion);
await step("names", async () =>
  (await client.complete({
    ref: { type: "ref/prompt", name: prefix + "completable-prompt" },
    argument: { name: "name", value: "" },
    context: { arguments: { department: "Sales" } },
  })).completion);
await step("resources", async () => (await client.listResources()).resources.map((r) => r.uri));
await step("templates", async () => (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate));
await step("read", async () => (await client.readResource({ uri: "demo://resource/dynamic/text/7" })).contents);
await step("resourceIds", async () =>
  (await client.complete({ ref: { type: "ref/resource", uri: "demo://resource/dynamic/text/{resourceId}" }, argument: { name: "resourceId", value: "42" } })).completion);

const watched = "demo://resource/dynamic/text/3";
await step("subscribed", async () => {
  await client.subscribeResource({ uri: watched });
  // server-everything sends updates of subscribed resources once this tool
  // turns them on: one at once, then every five seconds.
  await client.callTool({ name: "call_tool", arguments: { name: prefix + "toggle-subscriber-updates", arguments: {} } });
  const deadline = Date.now() + 15000;
  while (!updated.includes(watched) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
  }
  await client.unsubscribeResource({ uri: watched });
  await client.callTool({ name: "call_tool", arguments: { name: prefix + "toggle-subscriber-updates", arguments: {} } });
  return [...new Set(updated)];
});
await step("unknownSubscription", async () => {
  try {
    await client.subscribeResource({ uri: "nowhere://at/all" });
    return "no error";
  } catch (err) {
    return err.message;
  }
});

await client.close();
process.stdout.write(JSON.stringify(out) + "\n");
