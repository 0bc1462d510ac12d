// `flc compile`'s publishing options end to end, in-process, against a local list server and a
// stub DNS server: differential updates applied by AdGuard's own updater, the shrink guard, stale
// sources from the HTTP cache, the change summary and the dead-domain check.
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { DiffUpdater } from '@adguard/diff-builder/diff-updater/es';
import { runCli } from '../support/cli.js';
import { startServer, type TestServer } from '../support/http-server.js';
import { startDnsStub } from '../support/dns-stub.js';

let dir: string;
const servers: { close(): Promise<void> }[] = [];
const BIN = resolve(import.meta.dirname, '../../bin/run.js');

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'flc-publish-'));
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const at = (seconds: number) => ({ SOURCE_DATE_EPOCH: String(1_700_000_000 + seconds), GITHUB_STEP_SUMMARY: '' });
const rules = (text: string) => text.split('\n').filter((l) => l !== '' && !l.startsWith('!'));

function config(sources: string[], extra: object = {}): string {
  const file = join(dir, 'flc.config.json');
  writeFileSync(file, JSON.stringify({ name: 'Test list', sources: sources.map((source) => ({ source })), ...extra }));
  return file;
}

/** A list server whose answers the test changes: `bodies[path]` is a body, or a status code. */
async function listServer(bodies: Record<string, string | number>): Promise<TestServer> {
  const server = await startServer((req, res) => {
    const body = bodies[req.url ?? ''];
    if (typeof body === 'number') {
      res.writeHead(body).end('unavailable');
      return;
    }
    if (body === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end(body);
  });
  servers.push(server);
  return server;
}

/** Serves `root`'s files, as a list's host would serve the list and its patches. */
async function fileServer(root: string): Promise<TestServer> {
  const server = await startServer((req, res) => {
    const file = join(root, decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
    if (!existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200).end(readFileSync(file));
  });
  servers.push(server);
  return server;
}

describe('differential updates (--diff-patches)', () => {
  const diffArgs = (patches: string) => ['--diff-patches', patches, '--diff-resolution', 's', '--diff-expiry', '1'];

  test('the line count flc reports is that of the list as written, its Diff-Path header included', async () => {
    const source = join(dir, 'source.txt');
    writeFileSync(source, '||a.example^\n||b.example^\n');
    const out = join(dir, 'list.txt');
    const run = await runCli(['compile', '-c', config([source]), '-o', out, ...diffArgs(join(dir, 'patches'))], {
      env: at(0),
    });
    expect(run.code, run.stderr).toBe(0);
    const written = readFileSync(out, 'utf8').split('\n').length; // no newline after the last line
    expect(run.stderr).toContain(`wrote 2 rules (${written} lines) to ${out}`);
  });

  test("AdGuard's updater applies the patch to the first build and gets the second byte for byte", async () => {
    const source = join(dir, 'source.txt');
    writeFileSync(source, '||a.example^\n||b.example^\n||c.example^\n');
    const cfg = config([source]);
    const out = join(dir, 'list.txt');
    const patches = join(dir, 'patches');
    const first = await runCli(['compile', '-c', cfg, '-o', out, ...diffArgs(patches), '-q'], { env: at(0) });
    expect(first.code, first.stderr).toBe(0);
    const v1 = readFileSync(out, 'utf8');
    expect(v1).toMatch(/^! Diff-Path: patches\/list-s-\d+-1\.patch\n!\n! Title: Test list\n/);
    // The patch names carry the time in seconds; the first version also has to expire for the updater.
    await sleep(1_600);
    writeFileSync(source, '||a.example^\n||c.example^\n||d.example^\n');
    const second = await runCli(['compile', '-c', cfg, '-o', out, ...diffArgs(patches), '-q'], { env: at(60) });
    expect(second.code, second.stderr).toBe(0);
    const v2 = readFileSync(out, 'utf8');
    expect(rules(v2)).toEqual(['||a.example^', '||c.example^', '||d.example^']);
    const oldPatch = v1.split('\n')[0].replace('! Diff-Path: ', '');
    expect(readFileSync(join(dir, oldPatch), 'utf8')).toMatch(/^d\d+ \d+\n/);
    const host = await fileServer(dir);
    const updated = await DiffUpdater.applyPatch({ filterUrl: `${host.url}/list.txt`, filterContent: v1 });
    expect(updated).toBe(v2);
  });

  test('a build that changes only the header writes nothing: no list, no patch', async () => {
    const source = join(dir, 'source.txt');
    writeFileSync(source, '||a.example^\n||b.example^\n');
    const cfg = config([source]);
    const out = join(dir, 'list.txt');
    const patches = join(dir, 'patches');
    expect((await runCli(['compile', '-c', cfg, '-o', out, ...diffArgs(patches), '-q'], { env: at(0) })).code).toBe(0);
    const before = readFileSync(out, 'utf8');
    const mtime = statSync(out).mtimeMs;
    const listed = readdirSync(patches);
    await sleep(1_100);
    const again = await runCli(['compile', '-c', cfg, '-o', out, ...diffArgs(patches)], { env: at(3600) });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('only the header would change');
    expect(readFileSync(out, 'utf8')).toBe(before);
    expect(statSync(out).mtimeMs).toBe(mtime);
    expect(readdirSync(patches)).toEqual(listed);
  });

  test('a list written before --diff-patches was on gets its Diff-Path even when its rules are the same', async () => {
    const source = join(dir, 'source.txt');
    writeFileSync(source, '||a.example^\n');
    const cfg = config([source]);
    const out = join(dir, 'list.txt');
    expect((await runCli(['compile', '-c', cfg, '-o', out, '-q'], { env: at(0) })).code).toBe(0);
    const on = await runCli(['compile', '-c', cfg, '-o', out, ...diffArgs(join(dir, 'patches')), '-q'], { env: at(0) });
    expect(on.code, on.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toMatch(/^! Diff-Path: patches\/list-s-\d+-1\.patch\n/);
  });

  // The builder names a patch by the time unit it is made in. A second change within the unit
  // would get the previous list's patch name: with the patches beside the list the builder refuses
  // it, with them in a folder of their own (examples/ci/publish.sh) it wrote the patch to the new
  // version into the file the new list names again.
  test.each([
    ['beside the list', ''],
    ['in a folder of their own', 'patches'],
  ])('a second change within the hour, patches %s: exit 2, the list and its patches as they were', async (_, sub) => {
    const source = join(dir, 'source.txt');
    const cfg = config([source]);
    const out = join(dir, 'list.txt');
    const patches = join(dir, sub);
    const args = ['compile', '-c', cfg, '-o', out, '--diff-patches', patches, '--diff-resolution', 'h', '-q'];
    const files = () =>
      Object.fromEntries(
        readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((f) => [
          f,
          statSync(join(dir, f)).isFile() ? readFileSync(join(dir, f), 'utf8') : 'dir',
        ]),
      );
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(new Date('2026-03-01T10:10:00Z'));
      writeFileSync(source, '||a.example^\n');
      const first = await runCli(args, { env: at(0) });
      expect(first.code, first.stderr).toBe(0);
      const v1 = readFileSync(out, 'utf8');
      const before = files();
      writeFileSync(source, '||a.example^\n||b.example^\n');
      vi.setSystemTime(new Date('2026-03-01T10:20:00Z'));
      const second = await runCli(args, { env: at(60) });
      expect(second.code, second.stderr).toBe(2);
      expect(second.stderr).toContain('with --diff-resolution h a list can change once an hour');
      expect({ ...files(), 'source.txt': before['source.txt'] }).toEqual(before);
      // An hour later the change goes out, and a client of the first version updates to it.
      vi.setSystemTime(new Date('2026-03-01T11:10:00Z'));
      const third = await runCli(args, { env: at(3600) });
      expect(third.code, third.stderr).toBe(0);
      const v3 = readFileSync(out, 'utf8');
      expect(rules(v3)).toEqual(['||a.example^', '||b.example^']);
      expect(v3.split('\n')[0]).not.toBe(v1.split('\n')[0]);
      const host = await fileServer(dir);
      vi.useRealTimers();
      expect(await DiffUpdater.applyPatch({ filterUrl: `${host.url}/list.txt`, filterContent: v1 })).toBe(v3);
    } finally {
      vi.useRealTimers();
    }
  });

  test("a source's own Diff-Path line in a list written before --diff-patches names no file flc writes", async () => {
    const source = join(dir, 'source.txt');
    writeFileSync(source, '! Diff-Path: ../escaped.patch\n||a.example^\n');
    const cfg = config([source]);
    mkdirSync(join(dir, 'public'));
    const out = join(dir, 'public', 'list.txt');
    const plain = await runCli(['compile', '-c', cfg, '-o', out, '-q'], { env: at(0) });
    expect(plain.code, plain.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toContain('\n! Diff-Path: ../escaped.patch\n');
    writeFileSync(source, '! Diff-Path: ../escaped.patch\n||a.example^\n||b.example^\n');
    const on = await runCli(['compile', '-c', cfg, '-o', out, ...diffArgs(join(dir, 'public', 'patches')), '-q'], {
      env: at(60),
    });
    expect(on.code, on.stderr).toBe(0);
    expect(existsSync(join(dir, 'escaped.patch'))).toBe(false);
    expect(readFileSync(out, 'utf8')).toMatch(/^! Diff-Path: patches\/list-s-\d+-1\.patch\n/);
  });

  describe('the list published is the compiled one, patch or not', () => {
    const hourly = (out: string) => ['-o', out, '--diff-patches', join(dir, 'patches'), '--diff-resolution', 'h', '-q'];
    const build = async (cfg: string, out: string, time: string, diff = true) => {
      vi.setSystemTime(new Date(time));
      return runCli(['compile', '-c', cfg, ...(diff ? hourly(out) : ['-o', out, '-q'])], { env: at(0) });
    };
    const patchOf = (list: string) => join(dir, list.split('\n')[0].replace('! Diff-Path: ', ''));
    /** A configuration of one source, and where its list goes. */
    const oneSource = () => {
      const source = join(dir, 'source.txt');
      return { source, cfg: config([source]), out: join(dir, 'list.txt') };
    };
    beforeEach(() => vi.useFakeTimers({ toFake: ['Date'] }));
    afterEach(() => vi.useRealTimers());

    // The builder checks a patch by applying it, and leaves the list without one when that fails:
    // `diff` makes no patch of a text with a NUL byte (nor V8 an apply of ~125,000 added lines).
    test('a change the builder makes no patch of starts a new chain; the next change patches as before', async () => {
      const { source, cfg, out } = oneSource();
      writeFileSync(source, '||a.example^\n');
      expect((await build(cfg, out, '2026-03-01T10:10:00Z')).code).toBe(0);
      const v1 = readFileSync(out, 'utf8');
      writeFileSync(source, '! a NUL \u0000 byte\n||a.example^\n||b.example^\n');
      const second = await build(cfg, out, '2026-03-01T11:10:00Z');
      expect(second.code, second.stderr).toBe(0);
      expect(second.stderr).toContain('starts a new chain of patches');
      const v2 = readFileSync(out, 'utf8');
      expect(rules(v2)).toEqual(['||a.example^', '||b.example^']);
      expect(readFileSync(patchOf(v1), 'utf8')).toBe('');
      expect(readFileSync(patchOf(v2), 'utf8')).toBe('');
      // The next build compares with that list, NUL and all: a new chain again; then patches again.
      writeFileSync(source, '||a.example^\n||b.example^\n||c.example^\n');
      expect((await build(cfg, out, '2026-03-01T12:10:00Z')).stderr).toContain('starts a new chain');
      const v3 = readFileSync(out, 'utf8');
      writeFileSync(source, '||a.example^\n||b.example^\n||c.example^\n||d.example^\n');
      const fourth = await build(cfg, out, '2026-03-01T13:10:00Z');
      expect(fourth.code, fourth.stderr).toBe(0);
      expect(fourth.stderr).not.toContain('new chain');
      const v4 = readFileSync(out, 'utf8');
      const host = await fileServer(dir);
      vi.useRealTimers();
      expect(await DiffUpdater.applyPatch({ filterUrl: `${host.url}/list.txt`, filterContent: v3 })).toBe(v4);
    });

    test('a rule holding "Checksum" or "Diff-Path" near the top is published, not dropped by the builder', async () => {
      const { source, cfg, out } = oneSource();
      const kept = ['example.org##.Checksum', 'example.org##.Diff-Path', '||a.example^'];
      writeFileSync(source, `${kept.join('\n')}\n`);
      expect((await build(cfg, out, '2026-03-01T10:10:00Z')).code).toBe(0);
      expect(rules(readFileSync(out, 'utf8'))).toEqual(kept);
      writeFileSync(source, `${kept.join('\n')}\n||b.example^\n`);
      expect((await build(cfg, out, '2026-03-01T11:10:00Z')).code).toBe(0);
      expect(rules(readFileSync(out, 'utf8'))).toEqual([...kept, '||b.example^']);
    });

    test('a chain started afresh within the hour is refused: the patch name is taken', async () => {
      const { source, cfg, out } = oneSource();
      writeFileSync(source, '||a.example^\n');
      expect((await build(cfg, out, '2026-03-01T10:10:00Z')).code).toBe(0);
      const named = patchOf(readFileSync(out, 'utf8'));
      writeFileSync(source, '||b.example^\n');
      expect((await build(cfg, out, '2026-03-01T10:15:00Z', false)).code).toBe(0);
      writeFileSync(source, '||c.example^\n');
      const again = await build(cfg, out, '2026-03-01T10:20:00Z');
      expect(again.code, again.stderr).toBe(2);
      expect(again.stderr).toContain('a list can change once an hour');
      expect(readFileSync(named, 'utf8')).toBe('');
    });
  });

  // A build killed while it publishes: the list and the previous version's patch are two files, so
  // the list goes first and that patch after it, each whole. At no point does a published list name
  // a missing patch, nor a patch lead to a version that was not published.
  test.each([
    ['the list', (out: string) => out, false],
    ["the previous version's patch", (_out: string, before: string) => before, true],
  ])('killed just before %s is replaced: every client stays consistent', async (_, target, published) => {
    const source = join(dir, 'source.txt');
    const cfg = config([source]);
    const out = join(dir, 'list.txt');
    const preload = join(dir, 'kill-on-rename.cjs');
    writeFileSync(
      preload,
      [
        "const fsp = require('node:fs/promises');",
        'const rename = fsp.rename;',
        'fsp.rename = (from, to) => {',
        "  if (String(to) === process.env.FLC_TEST_KILL) process.kill(process.pid, 'SIGKILL');",
        '  return rename(from, to);',
        '};',
      ].join('\n'),
    );
    const build = (env: Record<string, string> = {}) =>
      spawnSync(
        process.execPath,
        ['--require', preload, BIN, 'compile', '-c', cfg, '-o', out, ...diffArgs(join(dir, 'patches')), '-q'],
        {
          encoding: 'utf8',
          env: { ...process.env, ...env },
        },
      );
    writeFileSync(source, '||a.example^\n');
    expect(build().status).toBe(0);
    const v1 = readFileSync(out, 'utf8');
    const before = join(dir, v1.split('\n')[0].replace('! Diff-Path: ', ''));
    await sleep(1_100);
    writeFileSync(source, '||a.example^\n||unpublished.example^\n');
    const killed = build({ FLC_TEST_KILL: target(out, before) });
    expect(killed.signal).toBe('SIGKILL');
    const now = readFileSync(out, 'utf8');
    // The list is one version or the other, names a patch that is there, and the previous version's
    // patch is still empty: its clients stay where they are.
    if (published) expect(rules(now)).toEqual(['||a.example^', '||unpublished.example^']);
    else expect(now).toBe(v1);
    expect(existsSync(join(dir, now.split('\n')[0].replace('! Diff-Path: ', '')))).toBe(true);
    expect(readFileSync(before, 'utf8')).toBe('');
    expect(readdirSync(dir).filter((f) => f.startsWith('.list.txt.flc-'))).toHaveLength(1);
    // The next build (another second) publishes as usual, and leaves no staging folder behind.
    await sleep(1_600);
    writeFileSync(source, '||a.example^\n||b.example^\n');
    expect(build().status).toBe(0);
    expect(readdirSync(dir).filter((f) => f.startsWith('.list.txt.flc-'))).toEqual([]);
    const latest = readFileSync(out, 'utf8');
    const host = await fileServer(dir);
    const updated = await DiffUpdater.applyPatch({ filterUrl: `${host.url}/list.txt`, filterContent: now });
    expect(updated).toBe(latest);
  });

  test('patches older than --diff-keep are pruned; the one the list names stays', async () => {
    const source = join(dir, 'source.txt');
    const cfg = config([source]);
    const out = join(dir, 'list.txt');
    const patches = join(dir, 'patches');
    const build = async (rules: string, at: number) => {
      writeFileSync(source, rules);
      const args = ['compile', '-c', cfg, '-o', out, ...diffArgs(patches), '--diff-keep', '2s', '-q'];
      const result = await runCli(args, { env: { SOURCE_DATE_EPOCH: String(1_700_000_000 + at) } });
      expect(result.code, result.stderr).toBe(0);
      return readFileSync(out, 'utf8').split('\n')[0].replace('! Diff-Path: patches/', '');
    };
    const first = await build('||a.example^\n', 0);
    await sleep(1_100);
    const second = await build('||b.example^\n', 1);
    expect(readFileSync(join(patches, first), 'utf8')).not.toBe('');
    await sleep(2_600);
    const third = await build('||c.example^\n', 2);
    expect(readdirSync(patches).sort()).toEqual([second, third].sort());
    expect(readFileSync(join(patches, third), 'utf8')).toBe('');
  });

  test('--diff-patches needs -o FILE and the adblock format', async () => {
    const cfg = config([join(dir, 'x.txt')]);
    const toStdout = await runCli(['compile', '-c', cfg, '--diff-patches', join(dir, 'p')]);
    expect(toStdout.code).toBe(2);
    expect(toStdout.stderr).toContain('--diff-patches needs -o FILE');
    const hosts = await runCli([
      'compile',
      '-c',
      cfg,
      '-o',
      join(dir, 'l'),
      '--format',
      'hosts',
      '--diff-patches',
      'p',
    ]);
    expect(hosts.code).toBe(2);
    expect(hosts.stderr).toContain('--diff-patches is for the adblock format');
  });
});

describe('the shrink guard (--max-shrink, --min-rules)', () => {
  const ten = Array.from({ length: 10 }, (_, i) => `||a${i}.example^`).join('\n');
  const five = Array.from({ length: 5 }, (_, i) => `||b${i}.example^`).join('\n');

  test('a source that answers an empty body trips it: exit 1, nothing written, the source named', async () => {
    const bodies: Record<string, string | number> = { '/a.txt': ten, '/b.txt': five };
    const server = await listServer(bodies);
    const cfg = config([`${server.url}/a.txt`, `${server.url}/b.txt`]);
    const out = join(dir, 'list.txt');
    const patches = join(dir, 'patches');
    const args = ['compile', '-c', cfg, '-o', out, '--no-cache', '--max-shrink', '30', '--diff-patches', patches];
    const first = await runCli([...args, '-q'], { env: at(0) });
    expect(first.code, first.stderr).toBe(0);
    const list = readFileSync(out, 'utf8');
    const state = readFileSync(`${out}.flc-state.json`, 'utf8');
    expect(JSON.parse(state)).toMatchObject({ ruleCount: 15, sources: { [`${server.url}/a.txt`]: 10 } });
    const patchFiles = readdirSync(patches);

    bodies['/a.txt'] = '';
    const report = join(dir, 'report.json');
    const second = await runCli([...args, '--report', report, '-q'], { env: at(60) });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain('the list would shrink by 66.7% (15 -> 5 rules), more than the maximum of 30%');
    expect(second.stderr).toContain(`${server.url}/a.txt: 10 -> 0 rules (-10, -100.0%)`);
    expect(second.stderr).not.toContain('b.txt:');
    expect(readFileSync(out, 'utf8')).toBe(list);
    expect(readFileSync(`${out}.flc-state.json`, 'utf8')).toBe(state);
    expect(readdirSync(patches)).toEqual(patchFiles);
    expect(existsSync(report)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.startsWith('.'))).toEqual([]);
  });

  test('the state file alone is the baseline when the list is not there; --min-rules bounds the count', async () => {
    const bodies: Record<string, string | number> = { '/a.txt': ten, '/b.txt': five };
    const server = await listServer(bodies);
    const cfg = config([`${server.url}/a.txt`, `${server.url}/b.txt`]);
    const out = join(dir, 'list.txt');
    const args = ['compile', '-c', cfg, '-o', out, '--no-cache', '--max-shrink', '50', '-q'];
    expect((await runCli(args, { env: at(0) })).code).toBe(0);
    rmSync(out);
    bodies['/b.txt'] = '';
    bodies['/a.txt'] = '||a0.example^';
    const shrunk = await runCli(args, { env: at(60) });
    expect(shrunk.code).toBe(1);
    expect(shrunk.stderr).toContain(`${server.url}/a.txt: 10 -> 1 rules (-9, -90.0%)`);
    expect(shrunk.stderr).toContain(`${server.url}/b.txt: 5 -> 0 rules (-5, -100.0%)`);
    expect(existsSync(out)).toBe(false);

    const few = await runCli(['compile', '-c', cfg, '-o', out, '--no-cache', '--min-rules', '2', '-q'], { env: at(0) });
    expect(few.code).toBe(1);
    expect(few.stderr).toContain('the list would have 1 rules, fewer than the minimum of 2');
    expect(existsSync(out)).toBe(false);
  });

  test('the configuration sets the bounds', async () => {
    const server = await listServer({ '/a.txt': ten });
    const cfg = config([`${server.url}/a.txt`], { publish: { minRules: 11 } });
    const out = join(dir, 'list.txt');
    const run = await runCli(['compile', '-c', cfg, '-o', out, '--no-cache', '-q'], { env: at(0) });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('fewer than the minimum of 11');
  });
});

describe('stale sources (onSourceError: stale)', () => {
  test('a source that answers 503 on the second build: exit 0, the same rules, a warning with its age', async () => {
    const bodies: Record<string, string | number> = { '/a.txt': '||a.example^\n||b.example^\n' };
    const server = await listServer(bodies);
    const source = `${server.url}/a.txt`;
    const cfg = config([source], { onSourceError: 'stale' });
    const out = join(dir, 'list.txt');
    const cache = join(dir, 'cache');
    const args = ['compile', '-c', cfg, '-o', out, '--cache-dir', cache, '--retries', '0'];
    expect((await runCli([...args, '-q'], { env: at(0) })).code).toBe(0);
    const first = readFileSync(out, 'utf8');

    bodies['/a.txt'] = 503;
    const report = join(dir, 'report.json');
    const second = await runCli([...args, '--report', report], { env: at(0) });
    expect(second.code, second.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(first);
    expect(second.stderr).toMatch(
      new RegExp(
        `warning: Source ${source} failed: HTTP 503.*; compiled its cached copy of \\S+ instead \\(\\d+ s old\\)`,
      ),
    );
    const json = JSON.parse(readFileSync(report, 'utf8'));
    expect(json.sources[0]).toMatchObject({ source, error: expect.stringContaining('HTTP 503') });
    expect(json.sources[0].stale.ageSeconds).toBeGreaterThanOrEqual(0);

    const bounded = await runCli([...args, '--max-stale', '10m', '-q'], { env: at(0) });
    await sleep(1_100);
    const tooOld = await runCli([...args, '--max-stale', '1s', '-q'], { env: at(0) });
    expect(bounded.code).toBe(0);
    expect(tooOld.code).toBe(1);
    expect(tooOld.stderr).toMatch(/its cached copy is \d+ s old, older than maxStale 1 s/);
  });

  test('without a cached copy the source fails as it does today', async () => {
    const server = await listServer({ '/a.txt': 503 });
    const cfg = config([`${server.url}/a.txt`], { onSourceError: 'stale' });
    const run = await runCli(['compile', '-c', cfg, '--cache-dir', join(dir, 'c'), '--retries', '0', '-q']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`Source ${server.url}/a.txt failed: HTTP 503`);
    expect(run.stdout).toBe('');
  });
});

describe('the change summary (--compare-to)', () => {
  test('the exact rules added and removed, per source and in all: report, stderr, step summary', async () => {
    const a = join(dir, 'a.txt');
    const b = join(dir, 'b.txt');
    writeFileSync(a, '||a1.example^\n||a2.example^\n||shared.example^\n');
    writeFileSync(b, '||b1.example^\n||b2.example^\n');
    const cfg = config([a, b]);
    const old = join(dir, 'old.txt');
    expect((await runCli(['compile', '-c', cfg, '-o', old, '-q'], { env: at(0) })).code).toBe(0);
    writeFileSync(a, '||a1.example^\n||a3.example^\n||a4.example^\n||shared.example^\n');
    writeFileSync(b, '||b2.example^\n||shared.example^\n');
    const report = join(dir, 'report.json');
    const summary = join(dir, 'summary.md');
    writeFileSync(summary, '# Earlier step\n');
    const env = { ...at(60), GITHUB_STEP_SUMMARY: summary };
    const args = ['compile', '-c', cfg, '-o', join(dir, 'new.txt'), '--compare-to', old, '--report', report, '-q'];
    const run = await runCli(args, { env });
    expect(run.code, run.stderr).toBe(0);
    const { changes } = JSON.parse(readFileSync(report, 'utf8'));
    expect(changes.comparedTo).toBe(old);
    expect(changes.total.added.sort()).toEqual(['||a3.example^', '||a4.example^']);
    expect(changes.total.removed).toEqual(['||a2.example^', '||b1.example^']);
    expect(changes.sources).toEqual([
      { source: a, added: ['||a3.example^', '||a4.example^'], removed: ['||a2.example^'] },
      { source: b, added: ['||shared.example^'], removed: ['||b1.example^'] },
    ]);
    expect(run.stderr).toContain(`flc: changes since ${old}: +2 -2 rules`);
    expect(run.stderr).toContain(`flc:   ${b}: +1 -1`);
    const md = readFileSync(summary, 'utf8');
    expect(md.startsWith('# Earlier step\n### flc: ')).toBe(true);
    expect(md).toContain(`| ${a} | 4 | 2 | 1 |`);
    expect(md).toContain('| **Total** | 6 | 2 | 2 |');
  });

  test('a missing --compare-to file is an input error', async () => {
    const cfg = config([join(dir, 'a.txt')]);
    writeFileSync(join(dir, 'a.txt'), '||a.example^\n');
    const run = await runCli(['compile', '-c', cfg, '--compare-to', join(dir, 'nope.txt'), '-q']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no such file');
  });
});

describe('the dead-domain check (--check-dns)', () => {
  const listOf = () => {
    const file = join(dir, 'list-src.txt');
    writeFileSync(file, '||alive.example^\n||dead.example^\n0.0.0.0 other.example\n@@||dead.example^$important\n');
    return file;
  };

  test('a name that answers NXDOMAIN loses its rules, reported as dead-domain', async () => {
    const dns = await startDnsStub({ nxdomain: ['dead.example'] });
    servers.push(dns);
    const cfg = config([listOf()]);
    const report = join(dir, 'report.json');
    const out = join(dir, 'list.txt');
    const args = ['compile', '-c', cfg, '-o', out, '--check-dns', '--dns-server', dns.address, '--report', report];
    const run = await runCli([...args, '--cache-dir', join(dir, 'cache'), '-q']);
    expect(run.code, run.stderr).toBe(0);
    expect(rules(readFileSync(out, 'utf8'))).toEqual(['||alive.example^', '0.0.0.0 other.example']);
    const removed = JSON.parse(readFileSync(report, 'utf8')).removed.filter(
      (r: { code: string }) => r.code === 'dead-domain',
    );
    expect(removed.map((r: { text: string }) => r.text)).toEqual(['||dead.example^', '@@||dead.example^$important']);
    expect(removed[0].reason).toBe('dead.example: no such domain (NXDOMAIN)');
    expect(new Set(dns.asked)).toEqual(new Set(['alive.example', 'dead.example', 'other.example']));
    // The answers are kept: a second run asks nothing until the recheck age.
    const asked = dns.asked.length;
    expect((await runCli([...args, '--cache-dir', join(dir, 'cache'), '-q'])).code).toBe(0);
    expect(dns.asked.length).toBe(asked);
    expect(rules(readFileSync(out, 'utf8'))).toEqual(['||alive.example^', '0.0.0.0 other.example']);
  });

  test('a server that never answers removes nothing and warns', async () => {
    const dns = await startDnsStub({ silent: true });
    servers.push(dns);
    const cfg = config([listOf()]);
    const out = join(dir, 'list.txt');
    const args = ['compile', '-c', cfg, '-o', out, '--check-dns', '--dns-server', dns.address, '--dns-timeout', '0.2'];
    const run = await runCli([...args, '--no-cache']);
    expect(run.code, run.stderr).toBe(0);
    expect(dns.asked.length).toBeGreaterThan(0);
    expect(rules(readFileSync(out, 'utf8'))).toHaveLength(4);
    expect(run.stderr).toContain('Warning: dead-domain check: 3 name(s) could not be checked (3 ETIMEOUT)');
  });

  // Names under servers that never answer are anyone's to set up: the check is bounded in time,
  // and a failed question is not asked again before the recheck age.
  test('--dns-budget bounds the check; names that timed out are not asked again each run', async () => {
    const dns = await startDnsStub({ silent: true });
    servers.push(dns);
    const file = join(dir, 'slow.txt');
    writeFileSync(file, Array.from({ length: 40 }, (_, i) => `||n${i}.slow.example^\n`).join(''));
    const out = join(dir, 'list.txt');
    const cache = join(dir, 'cache');
    const args = ['compile', '-c', config([file]), '-o', out, '--check-dns', '--dns-server', dns.address];
    const slow = [
      ...args,
      '--dns-timeout',
      '0.3',
      '--dns-concurrency',
      '1',
      '--dns-budget',
      '1s',
      '--cache-dir',
      cache,
    ];
    const started = performance.now();
    const first = await runCli(slow);
    expect(first.code, first.stderr).toBe(0);
    expect(performance.now() - started).toBeLessThan(20_000);
    const asked = dns.asked.length;
    expect(asked).toBeGreaterThan(0);
    expect(asked).toBeLessThan(40);
    expect(first.stderr).toContain(`its time budget (1 s) ran out with ${40 - asked} name(s) not asked`);
    expect(rules(readFileSync(out, 'utf8'))).toHaveLength(40);
    // The next run asks the others, not the ones that timed out.
    const second = await runCli(slow);
    expect(second.code, second.stderr).toBe(0);
    expect(new Set(dns.asked).size).toBe(dns.asked.length);
  });

  test('the answers file keeps recent ones only; a failed question is asked again after a day', async () => {
    const dns = await startDnsStub({ nxdomain: ['dead.example'] });
    servers.push(dns);
    const cache = join(dir, 'cache');
    mkdirSync(cache);
    const day = 86_400_000;
    const answers = {
      'gone.example': { dead: false, at: Date.now() - 8 * day },
      'alive.example': { dead: false, at: Date.now() - 2 * day, failed: true },
      // Written while the clock ran ahead: asked again, not trusted for ever.
      'other.example': { dead: true, at: Date.now() + 400 * day },
    };
    writeFileSync(join(cache, 'dns-answers.json'), JSON.stringify(answers));
    const args = ['compile', '-c', config([listOf()]), '-o', join(dir, 'list.txt'), '--check-dns'];
    const run = await runCli([...args, '--dns-server', dns.address, '--cache-dir', cache, '-q']);
    expect(run.code, run.stderr).toBe(0);
    expect(new Set(dns.asked)).toEqual(new Set(['alive.example', 'dead.example', 'other.example']));
    expect(rules(readFileSync(join(dir, 'list.txt'), 'utf8'))).toContain('0.0.0.0 other.example');
    const kept = JSON.parse(readFileSync(join(cache, 'dns-answers.json'), 'utf8'));
    expect(Object.keys(kept).sort()).toEqual(['alive.example', 'dead.example', 'other.example']);
    expect(kept['alive.example'].failed).toBeUndefined();
  });

  test('the shrink guard applies after it', async () => {
    const dns = await startDnsStub({ nxdomain: ['dead.example', 'other.example'] });
    servers.push(dns);
    const cfg = config([listOf()]);
    const out = join(dir, 'list.txt');
    const args = ['compile', '-c', cfg, '-o', out, '--check-dns', '--dns-server', dns.address, '--no-cache', '-q'];
    const run = await runCli([...args, '--min-rules', '2']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('the list would have 1 rules, fewer than the minimum of 2');
    expect(existsSync(out)).toBe(false);
  });

  test('the configuration turns it on and names the patches; the flags name the machine', async () => {
    const dns = await startDnsStub({ nxdomain: ['dead.example'] });
    servers.push(dns);
    const publish = { checkDns: { recheckAfter: '1h' }, diffPatches: { name: 'custom', resolution: 's' } };
    const cfg = config([listOf()], { publish });
    const out = join(dir, 'list.txt');
    const args = ['compile', '-c', cfg, '-o', out, '--dns-server', dns.address, '--diff-patches', join(dir, 'p')];
    const run = await runCli([...args, '--no-cache', '-q']);
    expect(run.code, run.stderr).toBe(0);
    const text = readFileSync(out, 'utf8');
    expect(text).toMatch(/^! Diff-Path: p\/custom-s-\d+-3600\.patch\n/);
    expect(rules(text)).toEqual(['||alive.example^', '0.0.0.0 other.example']);
    // A new patch name needs a new second.
    await sleep(1_100);
    const off = await runCli([...args, '--no-check-dns', '--no-cache', '-q']);
    expect(off.code, off.stderr).toBe(0);
    expect(rules(readFileSync(out, 'utf8'))).toHaveLength(4);
  });

  test('--dns-server takes an IP address with an optional port', async () => {
    const cfg = config([listOf()]);
    const run = await runCli(['compile', '-c', cfg, '--check-dns', '--dns-server', 'dns.example:53', '-q']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--dns-server dns.example:53: give an IP address');
  });
});
