// A client of mcpbridge serve written against the official TypeScript SDK
// (@modelcontextprotocol/sdk): it connects to URL over streamable HTTP,
// lists every tool, calls each TOOL with its arguments (a JSON object), and
// prints one JSON object: the protocol version negotiated, the tools' names,
// and each call's result as the SDK returns it. A failure exits 1.
//
//   NODE_PATH=.cache/npm/node_modules node tsclient.mjs URL [TOOL ARGS]...
import { createRequire } from "node:module";

// NODE_PATH reaches require, not import.
const require = createRequire(import.meta.url);
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");

const [url, ...calls] = process.argv.slice(2);
const client = new Client({ name: "tsclient", version: "1.0.0" });
const transport = new StreamableHTTPClientTransport(new URL(url));
await client.connect(transport);
const out = { protocol: transport.protocolVersion, tools: [], results: [] };
let cursor;
do {
  const page = await client.listTools(cursor ? { cursor } : {});
  out.tools.push(...page.tools.map((t) => t.name));
  cursor = page.nextCursor;
} while (cursor);
for (let i = 0; i < calls.length; i += 2) {
  out.results.push(await client.callTool({ name: calls[i], arguments: JSON.parse(calls[i + 1]) }));
}
await client.close();
console.log(JSON.stringify(out));
