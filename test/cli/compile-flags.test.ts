import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { Parser } from '@oclif/core';
import Compile from '../../src/commands/compile.js';
import { readPlainCompileArgv, type CompileFlags } from '../../src/cli/compile-flags.js';

// The fast path compiles without oclif when readPlainCompileArgv takes the words; it must then
// read them exactly as oclif's parser does with Compile's flag definitions, and leave every
// word list it is unsure of (null) to oclif, which parses it or reports the error.
const KEYS = [
  'config',
  'input',
  'input-type',
  'output',
  'verbose',
  'quiet',
  'report',
  'format',
  'timeout',
  'retries',
  'concurrency',
  'cache-dir',
  'no-cache',
  'on-source-error',
] as const;

async function oclifFlags(argv: string[]): Promise<Partial<CompileFlags> | Error> {
  try {
    const { flags } = await Parser.parse(argv, { flags: Compile.flags, strict: true });
    if (flags['ast-walk'] || flags['ast-walk-types']) return new Error('walk mode');
    return Object.fromEntries(KEYS.filter((k) => flags[k] !== undefined).map((k) => [k, flags[k]]));
  } catch (error) {
    return error as Error;
  }
}

async function expectLikeOclif(argv: string[]): Promise<CompileFlags | null> {
  const read = readPlainCompileArgv(argv);
  const byOclif = await oclifFlags(argv);
  // Taken means oclif takes it too, with the same values; errors are always oclif's to report.
  if (read !== null) expect(read, JSON.stringify(argv)).toEqual(byOclif);
  return read;
}

describe('the plain compile words are read as oclif reads them', () => {
  test.each([
    [[], {}],
    [['-c', 'flc.yaml'], { config: 'flc.yaml' }],
    [['--config=flc.yaml', '-o', 'out.txt', '-q'], { config: 'flc.yaml', output: 'out.txt', quiet: true }],
    [
      ['-i', 'a.txt', '--input', 'https://x.example/b', '-t', 'adblock', '--format', 'domains'],
      { input: ['a.txt', 'https://x.example/b'], 'input-type': 'adblock', format: 'domains' },
    ],
    [
      ['-c', 'c.json', '--timeout', '2.5', '--retries', '0', '--concurrency', '16', '--no-cache', '-v'],
      { config: 'c.json', timeout: 2.5, retries: 0, concurrency: 16, 'no-cache': true, verbose: true },
    ],
    [
      ['-c', 'c.json', '--report', 'r.json', '--cache-dir', '/tmp/c', '--on-source-error', 'skip'],
      { config: 'c.json', report: 'r.json', 'cache-dir': '/tmp/c', 'on-source-error': 'skip' },
    ],
  ] as [string[], Partial<CompileFlags>][])('%j', async (argv, expected) => {
    const read = await expectLikeOclif(argv);
    expect(read).toMatchObject(expected);
  });

  test.each([
    ['walk mode', ['--ast-walk', '--input', 'x.txt']],
    ['walk flags', ['-c', 'x', '--ast-walk-depth', '2']],
    ['a flag twice', ['-c', 'a.json', '-c', 'b.json']],
    ['-c with -i', ['-c', 'a.json', '-i', 'b.txt']],
    ['grouped short flags', ['-qv', '-c', 'x']],
    ['attached short value', ['-cx.json']],
    ['a positional word', ['-c', 'x', 'extra']],
    ['greedy multiple values', ['-i', 'a.txt', 'b.txt']],
    ['a value that looks like a flag', ['-o', '-q']],
    ['an empty value', ['-c', '']],
    ['a missing value', ['-c']],
    ['an unknown flag', ['--bogus']],
    ['a name Object.prototype has', ['-c', 'x', '--constructor']],
    ['another one, with a value', ['--__proto__', 'x']],
    ['and one more', ['--toString=1']],
    ['help', ['--help']],
    ['a bad choice', ['-i', 'x', '--format', 'csv']],
    ['a bad timeout', ['-i', 'x', '--timeout', '0']],
    ['a bad number', ['-i', 'x', '--retries', '2.5']],
    ['below the minimum', ['-i', 'x', '--concurrency', '0']],
    ['a value on a boolean', ['--quiet=yes']],
    ['the end of flags', ['--', '-c', 'x']],
  ])('leaves %s to oclif', async (_name, argv) => {
    expect(await expectLikeOclif(argv)).toBeNull();
  });

  test('any mix of flags and values: taken only when oclif reads the same', async () => {
    const pair = fc.oneof(
      fc.tuple(
        fc.constantFrom('-c', '--config', '-i', '--input', '-o', '--output', '--report', '--cache-dir'),
        fc.constantFrom('x.json', 'y.txt', 'a b', 'dir/z.yaml', '', '-q'),
      ),
      fc.tuple(
        fc.constantFrom('-t', '--input-type', '--format', '--on-source-error'),
        fc.constantFrom('hosts', 'adblock', 'domains', 'fail', 'skip', 'csv'),
      ),
      fc.tuple(
        fc.constantFrom('--timeout', '--retries', '--concurrency'),
        fc.constantFrom('1', '08', '1.5', '1e2', '30', '0', '-1', 'abc', ' 2'),
      ),
      fc.constantFrom(
        ['-v'],
        ['--verbose'],
        ['-q'],
        ['--quiet'],
        ['--no-cache'],
        ['--config=y.json'],
        ['--timeout=3'],
        ['--format=hosts'],
        ['-x'],
        ['stray'],
      ),
    );
    const argvs = fc.array(pair, { maxLength: 4 }).map((pairs) => pairs.flat());
    let taken = 0;
    await fc.assert(
      fc.asyncProperty(argvs, async (argv) => {
        if ((await expectLikeOclif(argv)) !== null && argv.length >= 2) taken += 1;
      }),
      { numRuns: 800 },
    );
    // Enough of them are taken for the comparison to mean something.
    expect(taken).toBeGreaterThan(80);
  });
});
