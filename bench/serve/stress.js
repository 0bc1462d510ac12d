#!/usr/bin/env node
// `flc serve` under attack (issue 32), on loopback, the server's heap capped at 512 MB:
//   1. memory: --compiles distinct compiles (100) of a 19 MiB list (six corpus lists joined, each
//      URL adding a line of its own, so every compile misses both caches), two users with one
//      compile each in flight, while a WebSocket client asks for the same list and never reads;
//      the server's RSS is sampled every 250 ms;
//   2. health: three free users walk 1 MiB of EasyList back to back for --walk seconds while
//      /api/health is asked every 20 ms;
//   3. fair share: one user fills their share (maxConcurrentCompiles, 3) with slow compiles (their
//      source answers after --slow seconds) and asks for one more (429), then another user's
//      two-line compile runs.
// Every phase is bounded in time (--max-seconds for the first, 600 by default). Five accounts (the
// sign-up limit of one address) play every part. Flags after `--` go to `flc serve`.
// Usage: FLC_CORPUS=/path/to/corpus node bench/serve/stress.js [--compiles N] [--walk S] [--slow S]
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { corpusDir } from '../corpus.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const all = process.argv.slice(2);
const args = all.includes('--') ? all.slice(0, all.indexOf('--')) : all;
const serveFlags = all.includes('--') ? all.slice(all.indexOf('--') + 1) : [];
const option = (name, fallback) => Number(args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const COMPILES = option('--compiles', 100);
const MAX_SECONDS = option('--max-seconds', 600);
const WALK_SECONDS = option('--walk', 20);
const SLOW_SECONDS = option('--slow', 5);
const corpus = corpusDir();
const read = (name) => readFileSync(join(corpus, name), 'utf8');
const big = [
  'adguard-base.txt',
  'hosts-hagezi-light.txt',
  'domains-hagezi-light.txt',
  'easylist.txt',
  'adblock-hagezi-light.txt',
  'ubo-filters.txt',
]
  .map(read)
  .join('\n');
const walkText = read('easylist.txt')
  .slice(0, 1024 * 1024 - 1024)
  .replace(/\n[^\n]*$/, '');

const lists = createServer((req, res) => {
  if (req.url.startsWith('/slow/')) {
    setTimeout(() => res.writeHead(200).end('||slow.bench.example^\n'), SLOW_SECONDS * 1000);
    return;
  }
  if (req.url.startsWith('/small')) return res.writeHead(200).end('||a.bench.example^\n||b.bench.example^\n');
  res.writeHead(200).end(`${big}\n||${req.url.slice(1)}.bench.example^\n`);
});
await new Promise((r) => lists.listen(0, '127.0.0.1', r));
const listUrl = `http://127.0.0.1:${lists.address().port}`;
const dir = mkdtempSync(join(tmpdir(), 'flc-stress-'));
const server = spawn(
  process.execPath,
  [
    '--max-old-space-size=512',
    join(ROOT, 'bin/run.js'),
    'serve',
    '--port',
    '0',
    '--db',
    join(dir, 'flc.db'),
    '--allow-private-sources',
    ...serveFlags,
  ],
  { stdio: ['ignore', 'ignore', 'pipe'] },
);
let log = '';
const url = await new Promise((ok, fail) => {
  server.stderr.on('data', (d) => {
    log += d;
    const m = /listening on (\S+)/.exec(log);
    if (m) ok(m[1]);
  });
  server.once('exit', (code) => fail(new Error(`flc serve exited ${code}: ${log}`)));
});
const rss = () => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))[1]) / 1024;
  } catch {
    return Number.NaN;
  }
};
const user = async (name) => {
  const res = await fetch(`${url}/api/auth/sign-up/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `${name}@example.org`, password: 'a long enough password 1' }),
  });
  return (await res.json()).token;
};
const compile = async (token, source) => {
  const res = await fetch(`${url}/api/compile`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ configuration: { name: 'S', sources: [{ source }] } }),
  });
  const text = await res.text();
  return { status: res.status, text };
};
const percentiles = (t) => {
  const s = [...t].sort((a, b) => a - b);
  const at = (p) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))].toFixed(1);
  return { probes: s.length, p50: at(50), p95: at(95), p99: at(99), max: s.at(-1).toFixed(1) };
};

// 1. Memory.
const started = rss();
let peak = started;
const sampler = setInterval(() => {
  peak = Math.max(peak, rss() || 0);
}, 250);
const accounts = [];
for (let i = 0; i < 5; i++) accounts.push(await user(`stress${i}`));
const silent = new WebSocket(`${url.replace('http', 'ws')}/api/ws/compile`, {
  headers: { authorization: `Bearer ${accounts[4]}` },
});
await new Promise((r) => silent.once('open', r));
silent._socket.pause();
silent.send(
  JSON.stringify({
    type: 'compile',
    sessionId: 'w',
    configuration: { name: 'W', sources: [{ source: `${listUrl}/ws` }] },
  }),
);
const compilers = accounts.slice(0, 2);
const deadline = performance.now() + MAX_SECONDS * 1000;
const statuses = {};
let next = 0;
const t0 = performance.now();
await Promise.all(
  compilers.map(async (token) => {
    while (next < COMPILES && performance.now() < deadline) {
      const i = next++;
      const r = await compile(token, `${listUrl}/l${i}`).catch((e) => ({ status: e.message }));
      const key = r.status === 200 ? 200 : `${r.status} ${String(r.text ?? '').slice(0, 120)}`;
      statuses[key] = (statuses[key] ?? 0) + 1;
    }
  }),
);
clearInterval(sampler);
const memorySeconds = ((performance.now() - t0) / 1000).toFixed(0);
const alive = server.exitCode === null && !Number.isNaN(rss());
console.log(
  `| ${next} distinct compiles of a ${(big.length / 1048576).toFixed(1)} MiB list in ${memorySeconds} s, ` +
    `a non-reading WebSocket client, heap 512 MB | ${alive ? 'alive' : 'DIED'}, ` +
    `RSS ${started.toFixed(0)} MB at start, ${peak.toFixed(0)} MB peak, ${rss().toFixed(0)} MB after; ` +
    `answers ${JSON.stringify(statuses)} |`,
);
silent.terminate();
if (!alive) {
  console.log(log.slice(-2000));
  process.exit(1);
}

// 2. Health while three free users walk 1 MiB lists.
const walkers = accounts.slice(0, 3);
const body = JSON.stringify({ text: walkText });
const until = performance.now() + WALK_SECONDS * 1000;
const walks = {};
const walking = Promise.all(
  walkers.map(async (token) => {
    while (performance.now() < until) {
      const res = await fetch(`${url}/api/ast/walk`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body,
      });
      await res.arrayBuffer();
      walks[res.status] = (walks[res.status] ?? 0) + 1;
    }
  }),
);
let walked = false;
void walking.finally(() => {
  walked = true;
});
const timings = [];
while (!walked) {
  const asked = performance.now();
  await (await fetch(`${url}/api/health`)).arrayBuffer();
  timings.push(performance.now() - asked);
  await new Promise((r) => setTimeout(r, 20));
}
console.log(
  `| three free users walking 1 MiB of EasyList for ${WALK_SECONDS} s: /api/health (ms) | ` +
    `${JSON.stringify(percentiles(timings))}, walks ${JSON.stringify(walks)}, RSS ${rss().toFixed(0)} MB |`,
);

// 3. Fair share.
const [greedy, modest] = [accounts[3], accounts[4]];
const slow = [0, 1, 2].map((i) => compile(greedy, `${listUrl}/slow/${i}`));
await new Promise((r) => setTimeout(r, 500));
const refused = await compile(greedy, `${listUrl}/slow/3`);
const asked = performance.now();
const small = await compile(modest, `${listUrl}/small`);
const smallMs = Math.round(performance.now() - asked);
const greedyStatuses = (await Promise.all(slow)).map((r) => r.status);
console.log(
  `| one user's ${SLOW_SECONDS} s compiles fill their share; another user's two-line compile | ` +
    `their 4th: ${refused.status} ${JSON.parse(refused.text).detail ?? ''}; the other's: ${small.status} ` +
    `in ${smallMs} ms; theirs: ${greedyStatuses.join(' ')} |`,
);

server.kill('SIGTERM');
await new Promise((r) => server.once('exit', r));
lists.close();
rmSync(dir, { recursive: true, force: true });
