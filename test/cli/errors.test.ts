import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runFlc } from '../support/two-clis.js';

/** Errors a person can read: where, what, one line per failure, never wrapped, never twice. */
let dir: string;
const write = (name: string, text: string) => writeFileSync(join(dir, name), text);

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'flc-errors-'));
  write('h.txt', '0.0.0.0 a.example.com\n||b.example^$media\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const errorLines = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('Error: '));

describe('configuration syntax errors: the whole parser message, line and column, a code frame', () => {
  test.each([
    ['bad.json', '{\n  "name": "x",\n  "sources": [\n    {"source": "h.txt",}\n  ]\n}\n', /line 4 column 24/, '> 4 |'],
    ['bad.yaml', 'name: x\nsources:\n  - source: h.txt\n   type: hosts\n', /at line 4, column 1/, 'type: hosts'],
    ['bad.toml', 'name = "x"\n[[sources]]\nsource = h.txt\n', /at row 3, col 10/, '3> source = h.txt'],
    // V8 gives no position for an unexpected token: the line and column are still there.
    [
      'comma.json',
      '{\n  "name": "x",\n  "sources": [ { "source": "h.txt" }, ]\n}\n',
      /token '\]' \(line 3 column 39\)/,
      '> 3 |',
    ],
    ['word.json', '{"name": "x", "sources": tru}', /token '\}' \(line 1 column 26\)/, '> 1 |'],
  ])('%s', async (file, text, where, frame) => {
    write(file, text);
    const run = await runFlc(['-c', file], dir);
    expect(run.code).toBe(2);
    expect(errorLines(run.stderr)).toHaveLength(1);
    expect(run.stderr).toMatch(where);
    expect(run.stderr).toContain(frame);
    expect(run.stderr).toMatch(/\n\s*\|?\s*\^/);
    // Not cut after the first line: the frame follows it.
    expect(run.stderr.trim().split('\n').length).toBeGreaterThan(2);
  });
});

describe('what failed, named and suggested', () => {
  test('a --timeout that is not a positive number is a usage error (exit 2), named', async () => {
    const run = await runFlc(['-i', 'h.txt', '--timeout', '-1', '-o', 'out.txt'], dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--timeout must be a positive number of seconds, got "-1"');
  });

  test('unknown keys and transformation names get a "did you mean", one unwrapped line each', async () => {
    write(
      'keys.json',
      JSON.stringify({
        name: 'x',
        sources: [{ source: 'h.txt', transformation: ['Validate'] }],
        transformations: ['RemoveComents', 'Validat'],
      }),
    );
    const run = await runFlc(['-c', 'keys.json'], dir);
    expect(run.code).toBe(2);
    const at = 'Error: invalid configuration in keys.json:';
    expect(errorLines(run.stderr)).toEqual([
      `${at} source "h.txt": unknown key "transformation" (did you mean "transformations"?)`,
      `${at} transformations[0]: unknown transformation "RemoveComents". Did you mean "RemoveComments"?`,
      `${at} transformations[1]: unknown transformation "Validat". Did you mean "Validate"?`,
    ]);
    expect(run.stderr.split('\n').filter((l) => l !== '')).toHaveLength(3);
  });

  test('one mistake over many sources is one line naming each source by name or path, not by index', async () => {
    const sources = Array.from({ length: 42 }, (_, i) => ({
      ...(i % 2 === 0 ? { name: `List ${i}` } : {}),
      source: `lists/${i}.txt`,
      transformations: ['RemoveComments', 'Validat'],
    }));
    sources[5] = { source: 'lists/5.txt', transformations: ['Validate'], exclusion: ['x'] } as never;
    write('many.json', JSON.stringify({ name: 'x', sources }));
    const run = await runFlc(['-c', 'many.json'], dir);
    expect(run.code).toBe(2);
    const labels = sources.flatMap((s, i) => (i === 5 ? [] : [JSON.stringify(i % 2 === 0 ? `List ${i}` : s.source)]));
    expect(errorLines(run.stderr)).toEqual([
      `Error: invalid configuration in many.json: sources ${labels.join(', ')}: transformations[1]: ` +
        'unknown transformation "Validat". Did you mean "Validate"?',
      'Error: invalid configuration in many.json: source "lists/5.txt": unknown key "exclusion" ' +
        '(did you mean "exclusions"?)',
    ]);
    expect(run.stderr).not.toMatch(/sources\[\d+\]/);
  });

  test('a "$schema" key (for editors) is accepted and ignored', async () => {
    const config = {
      $schema: './node_modules/flc/dist/configuration.schema.json',
      name: 'x',
      sources: [{ source: 'h.txt' }],
    };
    write('schema.json', JSON.stringify(config));
    write('schema.yaml', `$schema: ${config.$schema}\nname: x\nsources: [{source: h.txt}]\n`);
    for (const file of ['schema.json', 'schema.yaml']) {
      const run = await runFlc(['-c', file, '-q'], dir);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('! Title: x');
      expect(run.stdout).not.toContain('schema');
    }
  });

  test('a missing exclusions file is called an exclusions file, not a source', async () => {
    write('excl.json', JSON.stringify({ name: 'x', sources: [{ source: 'h.txt' }], exclusions_sources: ['nope.txt'] }));
    const run = await runFlc(['-c', 'excl.json'], dir);
    expect(run.code).toBe(1);
    expect(errorLines(run.stderr)).toEqual([
      `Error: Exclusions file nope.txt failed: no such file: ${join(dir, 'nope.txt')}`,
    ]);
  });

  test('a failed source is printed once, progress or not', async () => {
    write('miss.json', JSON.stringify({ name: 'x', sources: [{ source: 'h.txt' }, { source: 'missing.txt' }] }));
    for (const quiet of [[], ['-q']]) {
      const run = await runFlc(['-c', 'miss.json', ...quiet], dir);
      expect(run.code).toBe(1);
      expect(run.stderr.split('\n').filter((l) => l.includes('missing.txt'))).toHaveLength(1);
    }
  });

  test('ast-walk of a missing file says so, without a raw ENOENT', async () => {
    const run = await runFlc(['ast-walk', 'missing.txt'], dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('Error: no such file: missing.txt\n');
  });
});

describe('-q silences progress and the success line, never a warning', () => {
  test('a skipped source and rules --format hosts cannot hold are warned about under -q', async () => {
    write(
      'skip.json',
      JSON.stringify({ name: 'x', sources: [{ source: 'h.txt' }, { source: 'gone.txt' }], onSourceError: 'skip' }),
    );
    const run = await runFlc(['-c', 'skip.json', '--format', 'hosts', '-o', 'out.txt', '-q'], dir);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/warning: Source gone\.txt failed: .* \(skipped\)/);
    expect(run.stderr).toMatch(/warning: 1 rule\(s\) cannot be expressed in hosts format/);
    expect(run.stderr).not.toContain('wrote');
    expect(run.stderr).not.toContain('loaded');
    const loud = await runFlc(['-c', 'skip.json', '--format', 'hosts', '-o', 'out.txt'], dir);
    expect(loud.stderr).toContain('flc: wrote');
  });
});
