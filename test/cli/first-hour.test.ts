import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

// What a newcomer meets first: the README's quick start, standard input, the success line and -v's counts.
const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/run.js');
const OCLIF = join(ROOT, 'test/support/oclif-run.js');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'flc-first-hour-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const flc = (entry: string, args: string[], options: { cwd?: string; input?: string } = {}) =>
  spawnSync(process.execPath, [entry, ...args], { encoding: 'utf8', cwd: options.cwd ?? dir, input: options.input });

describe("a newcomer's first hour", () => {
  test("the README's quick start compiles the examples and leaves no file in the repository", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const line = /^\(cd examples && node \.\.\/bin\/run\.js (.*?)\)\s+#/m.exec(readme);
    expect(line, 'the quick start command').not.toBeNull();
    const before = readdirSync(join(ROOT, 'examples')).sort();
    const run = flc(BIN, line![1].split(' '), { cwd: join(ROOT, 'examples') });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('! Title: Example blocklist');
    expect(readdirSync(join(ROOT, 'examples')).sort()).toEqual(before);
    expect(readdirSync(ROOT)).not.toContain('list.txt');
  });

  test.each([
    ['bin/run.js', BIN],
    ['oclif', OCLIF],
  ])('-i - reads the list from standard input (%s)', (_, entry) => {
    const input = '0.0.0.0 ads.example.com\n# comment\n0.0.0.0 ads.example.com\n0.0.0.0 b.example.org\n';
    const run = flc(entry, ['compile', '-i', '-', '-q'], { input });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/\n\|\|ads\.example\.com\^\n\|\|b\.example\.org\^\n$/);
    const adblock = flc(entry, ['compile', '-i', '-', '-t', 'adblock', '-o', 'stdin.txt'], { input: '||x.example^\n' });
    expect(adblock.status, adblock.stderr).toBe(0);
    expect(readFileSync(join(dir, 'stdin.txt'), 'utf8')).toMatch(/\n\|\|x\.example\^\n$/);
    // One rule, one source line: singular.
    expect(adblock.stderr).toContain('source 1/1 loaded: - (1 line, ');
    expect(adblock.stderr).toMatch(/flc: wrote 1 rule \(\d+ lines\) to stdin\.txt\n$/);
  });

  test("-v's counts add up: the sources' lines plus their header lines are the list's first count", () => {
    const run = flc(BIN, ['-c', 'flc.config.json', '-v', '-o', join(dir, 'v.txt')], { cwd: join(ROOT, 'examples') });
    expect(run.status, run.stderr).toBe(0);
    const lines = run.stderr.split('\n');
    // Each source's last step says what it gives the list.
    const last = new Map<string, number>();
    for (const l of lines) {
      const m = /^flc: source (\d+): .* -> (\d+) lines/.exec(l);
      if (m) last.set(m[1], Number(m[2]));
    }
    const joined = lines
      .map((l) => /^flc: list: (\d+) lines from (\d+) sources \+ (\d+) source header lines = (\d+) lines$/.exec(l))
      .find(Boolean)!;
    expect(joined, run.stderr).toBeTruthy();
    const [fromSources, sources, headers, total] = joined.slice(1).map(Number);
    expect(sources).toBe(2);
    expect(fromSources).toBe([...last.values()].reduce((a, b) => a + b, 0));
    expect(fromSources + headers).toBe(total);
    const first = lines.map((l) => /^flc: list: \S+ (\d+) -> \d+ lines/.exec(l)).find(Boolean)!;
    expect(Number(first[1])).toBe(total);
    // Engine internals are not warnings: none without -v.
    const plain = flc(BIN, ['-c', 'flc.config.json', '-o', join(dir, 'p.txt')], { cwd: join(ROOT, 'examples') });
    expect(plain.stderr).not.toMatch(/source header|on strings/);
  });
});
