#!/usr/bin/env node
// A server compile of large lists downloaded over HTTP: `POST /api/compile` of a configuration
// whose sources are every corpus list (12 sources, ~20 MB, ~700,000 lines), each served by a
// local HTTP server, against one or more `flc serve` builds side by side. Each compile asks for
// new URLs (a query of its own) without validators, so it misses the compile and response caches
// and downloads every list whole. Rounds are interleaved (build A, build B, A, B, …) so that a
// change in the machine's speed hits both alike; prints, per build, the median wall time of a
// compile and the median CPU the server process spent on it (main thread and pool).
// Usage: node bench/serve/http-compile.js [--rounds N] [--bin PATH]… (FLC_CORPUS: the real lists)
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { corpusDir } from '../corpus.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const ROUNDS = Number(args.includes('--rounds') ? args[args.indexOf('--rounds') + 1] : 7);
const bins = args.flatMap((a, i) => (args[i - 1] === '--bin' ? [resolve(a)] : []));
if (bins.length === 0) bins.push(join(ROOT, 'bin/run.js'));

const corpus = corpusDir();
const files = readdirSync(corpus)
  .filter((f) => f.endsWith('.txt'))
  .sort();
const bodies = new Map(files.map((f) => [f, readFileSync(join(corpus, f))]));
const lists = createServer((req, res) => {
  const body = bodies.get(new URL(req.url, 'http://x').pathname.slice(1));
  if (!body) return void res.writeHead(404).end();
  res.writeHead(200, { 'content-type': 'text/plain' }).end(body);
});
await new Promise((r) => lists.listen(0, '127.0.0.1', r));
const listsUrl = `http://127.0.0.1:${lists.address().port}`;
const megabytes = [...bodies.values()].reduce((n, b) => n + b.length, 0) / 1e6;

const dir = mkdtempSync(join(tmpdir(), 'flc-http-compile-'));
const CLK_TCK = 100;
/** One `flc serve` of a build, signed up once. */
async function serve(bin, n) {
  const child = spawn(
    process.execPath,
    [bin, 'serve', '--port', '0', '--db', join(dir, `flc${n}.db`), '--allow-private-sources'],
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
  const cpu = () => {
    const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK; // utime + stime
  };
  return { bin, child, url, token: up.token, cpu, walls: [], cpus: [], rules: null };
}

/** One compile on `s`, its URLs new to it (`round`: the same for every build, so that answers compare). */
async function compileOnce(s, round) {
  const sources = files.map((f) => ({ source: `${listsUrl}/${f}?r=${round}` }));
  const cpu0 = s.cpu();
  const t0 = performance.now();
  const res = await fetch(`${s.url}/api/compile`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${s.token}` },
    body: JSON.stringify({ configuration: { name: 'H', sources, transformations: ['Deduplicate'] } }),
  });
  const body = await res.json();
  const wall = (performance.now() - t0) / 1000;
  if (res.status !== 200) throw new Error(`${s.bin}: answered ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  s.walls.push(wall);
  s.cpus.push(s.cpu() - cpu0);
  // Every build must answer the same rules (the header's date aside).
  const rules = body.rules.filter((l) => !l.startsWith('! Last modified'));
  s.rules ??= rules;
  if (rules.length !== s.rules.length) throw new Error(`${s.bin}: a different answer`);
  return rules;
}

const servers = [];
for (const [n, bin] of bins.entries()) servers.push(await serve(bin, n));
try {
  // A warm-up compile each (the pool's threads start, code warms), not counted.
  const first = [];
  for (const s of servers) first.push((await compileOnce(s, 0)).join('\n'));
  if (new Set(first).size !== 1) throw new Error('the builds answer different rules');
  for (const s of servers) {
    s.walls.length = 0;
    s.cpus.length = 0;
  }
  for (let r = 1; r <= ROUNDS; r += 1) for (const s of servers) await compileOnce(s, r);
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(
    `${files.length} sources over HTTP, ${megabytes.toFixed(1)} MB, ${servers[0].rules.length} rules answered`,
  );
  console.log('| build | wall a compile (median) | server CPU a compile (median) | runs |');
  console.log('|---|---|---|---|');
  for (const s of servers) {
    const w = median(s.walls);
    const c = median(s.cpus);
    console.log(`| ${s.bin} | ${w.toFixed(2)} s | ${c.toFixed(2)} s | ${s.walls.length} |`);
  }
  if (servers.length === 2) {
    const ratio = (k) => median(servers[0][k].map((v, i) => v / servers[1][k][i]));
    console.log(`first/second, median of pairs: wall ${ratio('walls').toFixed(2)}x, CPU ${ratio('cpus').toFixed(2)}x`);
  }
} finally {
  for (const s of servers) s.child.kill('SIGTERM');
  lists.close();
  rmSync(dir, { recursive: true, force: true });
}
