#!/usr/bin/env node
// The job queue of `flc serve`: how many async compiles of a 10,000-line configuration it
// finishes per second when kept full, and what the queue adds to one compile's latency (submit,
// then poll the result every 5 ms, against the same compile through POST /api/compile).
// Usage: node bench/serve/queue.js [--jobs N] [--workers N] [--postgres [URL]]
//   --postgres: the store (and so the queue) on PostgreSQL: a fresh database at URL (default
//   postgres://postgres@127.0.0.1:5432/postgres), dropped after.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchStore, PASSWORD } from './store.js';
import { corpusDir } from '../corpus.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const flag = (name, dflt) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : dflt);
const JOBS = flag('--jobs', 200);
const WORKERS = flag('--workers', 2);
const SAMPLES = 20;

// 10,000 lines of a real list (the corpus's EasyList), served over loopback.
const list = readFileSync(join(corpusDir(), 'easylist.txt'), 'utf8').split('\n').slice(0, 10_000).join('\n');
const lists = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(list));
await new Promise((r) => lists.listen(0, '127.0.0.1', r));
const configuration = {
  name: 'Bench',
  sources: [{ source: `http://127.0.0.1:${lists.address().port}/easylist.txt` }],
  transformations: ['Deduplicate', 'RemoveComments', 'Validate'],
};

const store = await benchStore(ROOT, args, 'flc-bench-queue');
const db = store.db;
const server = spawn(
  process.execPath,
  [
    join(ROOT, 'bin/run.js'),
    'serve',
    '--port',
    '0',
    '--db',
    db,
    '--allow-private-sources',
    '--queue-workers',
    String(WORKERS),
  ],
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
const signIn = await fetch(`${url}/api/auth/sign-in/email`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ email: 'bench@example.org', password: PASSWORD }),
});
const headers = {
  'content-type': 'application/json',
  'cache-control': 'no-cache',
  authorization: `Bearer ${(await signIn.json()).token}`,
};
const post = (path, body) => fetch(`${url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
// The bench submits all its jobs at once: more than a tier's default share of queued jobs (20).
const share = await fetch(`${url}/admin/system/tiers/admin`, {
  method: 'PUT',
  headers,
  body: JSON.stringify({ features: { maxQueuedJobs: JOBS + 10 } }),
});
if (share.status !== 200)
  throw new Error(`raising the admin tier's maxQueuedJobs: ${share.status} ${await share.text()}`);
const submit = async () => (await (await post('/api/compile/async', { configuration })).json()).requestId;
const status = async (id) => (await (await fetch(`${url}/api/queue/results/${id}`, { headers })).json()).status;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Warm-up: the pool's threads, the HTTP cache, the store.
for (let i = 0; i < 3; i += 1) await (await post('/api/compile', { configuration })).json();

const sync = [];
const queued = [];
for (let i = 0; i < SAMPLES; i += 1) {
  let t = performance.now();
  const body = await (await post('/api/compile', { configuration })).json();
  if (!body.success) throw new Error(JSON.stringify(body));
  sync.push(performance.now() - t);
  t = performance.now();
  const id = await submit();
  while ((await status(id)) !== 'completed') await sleep(5);
  queued.push(performance.now() - t);
}

const started = performance.now();
const ids = [];
for (let i = 0; i < JOBS; i += 1) ids.push(await submit());
const submitted = performance.now() - started;
let last = ids.length - 1;
for (;;) {
  const stats = await (await fetch(`${url}/api/queue/stats`, { headers })).json();
  if (stats.pending === 0) break;
  await sleep(20);
}
const elapsed = (performance.now() - started) / 1000;
const failed = [];
for (; last >= 0; last -= 1) if ((await status(ids[last])) !== 'completed') failed.push(ids[last]);

server.kill('SIGTERM');
lists.close();
await new Promise((r) => server.once('exit', r));
await store.drop();

const ms = (x) => `${x.toFixed(0)} ms`;
console.log(`store: ${store.engine}, --queue-workers ${WORKERS}, 10,000-line configuration`);
console.log(`sync compile (POST /api/compile, no cache), median of ${SAMPLES}: ${ms(median(sync))}`);
console.log(`async compile, submit to result seen, median of ${SAMPLES}: ${ms(median(queued))}`);
console.log(`queue's added latency (median difference): ${ms(median(queued) - median(sync))}`);
console.log(
  `sustained: ${JOBS} jobs in ${elapsed.toFixed(1)} s = ${(JOBS / elapsed).toFixed(1)} jobs/s ` +
    `(submitting took ${ms(submitted)}), not completed: ${failed.length}`,
);
