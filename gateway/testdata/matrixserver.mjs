// The matrix server of the gateway's differential test in TypeScript, on
// the official TypeScript SDK (@modelcontextprotocol/sdk): the twin of the
// Go server of matrixserver_test.go, whose comment says what each tool,
// resource, prompt and completion answers, in the same words. What the
// TypeScript SDK does otherwise: it speaks protocol 2025-11-25 at most, so
// ask_in_result asks during the call as ask does; its task tool is a task
// of protocol 2025-11-25 (taskSupport optional: a plain call is answered
// at once); and it logs every level until a client sets one.
//
//   NODE_PATH=.cache/npm/node_modules node matrixserver.mjs stdio
//   NODE_PATH=.cache/npm/node_modules node matrixserver.mjs http
//
// Over HTTP it serves streamable HTTP with sessions on 127.0.0.1, a port
// of its own, prints its URL as its first line, and exits when its stdin
// closes.
import { createRequire } from "node:module";
import { createServer } from "node:http";
import { randomUUID } from "node:crypto";

// NODE_PATH reaches require, not import.
const require = createRequire(import.meta.url);
const { McpServer, ResourceTemplate } = require("@modelcontextprotocol/sdk/server/mcp.js");
const { completable } = require("@modelcontextprotocol/sdk/server/completable.js");
const { StdioServerTransport } = require("@modelcontextprotocol/sdk/server/stdio.js");
const { StreamableHTTPServerTransport } = require("@modelcontextprotocol/sdk/server/streamableHttp.js");
const { InMemoryTaskStore } = require("@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js");
const {
  ElicitResultSchema,
  CreateMessageResultSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  isInitializeRequest,
} = require("@modelcontextprotocol/sdk/types.js");
const z = require("zod/v4");

// pattern is a text of n bytes that says, every 8 bytes, where it is.
function pattern(n) {
  const parts = [];
  for (let i = 0; i < n; i += 8) {
    parts.push(i.toString(16).padStart(7, "0") + ".");
  }
  return parts.join("").slice(0, n);
}

const text = (t) => ({ content: [{ type: "text", text: t }] });

// The calls of block, by key: whether each started, and how it ended.
const blocks = new Map();
function blockOf(key) {
  let b = blocks.get(key);
  if (!b) {
    b = {};
    b.started = new Promise((r) => (b.start = r));
    b.ended = new Promise((r) => (b.end = r));
    b.proceed = new Promise((r) => (b.goOn = r));
    blocks.set(key, b);
  }
  return b;
}
// within is what p gives, or late if it gives nothing within ms.
async function within(p, ms, late) {
  let timer;
  const v = await Promise.race([p, new Promise((r) => (timer = setTimeout(() => r(late), ms)))]);
  clearTimeout(timer);
  return v;
}
// The bounds of block and ended, as the Go server's.
const blockFor = 20000;
const endedFor = 15000;

const taskStore = new InMemoryTaskStore();

function newServer() {
  const server = new McpServer(
    { name: "matrix", version: "1" },
    {
      capabilities: {
        logging: {},
        completions: {},
        resources: { subscribe: true },
        tasks: { requests: { tools: { call: {} } } },
      },
      taskStore,
    },
  );
  server.server.setRequestHandler(SubscribeRequestSchema, async () => ({}));
  server.server.setRequestHandler(UnsubscribeRequestSchema, async () => ({}));

  const log = async (extra, level, data) => {
    if (!server.server.isMessageIgnored(level, extra.sessionId)) {
      await extra.sendNotification({ method: "notifications/message", params: { level, logger: "matrix", data } });
    }
  };
  const progress = async (extra, params) => {
    const token = extra._meta?.progressToken;
    if (token !== undefined) {
      await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, ...params } });
    }
  };
  const ask = async (extra) => {
    const out = [];
    try {
      const e = await extra.sendRequest(
        {
          method: "elicitation/create",
          params: {
            message: "Who are you?",
            requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
          },
        },
        ElicitResultSchema,
      );
      out.push(`elicitation: ${e.action} ${e.content?.name}`);
    } catch (err) {
      out.push("elicitation failed: " + err.message);
    }
    try {
      const m = await extra.sendRequest(
        {
          method: "sampling/createMessage",
          params: { maxTokens: 50, messages: [{ role: "user", content: { type: "text", text: "Say something." } }] },
        },
        CreateMessageResultSchema,
      );
      out.push(m.content?.type === "text" ? `sampling: ${m.model} said ${JSON.stringify(m.content.text)}` : `sampling: ${m.model}, not a text`);
    } catch (err) {
      out.push("sampling failed: " + err.message);
    }
    return text(out.join("; "));
  };

  server.registerTool("echo", { description: "Echo the text", inputSchema: { text: z.string() } }, async ({ text: t }) => text("echo: " + t));
  server.registerTool("sized", { description: "A text of n bytes", inputSchema: { n: z.number().int() } }, async ({ n }) => text(pattern(n)));
  server.registerTool("log", { description: "Log a line", inputSchema: { key: z.string() } }, async ({ key }, extra) => {
    await log(extra, "info", "log " + key);
    await log(extra, "debug", "debug " + key);
    await log(extra, "notice", "end " + key);
    await within(blockOf(key).proceed, blockFor);
    return text("logged");
  });
  server.registerTool("steps", { description: "Report progress", inputSchema: { key: z.string() } }, async ({ key }, extra) => {
    for (let i = 1; i <= 2; i++) {
      await progress(extra, { progress: i, total: 2, message: `step ${i}` });
    }
    await within(blockOf(key).proceed, blockFor);
    return text("done");
  });
  server.registerTool("proceed", { description: "Let log or steps answer", inputSchema: { key: z.string() } }, async ({ key }) => {
    blockOf(key).goOn();
    return text("proceeding");
  });
  server.registerTool("block", { description: "Wait to be cancelled", inputSchema: { key: z.string() } }, async ({ key }, extra) => {
    const b = blockOf(key);
    b.start();
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        b.end("not cancelled");
        resolve(text("not cancelled"));
      }, blockFor);
      const cancelled = () => {
        clearTimeout(timer);
        b.end("cancelled");
        reject(new Error("cancelled"));
      };
      if (extra.signal.aborted) cancelled();
      extra.signal.addEventListener("abort", cancelled, { once: true });
    });
  });
  server.registerTool("started", { description: "Wait for block to start", inputSchema: { key: z.string() } }, async ({ key }) =>
    text("block: " + (await within(blockOf(key).started.then(() => "started"), blockFor, "not started"))),
  );
  server.registerTool("ended", { description: "How block ended", inputSchema: { key: z.string() } }, async ({ key }) =>
    text("block: " + (await within(blockOf(key).ended, endedFor, "still running"))),
  );
  server.registerTool("ask", { description: "Ask the client during the call" }, async (extra) => ask(extra));
  server.registerTool("ask_in_result", { description: "Ask the client in the result" }, async (extra) => ask(extra));
  server.registerTool("touch", { description: "Say a resource changed", inputSchema: { uri: z.string() } }, async ({ uri }) => {
    await server.server.sendResourceUpdated({ uri });
    return text("touched " + uri);
  });
  server.experimental.tasks.registerToolTask(
    "task",
    { description: "A task of the tasks extension", execution: { taskSupport: "optional" } },
    {
      async createTask({ taskStore: store, taskRequestedTtl }) {
        const task = await store.createTask({ ttl: taskRequestedTtl, pollInterval: 10 });
        await store.storeTaskResult(task.taskId, "completed", text("task done"));
        return { task };
      },
      async getTask({ taskId, taskStore: store }) {
        return await store.getTask(taskId);
      },
      async getTaskResult({ taskId, taskStore: store }) {
        return await store.getTaskResult(taskId);
      },
    },
  );

  server.registerResource("readme", "memo://matrix/readme", { mimeType: "text/plain" }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: "text/plain", text: "read me" }],
  }));
  const sized = new ResourceTemplate("memo://matrix/sized/{n}", {
    list: undefined,
    complete: { n: (v) => ["0", "4095", "4097"].filter((x) => x.startsWith(v)) },
  });
  server.registerResource("sized", sized, { mimeType: "text/plain" }, async (uri, { n }) => ({
    contents: [{ uri: uri.href, mimeType: "text/plain", text: pattern(Number(n)) }],
  }));
  server.registerPrompt(
    "greet",
    { description: "Greet someone", argsSchema: { who: completable(z.string(), (v) => ["Ada", "Alan", "Grace"].filter((x) => x.startsWith(v))) } },
    async ({ who }) => ({ messages: [{ role: "user", content: { type: "text", text: "hello " + who } }] }),
  );
  server.registerPrompt("sized", { description: "A text of n bytes", argsSchema: { n: z.string() } }, async ({ n }) => ({
    messages: [{ role: "user", content: { type: "text", text: pattern(Number(n)) } }],
  }));
  return server;
}

const mode = process.argv[2];
if (mode === "stdio") {
  await newServer().connect(new StdioServerTransport());
} else if (mode === "http") {
  const sessions = new Map();
  const http = createServer(async (req, res) => {
    try {
      const id = req.headers["mcp-session-id"];
      let body;
      if (req.method === "POST") {
        const chunks = [];
        for await (const c of req) chunks.push(c);
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      }
      let transport = id ? sessions.get(id) : undefined;
      if (!transport) {
        if (id || req.method !== "POST" || !isInitializeRequest(body)) {
          res.writeHead(id ? 404 : 400, { "Content-Type": "application/json" });
          res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: "No valid session" }, id: null }));
          return;
        }
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sid) => sessions.set(sid, transport),
        });
        transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
        await newServer().connect(transport);
      }
      await transport.handleRequest(req, res, body);
    } catch (err) {
      if (!res.headersSent) {
        res.writeHead(500);
      }
      res.end(String(err));
    }
  });
  http.listen(0, "127.0.0.1", () => {
    console.log(`http://127.0.0.1:${http.address().port}/mcp`);
  });
  process.stdin.on("end", () => process.exit(0));
  process.stdin.resume();
} else {
  console.error("usage: matrixserver.mjs stdio|http");
  process.exit(2);
}
