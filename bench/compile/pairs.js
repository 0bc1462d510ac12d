#!/usr/bin/env node
// Interleaved pairs of whole compiles of one configuration by two builds of flc (this checkout and
// another, e.g. a worktree of the commit compared with): wall, CPU (user + system) and peak RSS of
// each run, and the medians of the per-pair ratios (this build over the other). Pairs alternate
// which build runs first, so that a change in the machine's speed hits both alike; the outputs are
// compared with the `! Last modified` and `! Compiled by` lines left out. Needs /usr/bin/time.
// Usage: node bench/compile/pairs.js --against /path/to/other/checkout --config FILE [--pairs N]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const option = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const against = option('--against');
const config = option('--config');
const pairs = Number(option('--pairs')) || 5;
if (!against || !config) {
  console.error('usage: node bench/compile/pairs.js --against /path/to/other/checkout --config FILE [--pairs N]');
  process.exit(2);
}
const mine = join(resolve(dirname(fileURLToPath(import.meta.url)), '../..'), 'bin/run.js');
const other = join(resolve(against), 'bin/run.js');
const dir = mkdtempSync(join(tmpdir(), 'flc-pairs-'));
const outOf = (bin) => join(dir, bin === mine ? 'mine.txt' : 'other.txt');

function run(bin) {
  const r = spawnSync(
    '/usr/bin/time',
    ['-f', '%e %U %S %M', process.execPath, bin, 'compile', '-c', config, '-q', '-o', outOf(bin)],
    {
      encoding: 'utf8',
    },
  );
  if (r.status !== 0) throw new Error(`${bin} failed: ${r.stderr}`);
  const [wall, user, system, kb] = r.stderr.trim().split('\n').pop().split(' ').map(Number);
  return { wall, cpu: user + system, mb: Math.round(kb / 1024) };
}

const median = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
const ratios = { wall: [], cpu: [] };
try {
  for (let i = 0; i < pairs; i += 1) {
    const order = i % 2 === 0 ? [other, mine] : [mine, other];
    const got = {};
    for (const bin of order) got[bin] = run(bin);
    const [a, b] = [got[mine], got[other]];
    ratios.wall.push(a.wall / b.wall);
    ratios.cpu.push(a.cpu / b.cpu);
    const cpu = `CPU ${a.cpu.toFixed(2)} s / ${b.cpu.toFixed(2)} s`;
    console.log(`pair ${i + 1}: wall ${a.wall} s / ${b.wall} s, ${cpu}, peak RSS ${a.mb} MB / ${b.mb} MB`);
  }
  const strip = (f) => readFileSync(f, 'utf8').replace(/^! (Last modified|Compiled by).*\n/gm, '');
  const same = strip(outOf(mine)) === strip(outOf(other));
  console.log(
    `this build / the other: wall ${median(ratios.wall).toFixed(3)}x, CPU ${median(ratios.cpu).toFixed(3)}x ` +
      `(medians of ${pairs} pairs); ` +
      `${same ? 'same output' : 'OUTPUTS DIFFER'}; load average ${loadavg()[0].toFixed(2)}`,
  );
  if (!same) process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
