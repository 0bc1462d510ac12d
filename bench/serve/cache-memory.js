#!/usr/bin/env node
// Memory of `flc serve` under distinct large compiles: POST /api/compile of N different URLs, each
// answering the corpus's largest list (adguard-base.txt, 6.8 MB) with one line of its own, so
// every compile misses the caches and asks to be kept. The server runs with its heap capped
// (--heap MB, 512 by default); prints its RSS after each compile and whether it survived.
// Usage: node bench/serve/cache-memory.js [--compiles N] [--heap MB] [--bin PATH] [-- serve flags…]
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { corpusDir } from '../corpus.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const dash = args.indexOf('--');
const own = dash < 0 ? args : args.slice(0, dash);
const serveFlags = dash < 0 ? [] : args.slice(dash + 1);
const value = (name, dflt) => (own.includes(name) ? own[own.indexOf(name) + 1] : dflt);
const COMPILES = Number(value('--compiles', 30));
const HEAP = Number(value('--heap', 512));
const BIN = resolve(value('--bin', join(ROOT, 'bin/run.js')));
const corpus = corpusDir();
const text = readFileSync(join(corpus, 'adguard-base.txt'), 'utf8');

const lists = createServer((req, res) => res.writeHead(200).end(`${text}\n||${req.url.slice(1)}.bench.example^\n`));
await new Promise((r) => lists.listen(0, '127.0.0.1', r));
const dir = mkdtempSync(join(tmpdir(), 'flc-cache-memory-'));
const child = spawn(
  process.execPath,
  [
    `--max-old-space-size=${HEAP}`,
    BIN,
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
  child.stderr.on('data', (d) => {
    log += d;
    const m = /listening on (\S+)/.exec(log);
    if (m) ok(m[1]);
  });
  child.once('exit', (code) => fail(new Error(`flc serve exited ${code}: ${log}`)));
});
const up = await fetch(`${url}/api/auth/sign-up/email`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ email: 'bench@example.org', password: 'a long enough password 1' }),
}).then((r) => r.json());
const rss = () => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))[1]) / 1024;
  } catch {
    return Number.NaN; // the process is gone
  }
};
const start = rss();
let peak = start;
let done = 0;
for (let i = 0; i < COMPILES; i++) {
  try {
    const res = await fetch(`${url}/api/compile`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${up.token}` },
      body: JSON.stringify({
        configuration: { name: 'M', sources: [{ source: `http://127.0.0.1:${lists.address().port}/l${i}` }] },
      }),
    });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`answered ${res.status}`);
  } catch (e) {
    await new Promise((r) => setTimeout(r, 1_000));
    console.log(`compile ${i + 1} failed: ${e.message}`);
    console.log(/Reached heap limit|heap out of memory/.test(log) ? '(it ran out of heap)' : '');
    break;
  }
  done++;
  const now = rss();
  peak = Math.max(peak, now);
  console.log(`compile ${i + 1}: RSS ${now.toFixed(0)} MB`);
}
const last = rss();
console.log(
  `| ${done} of ${COMPILES} distinct 6.8 MB compiles, heap capped at ${HEAP} MB | ` +
    `RSS ${start.toFixed(0)} MB at start, ` +
    `${peak.toFixed(0)} MB peak, ${Number.isNaN(last) ? 'process died' : `${last.toFixed(0)} MB after`} |`,
);
child.kill('SIGTERM');
lists.close();
rmSync(dir, { recursive: true, force: true });
