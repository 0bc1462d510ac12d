import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import module from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pslPathNames } from '../support/psl-names.js';
import { CORPUS, corpusPath, testCorpus } from '../support/corpus.js';

// bin/run.js runs compile, ast-walk, explain and validate-rule from dist/flc-fast.cjs with a V8 code
// cache. Every case here runs through that path and through oclif's own lookup
// (test/support/oclif-run.js) and must agree on exit code, stdout, stderr and files written.
const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/run.js');
const OCLIF = join(ROOT, 'test/support/oclif-run.js');
const EXAMPLES = join(ROOT, 'examples');
const FIXTURE = join(ROOT, 'test/fixtures/walk/all-node-types.txt');
let dir: string;
let cache: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'flc-fast-'));
  cache = join(dir, 'v8-cache');
  writeFileSync(
    join(dir, 'missing-source.json'),
    JSON.stringify({ name: 'x', sources: [{ source: join(dir, 'nope.txt') }] }),
  );
  // Every name of the Public Suffix List as a rule, and one label below it: the bundle loads
  // tldts' own list only when tldts first looks one up (scripts/bundle.js), and must decide
  // Validate alike.
  const names = pslPathNames().flatMap((name) => [`||${name}^`, `||a.${name}^`, `0.0.0.0 b.${name}`]);
  writeFileSync(join(dir, 'psl.txt'), names.join('\n'));
  // Validate alone: Compress would drop every name under a blocked TLD before Validate saw it.
  writeFileSync(
    join(dir, 'psl.json'),
    JSON.stringify({ name: 'psl', sources: [{ source: join(dir, 'psl.txt') }], transformations: ['Validate'] }),
  );
  writeFileSync(
    join(dir, 'two-validators.yaml'),
    `name: x\nsources: [{source: ${join(EXAMPLES, 'lists/hosts.txt')}}]\n` +
      'transformations: [Validate, ValidateAllowIp]\n',
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  files: Record<string, string>;
}

function run(script: string, args: string[], input?: string): Run {
  const out = mkdtempSync(join(dir, 'out-'));
  const r = spawnSync(process.execPath, [script, ...args.map((a) => a.replaceAll('OUT/', `${out}/`))], {
    // The example configurations' relative paths resolve against the working directory.
    cwd: EXAMPLES,
    input,
    encoding: 'utf8',
    env: {
      ...process.env,
      NO_COLOR: '1',
      SOURCE_DATE_EPOCH: '1700000000',
      NODE_COMPILE_CACHE: cache,
      NODE_DISABLE_COMPILE_CACHE: '',
    },
  });
  // Paths of the output folder and durations differ between any two runs.
  const clean = (text: string) =>
    text
      .replaceAll(out, 'OUT')
      .replace(/\d+(\.\d+)? ?ms\b/g, 'N ms')
      .replace(/"durationMs": [\d.e-]+/g, '"durationMs": N');
  const files = Object.fromEntries(readdirSync(out).map((f) => [f, clean(readFileSync(join(out, f), 'utf8'))]));
  return { code: r.status, stdout: clean(r.stdout), stderr: clean(r.stderr), files };
}

const CASES: [string, string[], string?][] = [
  ['compile to stdout', ['compile', '-c', join(EXAMPLES, 'flc.config.yaml')]],
  [
    'compile to a file with a report',
    ['compile', '-c', join(EXAMPLES, 'flc.config.json'), '-o', 'OUT/list.txt', '--report', 'OUT/report.json', '-v'],
  ],
  ['compile -i in hosts format', ['compile', '-i', join(EXAMPLES, 'lists/hosts.txt'), '--format', 'hosts', '-q']],
  // A real list, with FLC_CORPUS.
  ...(CORPUS === null
    ? []
    : [
        [
          'compile a corpus list (quick mode: Validate, Compress, …)',
          ['compile', '-i', corpusPath('adguard-dns-filter-2019.txt'), '-t', 'adblock', '-q'],
        ] as [string, string[]],
      ]),
  [
    'compile with every value flag, --name=value',
    [
      'compile',
      `--config=${join(EXAMPLES, 'flc.config.json')}`,
      '-o',
      'OUT/list.txt',
      '--timeout',
      '5',
      '--retries',
      '0',
      '--concurrency',
      '2',
      '--no-cache',
      '--on-source-error',
      'skip',
      '--format',
      'domains',
      '-q',
    ],
  ],
  ['compile -i in rpz format', ['compile', '-i', join(EXAMPLES, 'lists/hosts.txt'), '--format', 'rpz', '-q']],
  [
    'compile in hosts format, --hosts-address twice',
    [
      'compile',
      '-c',
      join(EXAMPLES, 'flc.config.json'),
      '--format',
      'hosts',
      '--hosts-address',
      '0.0.0.0',
      '--hosts-address=::',
      '-o',
      'OUT/hosts.txt',
      '--report',
      'OUT/report.json',
    ],
  ],
  ['compile, --hosts-address without hosts (exit 2)', ['compile', '-i', 'x', '--hosts-address', '0.0.0.0']],
  ['compile, no configuration found (exit 2)', ['compile', '-q']],
  ['compile every Public Suffix List name (Validate)', ['compile', '-c', 'DIR/psl.json', '-q']],
  [
    "compile, a flag given twice (oclif's error)",
    ['compile', '-c', join(EXAMPLES, 'flc.config.json'), '-c', join(EXAMPLES, 'flc.config.json')],
  ],
  ['compile, missing configuration (exit 2)', ['compile', '-c', 'DIR/none.json']],
  ['compile, two validators (exit 2)', ['compile', '-c', 'DIR/two-validators.yaml']],
  ['compile, missing source (exit 1, no file)', ['compile', '-c', 'DIR/missing-source.json', '-o', 'OUT/list.txt']],
  ['compile, unknown flag (help)', ['compile', '--bogus']],
  ['compile, bad --timeout', ['compile', '-i', 'x', '--timeout', '-1']],
  ['compile --ast-walk', ['compile', '--ast-walk', '--input', FIXTURE, '--ast-walk-depth', '1']],
  ['compile --ast-walk, bad type', ['compile', '--ast-walk', '--input', FIXTURE, '--ast-walk-types', 'Nope']],
  ['ast-walk FILE', ['ast-walk', FIXTURE, '--types', 'App', '--types', 'Method', '--include-context']],
  ['ast-walk stdin', ['ast-walk', '--max-depth', '2'], '||example.org^$third-party\nexample.org##.ad\n'],
  ['explain, blocked', ['explain', 'ads.example.com', '-c', join(EXAMPLES, 'flc.config.json')]],
  ['explain, not blocked (exit 3) --json', ['explain', 'video.example.org', '-c', 'flc.config.json', '--json']],
  ['explain in hosts format', ['explain', 'sub.ads.example.com', '--format', 'hosts', '-c', 'flc.config.yaml']],
  ['explain, not a domain (exit 2)', ['explain', 'not a domain', '-c', 'flc.config.json']],
  ['explain, missing report (exit 2)', ['explain', 'a.example', '--from-report', 'DIR/none.json']],
  ['validate-rule valid', ['validate-rule', '||example.com^$third-party']],
  ['validate-rule invalid --json', ['validate-rule', 'example.com##', '--json']],
  ['validate-rule strict', ['validate-rule', '||a.com^$frobnicate', '--strict']],
  ['validate-rule test URL', ['validate-rule', '||example.com^', '--test-url', 'https://ads.example.com/x', '--json']],
  ['validate-rule empty (exit 2)', ['validate-rule', '']],
  ['validate-rule missing argument (help)', ['validate-rule']],
  ['validate-rule --help', ['validate-rule', '--help']],
];

describe('the bundled commands behave as oclif runs them', () => {
  testCorpus('a real list is among the cases', () =>
    expect(CASES.some(([name]) => name.includes('corpus'))).toBe(true),
  );

  test.each(CASES)('%s', (_, rawArgs, input) => {
    const args = rawArgs.map((a) => a.replace('DIR/', `${dir}/`));
    const viaOclif = run(OCLIF, args, input);
    // The cache folder is shared: each command's first case compiles the bundle, later ones
    // run the code cached by an earlier case.
    const fast = run(BIN, args, input);
    expect(viaOclif.stdout.length + viaOclif.stderr.length).toBeGreaterThan(0);
    expect(fast.code).toBe(viaOclif.code);
    expect(fast.stdout).toBe(viaOclif.stdout);
    // Sources load concurrently, so one source's lines ("source 2/2 loaded", and with -v
    // "source 2: Exclusions …") may come before or among another's. The per-source lines are put
    // in source order, each source's own lines kept in the order printed, back in their places;
    // all else is compared in order.
    const lines = (text: string) => {
      const all = text.split('\n');
      const sourceOf = (l: string) => /^flc: source (\d+)[/:]/.exec(l)?.[1];
      const grouped = all
        .filter((l) => sourceOf(l) !== undefined)
        .sort((a, b) => Number(sourceOf(a)) - Number(sourceOf(b)));
      return all.map((l) => (sourceOf(l) !== undefined ? grouped.shift()! : l));
    };
    expect(lines(fast.stderr)).toEqual(lines(viaOclif.stderr));
    expect(fast.files).toEqual(viaOclif.files);
    // The bundle ran: its cache exists (Node 22+ keeps its own files there, named its way).
    const named = (f: string) => ('enableCompileCache' in module ? true : f.startsWith(`${args[0]}-`));
    if (!args.includes('--help')) expect(readdirSync(cache).some(named)).toBe(true);
  });
});

describe('the bundle', () => {
  test("builds tldts' Public Suffix List only when tldts first looks a suffix up (scripts/bundle.js)", () => {
    const bundle = readFileSync(join(ROOT, 'dist/flc-fast.cjs'), 'latin1');
    // esbuild's lazy module: initialised where it is required, and nowhere else.
    const inits = bundle.match(/init_trie\(\)/g) ?? [];
    expect(inits).toHaveLength(1);
    expect(bundle).toMatch(/data = \(\) => trie \?\?= \(init_trie\(\), __toCommonJS\(trie_exports\)\);/);
    expect(bundle).toMatch(/lookupInTrie\(hostnameParts, data\(\)\.exceptions, /);
    expect(bundle).toMatch(/lookupInTrie\(hostnameParts, data\(\)\.rules, /);
  });
});
