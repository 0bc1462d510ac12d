#!/usr/bin/env node
// Refused requests per second: anonymous `GET /api/version` from one address, 20 connections, past
// the anonymous limit (10 a minute), so nearly every answer is 429. On PostgreSQL each refusal
// once cost a round trip and a commit of the shared counter.
// Usage: node bench/serve/refused.js [--duration S] [--postgres [URL]]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { benchStore } from './store.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const duration = Number(args[args.indexOf('--duration') + 1]) || 10;
const store = await benchStore(ROOT, args, 'flc-bench-refused');
const server = spawn(process.execPath, [join(ROOT, 'bin/run.js'), 'serve', '--port', '0', '--db', store.db], {
  stdio: ['ignore', 'ignore', 'pipe'],
});
const url = await new Promise((done, fail) => {
  let err = '';
  server.stderr.on('data', (d) => {
    err += d;
    const m = /listening on (\S+)/.exec(err);
    if (m) done(m[1]);
  });
  server.once('exit', (code) => fail(new Error(`server exited ${code}: ${err}`)));
});
const res = await new Promise((done, fail) =>
  autocannon({ url: `${url}/api/version`, connections: 20, duration }, (e, r) => (e ? fail(e) : done(r))),
);
server.kill('SIGTERM');
await new Promise((r) => server.once('exit', r));
await store.drop();
const version = JSON.parse(readFileSync(join(ROOT, 'node_modules/autocannon/package.json'), 'utf8')).version;
console.log(`### ${new Date().toISOString().slice(0, 10)} — refused requests (autocannon ${version})\n`);
console.log('| store | requests/s (mean) | 429 | latency p50 / p99 |');
console.log('|---|---|---|---|');
console.log(
  `| ${store.engine} | ${Math.round(res.requests.average).toLocaleString('en')} | ` +
    `${res.non2xx.toLocaleString('en')} of ${res.requests.total.toLocaleString('en')} | ` +
    `${res.latency.p50} / ${res.latency.p99} ms |`,
);
