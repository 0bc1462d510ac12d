#!/usr/bin/env node
// Load benchmark of `flc serve` with autocannon (a dev dependency):
//   1. POST /api/validate-rule, 50 connections, 10 s, signed in as an administrator (the admin
//      tier has no rate limit; every request still resolves its session and is counted);
//   2. POST /api/compile/stream compiling the bundled example lists (served over loopback),
//      10 requests (the streaming limit is 10 per minute per IP);
//   3. POST /api/compile of the same lists again and again, 10 connections: compile-cache hits,
//      each revalidating its sources (the list server answers 304 to a matching If-None-Match);
//      the connections the list server accepted show whether the revalidations reuse them.
// Usage: node bench/serve/run.js [--duration S] [--postgres [URL]]
//   --postgres: the store on PostgreSQL instead of the default SQLite file: a fresh database is
//   made on the server at URL (default postgres://postgres@127.0.0.1:5432/postgres) and dropped after.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchStore, PASSWORD } from './store.js';
import autocannon from 'autocannon';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const duration = Number(args[args.indexOf('--duration') + 1]) || 10;

// The example lists over HTTP, since a server compile reads only http(s) sources.
const lists = createServer((req, res) => {
  try {
    const name = (req.url ?? '').replace(/[^a-z.-]/g, '');
    const body = readFileSync(join(ROOT, 'examples/lists', name));
    const etag = `"${name}-${body.length}"`;
    if (req.headers['if-none-match'] === etag) return void res.writeHead(304, { etag }).end();
    res.writeHead(200, { 'content-type': 'text/plain', etag }).end(body);
  } catch {
    res.writeHead(404).end();
  }
});
let listConnections = 0;
lists.on('connection', () => {
  listConnections += 1;
});
await new Promise((r) => lists.listen(0, '127.0.0.1', r));
const listsUrl = `http://127.0.0.1:${lists.address().port}`;

const store = await benchStore(ROOT, args, 'flc-bench-serve');
const db = store.db;
const server = spawn(
  process.execPath,
  [join(ROOT, 'bin/run.js'), 'serve', '--port', '0', '--db', db, '--allow-private-sources'],
  { stdio: ['ignore', 'ignore', 'pipe'] },
);
const url = await new Promise((resolveUrl, reject) => {
  let err = '';
  server.stderr.on('data', (d) => {
    err += d;
    const m = /listening on (\S+)/.exec(err);
    if (m) resolveUrl(m[1]);
  });
  server.once('exit', (code) => reject(new Error(`server exited ${code}: ${err}`)));
});

const run = (opts) => new Promise((r, j) => autocannon(opts, (e, res) => (e ? j(e) : r(res))));
const signIn = await fetch(`${url}/api/auth/sign-in/email`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ email: 'bench@example.org', password: PASSWORD }),
});
const json = { 'content-type': 'application/json', authorization: `Bearer ${(await signIn.json()).token}` };

await run({
  url: `${url}/api/validate-rule`,
  method: 'POST',
  headers: json,
  body: JSON.stringify({ rule: '||warmup.example^' }),
  connections: 10,
  duration: 2,
});
const rule = await run({
  url: `${url}/api/validate-rule`,
  method: 'POST',
  headers: json,
  body: JSON.stringify({
    rule: '||ads.example.com^$third-party,domain=example.org',
    testUrl: 'https://ads.example.com/banner',
  }),
  connections: 50,
  duration,
});

const configuration = JSON.parse(readFileSync(join(ROOT, 'examples/flc.config.json'), 'utf8'));
for (const s of configuration.sources) s.source = `${listsUrl}/${s.source.split('/').pop()}`;
configuration.exclusions_sources = configuration.exclusions_sources.map((s) => `${listsUrl}/${s.split('/').pop()}`);
const sse = await run({
  url: `${url}/api/compile/stream`,
  method: 'POST',
  headers: json,
  body: JSON.stringify({ configuration }),
  connections: 1,
  amount: 10,
});

const compile = { url: `${url}/api/compile`, method: 'POST', headers: json, body: JSON.stringify({ configuration }) };
await run({ ...compile, connections: 1, amount: 5 });
const connectionsBefore = listConnections;
const hits = await run({ ...compile, connections: 10, duration });
const opened = listConnections - connectionsBefore;

server.kill('SIGTERM');
lists.close();
await new Promise((r) => server.once('exit', r));
await store.drop();
const storeName = store.engine;

const autocannonVersion = JSON.parse(readFileSync(join(ROOT, 'node_modules/autocannon/package.json'), 'utf8')).version;
const table = [
  `### ${new Date().toISOString().slice(0, 10)} — flc serve (autocannon ${autocannonVersion})`,
  '',
  'Server and load generator on the same 2-core machine (one core each, roughly).',
  '',
  '| what | requests/s (mean) | latency p50 / p99 | non-2xx | note |',
  '|---|---|---|---|---|',
  `| POST /api/validate-rule, 50 connections, ${duration} s, ${storeName} store | ` +
    `${Math.round(rule.requests.average).toLocaleString('en')} | ` +
    `${rule.latency.p50} / ${rule.latency.p99} ms | ${rule.non2xx} | target >= 5,000 requests/s |`,
  '| POST /api/compile/stream, bundled example lists, 10 requests, 1 connection | ' +
    `${rule ? sse.requests.average.toFixed(1) : ''} | ${sse.latency.p50} / ${sse.latency.p99} ms | ${sse.non2xx} | ` +
    'whole stream, to `done` |',
  `| POST /api/compile, the same lists again (cache hits, sources revalidated: 304), 10 connections, ${duration} s | ` +
    `${Math.round(hits.requests.average).toLocaleString('en')} | ${hits.latency.p50} / ${hits.latency.p99} ms | ` +
    `${hits.non2xx} | ${opened.toLocaleString('en')} connections opened to the list server for ` +
    `${hits.requests.total.toLocaleString('en')} hits |`,
  '',
].join('\n');
console.log(table);
