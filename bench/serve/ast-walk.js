#!/usr/bin/env node
// `/api/health` while free users walk large lists (`flc serve`, the AST routes in its worker pool):
//   three free users each walk 1 MiB of a real list (FLC_CORPUS, EasyList by default) back to back
//   for --duration seconds, while /api/health is asked every 20 ms; then ten walks at once of an
//   amplifying body (5,000 rules with 50 `$domain`s each, refused at the answer limit).
// Prints health's p50/p95/p99/max for each phase, the walks' statuses, and the server's RSS.
// Usage: FLC_CORPUS=/path/to/corpus node bench/serve/ast-walk.js [--duration S] [--list NAME]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchStore } from './store.js';
import { corpusDir } from '../corpus.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const duration = Number(option('--duration', 20));
const corpus = corpusDir();
const list = readFileSync(join(corpus, option('--list', 'easylist.txt')))
  .subarray(0, 1024 * 1024 - 1024)
  .toString('utf8')
  .replace(/\n[^\n]*$/, '');

const store = await benchStore(ROOT, args, 'flc-bench-ast');
const server = spawn(process.execPath, [join(ROOT, 'bin/run.js'), 'serve', '--port', '0', '--db', store.db], {
  stdio: ['ignore', 'ignore', 'pipe'],
});
const url = await new Promise((resolveUrl, reject) => {
  let err = '';
  server.stderr.on('data', (d) => {
    err += d;
    const m = /listening on (\S+)/.exec(err);
    if (m) resolveUrl(m[1]);
  });
  server.once('exit', (code) => reject(new Error(`server exited ${code}: ${err}`)));
});
const rss = () => {
  const status = readFileSync(`/proc/${server.pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024);
};

const tokens = [];
for (let i = 0; i < 3; i++) {
  const res = await fetch(`${url}/api/auth/sign-up/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `walker${i}@example.org`, password: 'bench walker password', name: `w${i}` }),
  });
  tokens.push((await res.json()).token);
}
const walk = async (token, body) => {
  const res = await fetch(`${url}/api/ast/walk`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body,
  });
  const bytes = (await res.arrayBuffer()).byteLength;
  return { status: res.status, bytes };
};

/** Asks /api/health every 20 ms until `work` settles; its timings in ms. */
async function probeWhile(work) {
  let settled = false;
  const done = work.finally(() => {
    settled = true;
  });
  const timings = [];
  while (!settled) {
    const asked = performance.now();
    await (await fetch(`${url}/api/health`)).arrayBuffer();
    timings.push(performance.now() - asked);
    await new Promise((r) => setTimeout(r, 20));
  }
  return { timings, results: await done };
}
const percentiles = (t) => {
  const s = [...t].sort((a, b) => a - b);
  const at = (p) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))].toFixed(1);
  return { probes: s.length, p50: at(50), p95: at(95), p99: at(99), max: s.at(-1).toFixed(1) };
};

const rest = await probeWhile(new Promise((r) => setTimeout(() => r([]), 2000)));
console.log('health at rest (ms)', percentiles(rest.timings), `RSS ${rss()} MB`);

const body = JSON.stringify({ text: list });
const until = performance.now() + duration * 1000;
const walker = async (token) => {
  const statuses = {};
  let bytes = 0;
  while (performance.now() < until) {
    const r = await walk(token, body);
    statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    if (r.status === 200) bytes = r.bytes;
  }
  return { statuses, answerMiB: (bytes / 1048576).toFixed(1) };
};
const three = await probeWhile(Promise.all(tokens.map(walker)));
const mib = (n) => (n / 1048576).toFixed(2);
console.log(
  `three free users walking ${mib(Buffer.byteLength(body))} MiB bodies for ${duration} s: health (ms)`,
  percentiles(three.timings),
  `RSS ${rss()} MB`,
);
console.log('walks per user', three.results);

const domains = Array.from({ length: 50 }, (_, i) => `a${i}.io`).join('|');
const rules = Array.from(
  { length: 5000 },
  (_, i) => `||ads${i}.example^$domain=${domains},removeparam=/^(utm_[a-z]+|ref${i})$/`,
);
const hostile = JSON.stringify({ rules });
const started = performance.now();
const ten = await probeWhile(Promise.all(Array.from({ length: 10 }, (_, i) => walk(tokens[i % 3], hostile))));
const tookMs = Math.round(performance.now() - started);
console.log(
  `ten amplifying walks at once (${mib(hostile.length)} MiB each), ${tookMs} ms: health (ms)`,
  percentiles(ten.timings),
  `RSS ${rss()} MB`,
);
console.log('statuses', ten.results.map((r) => r.status).join(' '));

server.kill('SIGTERM');
await new Promise((r) => server.once('exit', r));
await store.drop();
