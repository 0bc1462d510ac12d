#!/usr/bin/env node
// Compile benchmark, whole processes, start-up included. Cases (run one or a few with --only):
//   current-1m       the current bench list (generate.js `syntheticLines`), 1,000,000 lines, flc alone;
//   current-300k     the same list, 300,000 lines, flc against the reference;
//   realistic-300k   the realistic list (`realisticLines`), 300,000 lines, CRLF, against the reference;
//   realistic-1m     the realistic list, 1,000,000 lines, LF, flc alone;
//   corpus           every list of the corpus (FLC_CORPUS) merged (configs.js), against the reference;
//   dns-filter, registry-hosts, registry-mixed, regex-exclusions, regex-inclusion, allow-ip: the
//                    configurations of configs.js, against the reference;
//   version          `flc --version` against a bare `node -e ''`.
// Generated lists use the CONTRACT's transformation set. Against the reference (@adguard/hostlist-compiler
// 2.1.1) runs are interleaved (flc, reference, flc, …) so that a change in the machine's speed hits both
// alike; the ratio is the median of the per-pair ratios. The first pair's outputs are compared with the
// `! Last modified` and `! Compiled by` lines left out; a difference fails the run (exit 1, nothing written).
// Usage: node bench/compile/run.js [--runs N] [--only case,...] [--skip-reference]
// The table printed goes into bench/RESULTS.md by hand: its figures replace those of the rows it measures.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withManifest } from '../shipped.js';
import { CONTRACT_TRANSFORMATIONS, writeConfigs } from './configs.js';
import { writeList } from './generate.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TMP = join(ROOT, 'bench/.tmp');
const FLC = join(ROOT, 'bin/run.js');
const REFERENCE = join(ROOT, 'node_modules/@adguard/hostlist-compiler/src/cli.js');
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;
const CASES = [
  'current-1m',
  'current-300k',
  'realistic-300k',
  'realistic-1m',
  'corpus',
  'dns-filter',
  'registry-hosts',
  'registry-mixed',
  'regex-exclusions',
  'regex-inclusion',
  'allow-ip',
  'version',
];
const CONFIG_CASES = CASES.slice(CASES.indexOf('corpus'), CASES.indexOf('version'));
const args = process.argv.slice(2);
const option = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const runs = Number(option('--runs')) || 3;
const only = option('--only')?.split(',') ?? CASES;
const unknown = only.filter((c) => !CASES.includes(c));
if (unknown.length > 0) {
  console.error(`unknown case ${unknown.join(', ')}; cases: ${CASES.join(', ')}`);
  process.exit(2);
}
const withReference = !args.includes('--skip-reference');
const measured = [];
// The commit measured, read before the first run (HEAD may move while a long run goes on), and
// whether files it tracks were changed: the label the results table carries.
const git = (...a) => spawnSync('git', a, { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
const changed = git('status', '--porcelain', '--untracked-files=no') !== '';
const commit = `${git('rev-parse', '--short', 'HEAD')}${changed ? ' with uncommitted changes' : ''}`;
console.error(`compile bench at ${commit}`);

/** Writes a generated list and its configuration once; returns the configuration's path. */
function generatedConfig(name, count, options) {
  const file = join(TMP, `${name}.txt`);
  if (!existsSync(file)) writeList(file, count, options);
  const config = join(TMP, `config-${name}.json`);
  const body = JSON.stringify({
    name: 'Bench',
    sources: [{ source: file }],
    transformations: CONTRACT_TRANSFORMATIONS,
  });
  writeFileSync(config, body);
  return config;
}

/** Runs a command, returning wall seconds and peak RSS in MB (when /usr/bin/time exists). */
function measure(cmd, cmdArgs) {
  const started = process.hrtime.bigint();
  const options = { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NO_COLOR: '1' } };
  const r = TIME ? spawnSync(TIME, ['-f', '%M %U %S', cmd, ...cmdArgs], options) : spawnSync(cmd, cmdArgs, options);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (r.status !== 0) throw new Error(`${cmd} ${cmdArgs.join(' ')} failed:\n${r.stderr}`);
  const [rssKb, user, system] = TIME ? r.stderr.trim().split('\n').pop().split(' ').map(Number) : [];
  const sample = { seconds, rssMb: rssKb / 1024, cpuSeconds: user + system };
  measured.push(sample);
  return sample;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const flcOnce = (config, out) => measure(process.execPath, [FLC, 'compile', '-c', config, '-o', out, '-q']);
const referenceOnce = (config, out) => measure(process.execPath, [REFERENCE, '-c', config, '-o', out]);

function summarise(samples, count) {
  const seconds = median(samples.map((s) => s.seconds));
  return { seconds, rssMb: Math.max(...samples.map((s) => s.rssMb)), linesPerSecond: count / seconds };
}

/** The machine's CPU counters from /proc/stat (clock ticks, 100 a second); null where unavailable. */
function cpuTimes() {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return { busy: f[0] + f[1] + f[2] + f[5] + f[6], steal: f[7], total: f.reduce((a, b) => a + b, 0) };
  } catch {
    return null;
  }
}

/**
 * What else ran during a case: steal (% of the CPU time the VM's host gave to other guests) and the
 * cores other processes of this machine kept busy on average (its busy time less the bench's own).
 */
function contention(before, samples, after = cpuTimes()) {
  if (!before || !after) return 'contention unknown';
  const steal = (100 * (after.steal - before.steal)) / (after.total - before.total);
  const wall = (after.total - before.total) / 100 / cpus().length;
  const ours = samples.reduce((n, s) => n + s.cpuSeconds, 0);
  const others = Math.max(0, (after.busy - before.busy) / 100 - ours) / wall;
  return `steal ${steal.toFixed(0)}%, other processes ${others.toFixed(2)} cores`;
}

const VOLATILE = /^! (Last modified|Compiled by)/;

/** The first line where two outputs differ, the volatile header lines left out; null when equal. */
function firstDifference(flcFile, referenceFile) {
  const kept = (file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => !VOLATILE.test(l));
  const [a, b] = [kept(flcFile), kept(referenceFile)];
  for (let i = 0; i < Math.max(a.length, b.length); i += 1) {
    if (a[i] !== b[i]) return { index: i, flc: a.slice(i, i + 5), reference: b.slice(i, i + 5) };
  }
  return null;
}

const rows = [];
const differences = [];
const lines = (n) => `${Math.round(n).toLocaleString('en')} lines/s`;
const row = (what, m, count, note = '') =>
  rows.push([what, `${m.seconds.toFixed(2)} s`, `${m.rssMb.toFixed(0)} MB`, lines(m.linesPerSecond ?? count), note]);

function flcAlone(label, config, count, target) {
  const before = cpuTimes();
  const samples = Array.from({ length: runs }, () => flcOnce(config, join(TMP, 'out-flc.txt')));
  row(`flc, ${label}`, summarise(samples, count), count, `${target}; ${contention(before, samples)}`);
}

/** Interleaved pairs flc/reference on one configuration; outputs compared after the first pair. */
function againstReference(name, label, config, count, targetOf) {
  const before = cpuTimes();
  const flcSamples = [];
  const refSamples = [];
  const [flcOut, refOut] = [join(TMP, `out-${name}.txt`), join(TMP, `out-${name}-ref.txt`)];
  for (let i = 0; i < runs; i += 1) {
    flcSamples.push(flcOnce(config, flcOut));
    if (!withReference) continue;
    refSamples.push(referenceOnce(config, refOut));
    if (i > 0) continue;
    const difference = firstDifference(flcOut, refOut);
    if (difference) {
      differences.push({ name, ...difference });
      console.error(
        `OUTPUT DIFFERS on ${name} at output line ${difference.index + 1} (volatile header lines left out)\n` +
          `  flc:       ${JSON.stringify(difference.flc)}\n  reference: ${JSON.stringify(difference.reference)}`,
      );
    }
  }
  const busy = contention(before, [...flcSamples, ...refSamples]);
  const f = summarise(flcSamples, count);
  row(`flc, ${label}`, f, count, withReference ? '' : busy);
  if (!withReference) return;
  const r = summarise(refSamples, count);
  const ratios = refSamples.map((ref, i) => ref.seconds / flcSamples[i].seconds);
  const same = differences.some((d) => d.name === name) ? 'OUTPUT DIFFERS' : 'same output';
  row(
    `reference 2.1.1, ${label}`,
    r,
    count,
    `flc is ${median(ratios).toFixed(1)}x faster (per pair: ${ratios.map((x) => x.toFixed(1)).join(', ')}; ` +
      `${targetOf(r.seconds)}); ${same}; ${busy}`,
  );
}

const overFive = (seconds) =>
  seconds > 5 ? 'reference over 5 s: target >= 10x' : 'reference under 5 s: no target, ratio recorded';

mkdirSync(TMP, { recursive: true });
const cpuBefore = cpuTimes();
const started = Date.now();

withManifest(ROOT, () => {
  const configs = only.some((c) => CONFIG_CASES.includes(c)) ? writeConfigs(TMP) : {};
  for (const name of only) {
    switch (name) {
      case 'current-1m':
        flcAlone('current list, 1,000,000 lines', generatedConfig('synthetic-1000000', 1e6), 1e6, 'target <= 3 s');
        break;
      case 'current-300k':
        againstReference(
          'current-300k',
          'current list, 300,000 lines',
          generatedConfig('synthetic-300000', 3e5),
          3e5,
          () => 'target >= 20x',
        );
        break;
      case 'realistic-300k': {
        const config = generatedConfig('realistic-300000-crlf', 3e5, { realistic: true, crlf: true });
        againstReference('realistic-300k', 'realistic list, 300,000 lines, CRLF', config, 3e5, () => 'target >= 20x');
        break;
      }
      case 'realistic-1m': {
        const config = generatedConfig('realistic-1000000', 1e6, { realistic: true });
        flcAlone('realistic list, 1,000,000 lines', config, 1e6, 'target <= 3 s, <= 400 MB');
        break;
      }
      case 'corpus':
        againstReference(
          'corpus',
          'corpus merged (12 lists)',
          configs.corpus.file,
          configs.corpus.lines,
          () => 'ratio recorded',
        );
        break;
      case 'version': {
        const startNode = [];
        const startFlc = [];
        for (let i = 0; i < 7; i += 1) {
          startNode.push(measure(process.execPath, ['-e', '']).seconds);
          startFlc.push(measure(process.execPath, [FLC, '--version']).seconds);
        }
        const ratio = median(startFlc) / median(startNode);
        rows.push([
          '`flc --version` start',
          `${median(startFlc).toFixed(3)} s`,
          '',
          '',
          `bare node ${median(startNode).toFixed(3)} s: ${ratio.toFixed(2)}x (target <= 2x)`,
        ]);
        break;
      }
      default: {
        const { file, lines: count } = configs[name];
        againstReference(name, `${name} configuration`, file, count, overFive);
      }
    }
  }
});

const busy = contention(cpuBefore, measured);
const memory = `${(totalmem() / 2 ** 30).toFixed(0)} GiB`;
const machine = `${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${memory}, Node ${process.version}`;
const table = [
  `### ${new Date().toISOString().slice(0, 10)} — compile, ${machine} (commit ${commit})`,
  '',
  `\`node bench/compile/run.js --runs ${runs}${only === CASES ? '' : ` --only ${only.join(',')}`}\`. ` +
    `Median of ${runs} runs (whole processes, start-up included, as installed: with the oclif manifest); ` +
    'peak RSS is the largest of them; throughput counts input lines. ' +
    `Contention during the run: ${busy} (steal: CPU time the VM's host gave to other guests; ` +
    "other processes: this machine's busy time less the bench's own, in cores on average), " +
    `${((Date.now() - started) / 60000).toFixed(0)} min in all.`,
  '',
  '| what | wall | peak RSS | throughput | note |',
  '|---|---|---|---|---|',
  ...rows.map((r) => `| ${r.join(' | ')} |`),
  '',
].join('\n');
console.log(table);
if (differences.length > 0) {
  console.error(`output differs from the reference on: ${differences.map((d) => d.name).join(', ')}; not written`);
  process.exit(1);
}
