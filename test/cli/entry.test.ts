import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import Compile from '../../src/commands/compile.js';
import Explain from '../../src/commands/explain.js';
import { runFlc } from '../support/two-clis.js';

const ROOT = resolve(import.meta.dirname, '../..');
// CommonJS for bin/run.js; built by `npm run build` (pretest).
const { entryArgv } = createRequire(import.meta.url)(join(ROOT, 'dist/cli/entry-argv.cjs')) as {
  entryArgv: (argv: string[]) => { argv: string[]; version: boolean };
};
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'flc-entry-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('entryArgv: what the words after flc mean', () => {
  test.each([
    [
      ['-c', 'a.json', '-o', 'out.txt'],
      ['compile', '-c', 'a.json', '-o', 'out.txt'],
    ],
    [
      ['-i', 'a.txt', '-i', 'b.txt', '-t', 'hosts'],
      ['compile', '-i', 'a.txt', '-i', 'b.txt', '-t', 'hosts'],
    ],
    [['-v'], ['compile', '-v']],
    [['-h'], ['--help']],
    [['--help'], ['--help']],
    [
      ['-c', 'a.json', '-h'],
      ['compile', '-c', 'a.json', '-h'],
    ],
    [
      ['compile', '-c', 'a.json'],
      ['compile', '-c', 'a.json'],
    ],
    [
      ['help', 'compile'],
      ['help', 'compile'],
    ],
    [[], []],
  ])('%j -> %j', (argv, expected) => {
    expect(entryArgv(argv)).toEqual({ argv: expected, version: false });
  });

  test('--version and version alone ask for the version only', () => {
    expect(entryArgv(['--version']).version).toBe(true);
    expect(entryArgv(['version']).version).toBe(true);
    expect(entryArgv(['-c', 'a.json', '--version'])).toEqual({
      argv: ['compile', '-c', 'a.json', '--version'],
      version: false,
    });
  });
});

describe('help, version and mistakes', () => {
  test('flc help compile, flc compile -h and flc -c x -h show the compile help', async () => {
    for (const args of [
      ['help', 'compile'],
      ['compile', '-h'],
      ['-c', 'x.json', '-h'],
    ]) {
      const run = await runFlc(args, dir);
      expect(run.code, args.join(' ')).toBe(0);
      expect(run.stdout).toContain('$ flc compile');
      expect(run.stdout).toContain('--report');
    }
  });

  test('help never splits a word: every node type name and flag appears whole', async () => {
    const { NODE_TYPES } = await import('../../src/core/ast/node-types.js');
    for (const args of [
      ['compile', '--help'],
      ['ast-walk', '--help'],
    ]) {
      const run = await runFlc(args, dir);
      expect(run.code).toBe(0);
      for (const type of NODE_TYPES) expect(run.stdout, `${args[0]}: ${type}`).toMatch(new RegExp(`\\b${type}\\b`));
    }
  });

  test('--version, version and compile --version print the bare version; version --verbose the details', async () => {
    const runs = await Promise.all(
      [['version'], ['--version'], ['compile', '--version'], ['-c', 'x.json', '--version']].map((a) => runFlc(a, dir)),
    );
    for (const run of runs) expect([run.code, run.stdout]).toEqual([0, `${VERSION}\n`]);
    const verbose = await runFlc(['version', '--verbose'], dir);
    expect(verbose.stdout).toBe(`flc/${VERSION} ${process.platform}-${process.arch} node-${process.version}\n`);
  });

  test('a mistyped command gets a suggestion, one line, exit 2', async () => {
    const run = await runFlc(['comple', '-c', 'x.json'], dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'Error: "comple" is not a flc command. Did you mean "compile"? See "flc help" for the list.\n',
    );
    const far = await runFlc(['frobnicate'], dir);
    expect(far.stderr).not.toContain('Did you mean');
  });

  test('an unknown flag is one line with a suggestion and a pointer to --help, never the usage', async () => {
    const typo = await runFlc(['-c', 'x.json', '--reprot', 'r.json'], dir);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe('Error: Nonexistent flag: --reprot. Did you mean --report? See "flc compile --help".\n');
    const bad = await runFlc(['compile', '--format', 'xml'], dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).not.toContain('USAGE');
    const both = await runFlc(['-c', 'a.json', '-i', 'b.txt'], dir);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/^Error: --\w+=\S+ cannot also be provided when using --(config|input)/);
    expect(both.stderr).not.toContain('USAGE');
  });

  test('every example of compile --help and explain --help runs as written, in the examples folder', async () => {
    const examples = join(dir, 'examples');
    cpSync(join(ROOT, 'examples'), examples, { recursive: true });
    expect(Compile.examples).toHaveLength(5);
    // explain's last example reads the report compile's third one writes; explain exits 3 for "not blocked".
    for (const example of [...(Compile.examples as string[]), ...(Explain.examples as string[])]) {
      const match = /^cd examples && <%= config\.bin %> (.*?)(?: > (\S+))?$/.exec(example);
      expect(match, example).not.toBeNull();
      const [, words, redirect] = match!;
      const run = await runFlc(words.split(' '), examples);
      expect(run.code, `${example}: ${run.stderr}`).toBe(words.includes('video.example.org') ? 3 : 0);
      if (redirect) writeFileSync(join(examples, redirect), run.stdout);
      for (const named of words.split(' ').filter((w) => /\.(json|yaml|txt)$/.test(w))) {
        expect(existsSync(join(examples, named)), named).toBe(true);
      }
    }
    expect(readFileSync(join(examples, 'list.txt'), 'utf8')).toContain('||ads.example.com^');
  });

  test('a compile to a file loads no module it does not use: no terminal, resolver, network or crypto', () => {
    // What each loads costs every compile its start-up time (readline for a progress bar, the
    // resolver for the dead-domain check, standard output opened by a colour library).
    const list = join(dir, 'loaded-list.txt');
    writeFileSync(list, '||a.example^\n');
    const probe = join(dir, 'loaded.cjs');
    writeFileSync(
      probe,
      "const loaded = () => process.moduleLoadList.filter((m) => m.startsWith('NativeModule '));\n" +
        "process.on('exit', () => require('node:fs').writeSync(2, JSON.stringify(loaded())));",
    );
    const run = spawnSync(
      process.execPath,
      ['-r', probe, join(ROOT, 'bin/run.js'), '-i', list, '-o', join(dir, 'loaded-out.txt'), '-q'],
      {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    expect(run.status, run.stderr).toBe(0);
    const loaded = (JSON.parse(run.stderr) as string[]).map((m) => m.slice('NativeModule '.length));
    expect(loaded).toContain('vm');
    for (const unused of ['readline', 'net', 'crypto', 'dns/promises', 'tty'])
      expect(loaded, unused).not.toContain(unused);
  });

  test('a discovered configuration resolves its sources against its own folder', async () => {
    const project = join(dir, 'project');
    mkdirSync(join(project, 'lists'), { recursive: true });
    writeFileSync(join(project, 'lists/hosts.txt'), '0.0.0.0 found.example\n');
    writeFileSync(
      join(project, 'flc.config.json'),
      JSON.stringify({ name: 'D', sources: [{ source: 'lists/hosts.txt' }] }),
    );
    const fromRoot = await runFlc(['compile', '-q'], project);
    expect(fromRoot.code, fromRoot.stderr).toBe(0);
    expect(fromRoot.stdout).toContain('0.0.0.0 found.example');
    const named = await runFlc(['-c', 'project/flc.config.json', '-q'], dir);
    expect(named.code).toBe(1);
    expect(named.stderr).toContain(`no such file: ${join(dir, 'lists/hosts.txt')}`);
  });
});
