#!/usr/bin/env node
// Compile benchmark, whole processes, start-up included:
//   1. 1,000,000 generated lines, the CONTRACT's transformation set: wall time and peak RSS;
//   2. 300,000 generated lines: flc against @adguard/hostlist-compiler 2.1.1, runs interleaved
//      (flc, reference, flc, …) so that a change in the machine's speed hits both alike;
//   3. `flc --version` against a bare `node -e ''`.
// Usage: node bench/compile/run.js [--runs N] [--skip-reference] [--write]
// --write appends the results table to bench/RESULTS.md.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync, appendFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpus, totalmem } from 'node:os';
import { readFileSync } from 'node:fs';
import { syntheticLines } from './generate.js';
import { withManifest } from '../shipped.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TMP = join(ROOT, 'bench/.tmp');
const FLC = join(ROOT, 'bin/run.js');
const REFERENCE = join(ROOT, 'node_modules/@adguard/hostlist-compiler/src/cli.js');
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;
const args = process.argv.slice(2);
const runs = Number(args[args.indexOf('--runs') + 1]) || 3;
const TRANSFORMATIONS = [
  'RemoveComments',
  'Compress',
  'Validate',
  'Deduplicate',
  'RemoveEmptyLines',
  'TrimLines',
  'InsertFinalNewLine',
];

function ensureInput(count) {
  const file = join(TMP, `synthetic-${count}.txt`);
  if (!existsSync(file)) {
    const lines = [];
    for (const line of syntheticLines(count)) lines.push(line);
    writeFileSync(file, `${lines.join('\n')}\n`);
  }
  const config = join(TMP, `config-${count}.json`);
  writeFileSync(
    config,
    JSON.stringify({ name: 'Bench', sources: [{ source: file }], transformations: TRANSFORMATIONS }),
  );
  return config;
}

/** Runs a command, returning wall seconds and peak RSS in MB (when /usr/bin/time exists). */
function measure(cmd, cmdArgs) {
  const started = process.hrtime.bigint();
  const r = TIME
    ? spawnSync(TIME, ['-f', '%M', cmd, ...cmdArgs], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } })
    : spawnSync(cmd, cmdArgs, { encoding: 'utf8' });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (r.status !== 0) throw new Error(`${cmd} ${cmdArgs.join(' ')} failed:\n${r.stderr}`);
  const rssKb = TIME ? Number(r.stderr.trim().split('\n').pop()) : NaN;
  return { seconds, rssMb: rssKb / 1024 };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const flcOnce = (config, out) => measure(process.execPath, [FLC, 'compile', '-c', config, '-o', out, '-q']);

function summarise(samples, count) {
  const seconds = median(samples.map((s) => s.seconds));
  return { seconds, rssMb: Math.max(...samples.map((s) => s.rssMb)), rulesPerSecond: count / seconds };
}

/** CPU time the hypervisor gave to others (steal), from /proc/stat; null where unavailable. */
function cpuTimes() {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return { steal: f[7], total: f.reduce((a, b) => a + b, 0) };
  } catch {
    return null;
  }
}

mkdirSync(TMP, { recursive: true });
const rows = [];
const cpuBefore = cpuTimes();

withManifest(ROOT, () => {
  const big = ensureInput(1_000_000);
  const m = summarise(
    Array.from({ length: runs }, () => flcOnce(big, join(TMP, 'out-1m.txt'))),
    1_000_000,
  );
  rows.push([
    'flc, 1,000,000 lines',
    `${m.seconds.toFixed(2)} s`,
    `${m.rssMb.toFixed(0)} MB`,
    `${Math.round(m.rulesPerSecond).toLocaleString('en')} lines/s`,
    'target <= 3 s, <= 400 MB',
  ]);

  const mid = ensureInput(300_000);
  const flcSamples = [];
  const refSamples = [];
  for (let i = 0; i < runs; i += 1) {
    flcSamples.push(flcOnce(mid, join(TMP, 'out-300k.txt')));
    if (!args.includes('--skip-reference'))
      refSamples.push(measure(process.execPath, [REFERENCE, '-c', mid, '-o', join(TMP, 'out-300k-ref.txt')]));
  }
  const f = summarise(flcSamples, 300_000);
  rows.push([
    'flc, 300,000 lines',
    `${f.seconds.toFixed(2)} s`,
    `${f.rssMb.toFixed(0)} MB`,
    `${Math.round(f.rulesPerSecond).toLocaleString('en')} lines/s`,
    '',
  ]);
  if (refSamples.length > 0) {
    const r = summarise(refSamples, 300_000);
    const ratios = refSamples.map((ref, i) => ref.seconds / flcSamples[i].seconds);
    rows.push([
      'reference 2.1.1, 300,000 lines',
      `${r.seconds.toFixed(2)} s`,
      `${r.rssMb.toFixed(0)} MB`,
      `${Math.round(r.rulesPerSecond).toLocaleString('en')} lines/s`,
      `flc is ${median(ratios).toFixed(1)}x faster (median of the ${ratios.length} run pairs: ` +
        `${ratios.map((x) => x.toFixed(1)).join(', ')}; target >= 20x)`,
    ]);
  }

  // Interleaved too: bare node, flc --version, bare node, …
  const startNode = [];
  const startFlc = [];
  for (let i = 0; i < 7; i += 1) {
    startNode.push(measure(process.execPath, ['-e', '']).seconds);
    startFlc.push(measure(process.execPath, [FLC, '--version']).seconds);
  }
  rows.push([
    '`flc --version` start',
    `${median(startFlc).toFixed(3)} s`,
    '',
    '',
    `bare node ${median(startNode).toFixed(3)} s: ${(median(startFlc) / median(startNode)).toFixed(2)}x (target <= 2x)`,
  ]);
});

const cpuAfter = cpuTimes();
const steal =
  cpuBefore && cpuAfter ? (100 * (cpuAfter.steal - cpuBefore.steal)) / (cpuAfter.total - cpuBefore.total) : NaN;
const memory = `${(totalmem() / 2 ** 30).toFixed(0)} GiB`;
const machine = `${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${memory}, Node ${process.version}`;
const table = [
  `### ${new Date().toISOString().slice(0, 10)} — ${machine}`,
  '',
  `Median of ${runs} runs (whole processes, start-up included, as installed: with the oclif manifest); ` +
    'peak RSS is the largest of them. ' +
    `CPU steal during the run: ${steal.toFixed(0)}% (time the VM's host gave to other guests).`,
  '',
  '| what | wall | peak RSS | throughput | note |',
  '|---|---|---|---|---|',
  ...rows.map((r) => `| ${r.join(' | ')} |`),
  '',
].join('\n');
console.log(table);
if (args.includes('--write')) appendFileSync(join(ROOT, 'bench/RESULTS.md'), `\n${table}`);
