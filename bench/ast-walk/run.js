#!/usr/bin/env node
// `flc ast-walk LIST > /dev/null` against AGTree parsing LIST alone, whole processes.
// Usage: node bench/ast-walk/run.js [LIST] [--runs N] [--write]
import { spawnSync } from 'node:child_process';
import { appendFileSync, openSync, closeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const list = args.find((a) => !a.startsWith('--') && !/^\d+$/.test(a)) ?? resolve(ROOT, '../shared/corpus/easylist.txt');
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

const base = median(Array.from({ length: runs }, () => time([join(ROOT, 'bench/ast-walk/agtree-only.js'), list])));
const walk = median(Array.from({ length: runs }, () => time([join(ROOT, 'bin/run.js'), 'ast-walk', list])));
const table = [
  `### ${new Date().toISOString().slice(0, 10)} — ast-walk`,
  '',
  `Median of ${runs} runs, whole processes, output to /dev/null.`,
  '',
  '| what | wall | note |',
  '|---|---|---|',
  `| AGTree alone, FilterListParser on ${list.split('/').pop()} | ${base.toFixed(2)} s | baseline |`,
  `| \`flc ast-walk ${list.split('/').pop()}\` | ${walk.toFixed(2)} s | ${(walk / base).toFixed(2)}x the baseline (target <= 1.5x) |`,
  '',
].join('\n');
console.log(table);
if (args.includes('--write')) appendFileSync(join(ROOT, 'bench/RESULTS.md'), `\n${table}`);
