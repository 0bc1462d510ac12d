#!/usr/bin/env node
// `flc ast-walk LIST > /dev/null` against AGTree parsing LIST alone, whole processes, runs
// interleaved (baseline, flc, baseline, …) so that a change in the machine's speed hits both;
// the ratio is the median of the per-pair ratios. flc runs as installed (with its manifest).
// Usage: node bench/ast-walk/run.js [LIST] [--runs N]
import { spawnSync } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { corpusDir } from '../corpus.js';
import { withManifest } from '../shipped.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const list = args.find((a) => !a.startsWith('--') && !/^\d+$/.test(a)) ?? join(corpusDir(), 'easylist.txt');
const runs = Number(args[args.indexOf('--runs') + 1]) || 5;

function time(cmdArgs) {
  const devnull = openSync('/dev/null', 'w');
  const started = process.hrtime.bigint();
  const r = spawnSync(process.execPath, cmdArgs, { stdio: ['ignore', devnull, 'pipe'] });
  closeSync(devnull);
  if (r.status !== 0) throw new Error(`${cmdArgs.join(' ')} failed: ${r.stderr}`);
  return Number(process.hrtime.bigint() - started) / 1e9;
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const bases = [];
const walks = [];
withManifest(ROOT, () => {
  for (let i = 0; i < runs; i += 1) {
    bases.push(time([join(ROOT, 'bench/ast-walk/agtree-only.js'), list]));
    walks.push(time([join(ROOT, 'bin/run.js'), 'ast-walk', list]));
  }
});
const base = median(bases);
const walk = median(walks);
const ratio = median(walks.map((w, i) => w / bases[i]));
const table = [
  `### ${new Date().toISOString().slice(0, 10)} — ast-walk`,
  '',
  `Median of ${runs} interleaved runs, whole processes, output to /dev/null; ` +
    'flc as installed (with its oclif manifest).',
  '',
  '| what | wall | note |',
  '|---|---|---|',
  `| AGTree alone, FilterListParser on ${list.split('/').pop()} | ${base.toFixed(2)} s | baseline |`,
  `| \`flc ast-walk ${list.split('/').pop()}\` | ${walk.toFixed(2)} s | ` +
    `${ratio.toFixed(2)}x the baseline (median of the per-pair ratios; target <= 1.5x) |`,
  '',
].join('\n');
console.log(table);
