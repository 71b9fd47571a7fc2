// The official TypeScript SDK as an OAuth client of a gateway that is an
// OAuth resource server: from the gateway's 401 it finds the protected-resource
// metadata, then the authorization server, gets a token with the client
// credentials grant for the resource, and uses it.
//
//   node oauth-client.mjs URL ISSUER CLIENT_ID CLIENT_SECRET
//
// Writes one JSON object: {"tools":[...], "token":{claims}, "listTools":{...}}.
// The SDK is imported from the directory in MCP_SDK_DIR.
import { sdkLoader } from "./lineclient.mjs";

const load = sdkLoader("oauth-client.mjs");
const { Client } = await load("client/index.js");
const { StreamableHTTPClientTransport } = await load("client/streamableHttp.js");
const { ClientCredentialsProvider } = await load("client/auth-extensions.js");
const { CallToolResultSchema } = await load("types.js");

const [url, issuer, clientId, clientSecret] = process.argv.slice(2);
const provider = new ClientCredentialsProvider({ clientId, clientSecret, expectedIssuer: issuer });
const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
const client = new Client({ name: "toolgate-e2e-oauth", version: "1.0.0" }, { capabilities: {} });
await client.connect(transport);
const tools = (await client.listTools()).tools.map((t) => t.name);
const listTools = await client.request(
  { method: "tools/call", params: { name: "list_tools", arguments: {} } }, CallToolResultSchema);
const token = JSON.parse(Buffer.from(provider.tokens().access_token.split(".")[1], "base64url"));
await client.close();
process.stdout.write(JSON.stringify({ tools, token, listTools }) + "\n");
