// The TypeScript SDK's client, driven by callbench: it connects to the echo
// server (over stdio, a command it starts; or over streamable HTTP, a URL),
// then reads commands on its standard input, one a line, and answers each
// with one line of JSON on its standard output:
//
//   seq N          N calls one after another   -> {"ns": wall time}
//   conc C N       N calls by C callers        -> {"ns": wall time}
//
// It ends when its standard input does.
//
//   node tsclient.mjs SDK_DIR SIZE stdio COMMAND
//   node tsclient.mjs SDK_DIR SIZE http URL
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [sdkDir, size, kind, target] = process.argv.slice(2);
const sdk = (path) => import(pathToFileURL(join(sdkDir, 'dist/esm', path)).href);
const { Client } = await sdk('client/index.js');

let transport;
if (kind === 'stdio') {
  const { StdioClientTransport } = await sdk('client/stdio.js');
  transport = new StdioClientTransport({ command: target, env: { CALLBENCH_SERVER: 'stdio' } });
} else {
  const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');
  transport = new StreamableHTTPClientTransport(new URL(target));
}
const client = new Client({ name: 'callbench', version: '1' });
await client.connect(transport);

// The same text as the Go clients send (text in main.go).
const pattern = 'abcdefghijklmnopqrstuvwxyz0123456789';
const args = { text: pattern.repeat(Math.ceil(size / pattern.length)).slice(0, size) };

async function call() {
  const res = await client.callTool({ name: 'echo', arguments: args });
  if (res.isError || res.content[0].text.length !== args.text.length) {
    throw new Error('the echo came back wrong');
  }
}

async function calls(n) {
  for (let i = 0; i < n; i++) await call();
}

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const [cmd, a, b] = line.trim().split(/\s+/);
  const start = process.hrtime.bigint();
  if (cmd === 'seq') {
    await calls(Number(a));
  } else if (cmd === 'conc') {
    const callers = Number(a), n = Number(b);
    await Promise.all(Array.from({ length: callers }, (_, i) => calls(Math.floor(n / callers) + (i < n % callers ? 1 : 0))));
  } else {
    continue;
  }
  process.stdout.write(JSON.stringify({ ns: Number(process.hrtime.bigint() - start) }) + '\n');
}
await client.close();
