import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCli } from '../support/cli.js';

const FIXTURE = resolve(import.meta.dirname, '../fixtures/explain');
const CONFIG = join(FIXTURE, 'config.json');
const A = join(FIXTURE, 'lists/a.txt');
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'flc-explain-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('flc explain', () => {
  test('blocked: exit 0, the deciding rule with its source and line, and what was removed on the way', async () => {
    // -c resolves the configuration's relative paths against the working directory, as compile does.
    const result = await runCli(['explain', 'ads.example.org', '-c', CONFIG], { cwd: FIXTURE });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      [
        'ads.example.org: blocked (adblock format)',
        `decided by ||example.org^  (${A}:3)`,
        'kept rules about it:',
        `  ||example.org^  (${A}:3): blocks example.org and its subdomains`,
        `  0.0.0.0 ads.example.org  (${A}:5): blocks ads.example.org`,
        'removed on the way:',
        `  0.0.0.0 ads.example.org  (${A}:2): Deduplicate: a later copy of this rule is kept (duplicate)`,
        '',
      ].join('\n'),
    );
    expect(result.stderr).toBe('');
  });

  test('not blocked: exit 3, with --json the explanation as data', async () => {
    const result = await runCli(['explain', 'tracker.example.net', '-c', CONFIG, '--json'], { cwd: FIXTURE });
    expect(result.code).toBe(3);
    const json = JSON.parse(result.stdout);
    expect(json).toMatchObject({ domain: 'tracker.example.net', format: 'adblock', blocked: false, decidedBy: null });
    expect(json.removed).toEqual([
      {
        source: A,
        line: 4,
        text: '||tracker.example.net^$media',
        name: 'tracker.example.net',
        kind: 'block',
        effect: 'conditional',
        subdomains: true,
        important: false,
        modifiers: ['media'],
        transformation: 'Validate',
        code: 'invalid-rule',
        reason: 'unsupported modifier $media',
      },
    ]);
  });

  test('--format: the answer for that output; --from-report: the same answer from a report compile wrote', async () => {
    const hosts = await runCli(['explain', 'www.example.org', '-c', CONFIG, '--format', 'hosts', '--json'], {
      cwd: FIXTURE,
    });
    expect(hosts.code).toBe(3);
    expect(JSON.parse(hosts.stdout).removed[0].code).toBe('format-narrowed');
    const report = join(dir, 'report.json');
    const compiled = await runCli(
      ['compile', '-c', CONFIG, '--format', 'hosts', '--report', report, '-o', join(dir, 'l')],
      { cwd: FIXTURE },
    );
    expect(compiled.code, compiled.stderr).toBe(0);
    const fromReport = await runCli(['explain', 'www.example.org', '--from-report', report, '--json']);
    expect(fromReport.code).toBe(3);
    expect(fromReport.stdout).toBe(hosts.stdout);
    const blocked = await runCli(['explain', 'example.org', '--from-report', report]);
    expect(blocked.code).toBe(0);
    expect(blocked.stdout).toMatch(/^example\.org: blocked \(hosts format\)\n/);
  });

  test.each([
    [['explain', 'not a domain', '-c', CONFIG], 2, /^Error: "not a domain" is not a domain name$/m],
    [
      ['explain', 'a.example', '--from-report', 'DIR/none.json'],
      2,
      /^Error: cannot read the report .*none\.json: no such file$/m,
    ],
    [['explain', 'a.example', '--from-report', 'DIR/old.json'], 2, /has no "kept" rules or "format"/],
    [['explain', 'a.example', '--from-report', 'DIR/old.json', '-c', CONFIG], 2, /cannot also be provided/],
    [['explain', 'a.example', '-c', 'DIR/missing-source.json'], 1, /^Error: Source .*nope\.txt failed: /m],
    [['explain'], 2, /Missing 1 required arg/],
    // In a folder without a configuration: explain has no -i; its other way in is a report.
    [['explain', 'a.example'], 2, /^Error: no configuration: pass -c FILE or --from-report FILE, or add flc/m],
  ])('%j exits %i', async (args, code, message) => {
    writeFileSync(join(dir, 'old.json'), JSON.stringify({ removed: [], sources: [], transformations: [] }));
    writeFileSync(
      join(dir, 'missing-source.json'),
      JSON.stringify({ name: 'x', sources: [{ source: join(dir, 'nope.txt') }] }),
    );
    const result = await runCli(
      args.map((a) => a.replace('DIR/', `${dir}/`)),
      { cwd: dir },
    );
    expect(result.code, result.stderr).toBe(code);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
  });
});
