import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCli } from '../support/cli.js';

const EXAMPLES = resolve(import.meta.dirname, '../../examples');
const PINNED = { SOURCE_DATE_EPOCH: '1700000000' };
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'flc-cli-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('flc compile', () => {
  const configs = readdirSync(EXAMPLES).filter((f) => f.startsWith('flc.config.'));

  test('every bundled example configuration compiles, JSON, YAML and TOML alike', async () => {
    expect(configs.sort()).toEqual(['flc.config.json', 'flc.config.toml', 'flc.config.yaml']);
    const outputs = [];
    for (const config of configs) {
      const result = await runCli(['compile', '-c', join(EXAMPLES, config), '-q'], { cwd: EXAMPLES, env: PINNED });
      expect(result.code, result.stderr).toBe(0);
      outputs.push(result.stdout);
    }
    expect(new Set(outputs).size).toBe(1);
    expect(outputs[0]).toContain('! Last modified: 2023-11-14T22:13:20.000Z');
    expect(outputs[0]).toContain('||xn----8sbarbpriegymdb.xn--p1ai^');
    expect(outputs[0]).not.toContain('telemetry.example.net');
    expect(outputs[0].endsWith('\n')).toBe(true);
  });

  test('stdout carries only the list; progress goes to stderr', async () => {
    const result = await runCli(['compile', '-c', join(EXAMPLES, 'flc.config.json')], { cwd: EXAMPLES, env: PINNED });
    expect(result.stdout.startsWith('!\n! Title: Example blocklist\n')).toBe(true);
    expect(result.stdout).not.toContain('flc:');
    expect(result.stderr).toContain('flc: source 1/2 loaded');
  });

  test('-o writes the file; --report writes counts and removed lines with reasons', async () => {
    const out = join(dir, 'list.txt');
    const report = join(dir, 'report.json');
    const result = await runCli(
      ['compile', '-c', join(EXAMPLES, 'flc.config.json'), '-o', out, '--report', report, '-v'],
      { cwd: EXAMPLES, env: PINNED },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/list: Validate \d+ -> \d+ lines/);
    expect(readFileSync(out, 'utf8')).toContain('||ads.example.com^');
    const json = JSON.parse(readFileSync(report, 'utf8'));
    expect(json.transformations.map((t: { name: string }) => t.name)).toContain('Compress');
    const media = json.removed.find((r: { text: string }) => r.text === '||video.example.org^$media');
    expect(media).toMatchObject({
      transformation: 'Validate',
      code: 'invalid-rule',
      reason: 'unsupported modifier $media',
      line: 12,
    });
    expect(media.source).toMatch(/examples\/lists\/adblock\.txt$/);
    expect(readdirSync(dir).sort()).toEqual(['list.txt', 'report.json']);
  });

  test.each([
    ['hosts', '0.0.0.0 ads.example.com', '# Title: Example blocklist'],
    ['domains', '\nads.example.com\n', '# Title: Example blocklist'],
  ])('--format %s', async (format, rule, header) => {
    const result = await runCli(['compile', '-c', join(EXAMPLES, 'flc.config.json'), '--format', format, '-q'], {
      cwd: EXAMPLES,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(rule);
    expect(result.stdout).toContain(header);
    expect(result.stdout).not.toContain('||');
  });

  test('-i uses the quick configuration of the reference CLI, paths relative to the cwd', async () => {
    writeFileSync(
      join(dir, 'hosts.txt'),
      '# c\n0.0.0.0 a.example.com\n0.0.0.0 sub.a.example.com\n0.0.0.0 a.example.com\n0.0.0.0 1.2.3.4',
    );
    const result = await runCli(['compile', '-i', 'hosts.txt', '-q'], { cwd: dir, env: PINNED });
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines.slice(0, 4)).toEqual(['!', '! Title: Blocklist', '! Last modified: 2023-11-14T22:13:20.000Z', '!']);
    expect(lines).toContain('||a.example.com^');
    expect(result.stdout).not.toMatch(/sub\.a\.example|1\.2\.3\.4/);
    expect(lines.filter((l) => l === '||a.example.com^')).toHaveLength(1);
  });

  test('without -c or -i the configuration is discovered in the cwd', async () => {
    writeFileSync(join(dir, 'l.txt'), '||found.example^');
    writeFileSync(join(dir, '.flcrc.yaml'), 'name: Found\nsources:\n  - source: l.txt\n');
    const result = await runCli(['compile', '-q'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('! Title: Found');
    expect(result.stdout).toContain('||found.example^');
  });

  test('the "flc" key of package.json is a configuration too', async () => {
    writeFileSync(join(dir, 'l.txt'), '||pkg.example^');
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ name: 'x', flc: { name: 'Pkg', sources: [{ source: 'l.txt' }] } }),
    );
    const result = await runCli(['compile', '-q'], { cwd: dir });
    expect(result.stdout).toContain('! Title: Pkg');
  });

  test('deprecated aliases compile with a warning', async () => {
    writeFileSync(join(dir, 'l.txt'), '||alias.example^\n||alias.example^');
    writeFileSync(
      join(dir, 'c.json'),
      JSON.stringify({ name: 'A', sources: [{ url: 'l.txt', title: 'T' }], transformations: ['deduplicate'] }),
    );
    const result = await runCli(['compile', '-c', join(dir, 'c.json'), '-q'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/sources\[0\]\.url is deprecated; use sources\[0\]\.source/);
    expect(result.stdout.match(/alias\.example/g)).toHaveLength(1);
  });

  test.each([
    [['compile', '--bogus'], /Nonexistent flag: --bogus/],
    [['compile', '--format', 'xml'], /Expected --format=xml to be one of/],
    [['compile', '-c', 'a.json', '-i', 'b.txt'], /cannot also be provided/],
  ])('usage errors exit 2: %j', async (args, message) => {
    const result = await runCli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });

  test('no configuration anywhere exits 2 with a hint', async () => {
    const result = await runCli(['compile'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no configuration: pass -c FILE or -i SOURCE/);
  });

  test('a bad SOURCE_DATE_EPOCH exits 2', async () => {
    const result = await runCli(['compile', '-c', join(EXAMPLES, 'flc.config.json')], {
      env: { SOURCE_DATE_EPOCH: 'yesterday' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/SOURCE_DATE_EPOCH: must be whole seconds/);
  });

  test('FLC_ENGINE picks the engine: the same list either way, and a bad value exits 2', async () => {
    writeFileSync(join(dir, 'l.txt'), '!#if true\n||a.example^$third-party\n!#endif\n0.0.0.0 b.example\n||b.example^');
    const config = { name: 'E', sources: [{ source: 'l.txt' }], transformations: ['Compress', 'InvertAllow'] };
    writeFileSync(join(dir, 'e.json'), JSON.stringify(config));
    const run = (engine: string, out: string) =>
      runCli(['compile', '-c', 'e.json', '-o', out, '-v', '--report', `${out}.json`], {
        cwd: dir,
        env: { ...PINNED, FLC_ENGINE: engine },
      });
    const packed = await run('packed', 'p.txt');
    const strings = await run('strings', 's.txt');
    expect([packed.code, strings.code]).toEqual([0, 0]);
    expect(readFileSync(join(dir, 's.txt'), 'utf8')).toBe(readFileSync(join(dir, 'p.txt'), 'utf8'));
    // -v and --report list removed lines, on either engine; only the step without a packed form goes on as strings.
    const removed = (out: string) => JSON.parse(readFileSync(join(dir, `${out}.json`), 'utf8')).removed;
    expect(removed('p.txt')).toEqual(removed('s.txt'));
    expect(removed('p.txt')).toHaveLength(1);
    expect(packed.stderr).not.toMatch(/compiles on strings/);
    expect(packed.stderr).toMatch(/list: InvertAllow works on text, so the steps from it on run on strings/);
    expect(strings.stderr).not.toMatch(/on strings/);
    // Without -v, where the engine goes on as strings is not said: it is no warning, and output is the same.
    const plain = await runCli(['compile', '-c', 'e.json', '-o', 'q.txt'], { cwd: dir, env: PINNED });
    expect(plain.code).toBe(0);
    expect(plain.stderr).not.toMatch(/on strings|works on text/);
    expect(plain.stderr).toMatch(/^flc: source 1\/1 loaded/m);
    const quiet = await runCli(['compile', '-c', 'e.json', '-o', 'q.txt', '-q'], { cwd: dir, env: PINNED });
    expect(quiet.stderr).toBe('');
    const bad = await run('fast', 'x.txt');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/FLC_ENGINE: must be "packed" or "strings", got "fast"/);
  });

  test('onSourceError skip (flag) compiles the rest with a warning', async () => {
    writeFileSync(join(dir, 'l.txt'), '||ok.example^');
    writeFileSync(
      join(dir, 'c.json'),
      JSON.stringify({ name: 'S', sources: [{ source: 'l.txt' }, { source: 'missing.txt' }] }),
    );
    const failed = await runCli(['compile', '-c', join(dir, 'c.json'), '-q'], { cwd: dir });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/Source missing\.txt failed: no such file/);
    const skipped = await runCli(['compile', '-c', join(dir, 'c.json'), '--on-source-error', 'skip'], { cwd: dir });
    expect(skipped.code).toBe(0);
    expect(skipped.stdout).toContain('||ok.example^');
    expect(skipped.stderr).toMatch(/warning: Source missing\.txt failed: no such file: .* \(skipped\)\n/);
    expect(skipped.stderr.split('\n').filter((l) => l.includes('missing.txt'))).toHaveLength(1);
  });
});

describe('flc compile --format and the format key', () => {
  const config = (extra: object) => {
    const file = join(dir, 'c.json');
    writeFileSync(join(dir, 'l.txt'), '||ads.example.org^\n0.0.0.0 b.example.org\n@@||ok.example.org^');
    writeFileSync(file, JSON.stringify({ name: 'F', sources: [{ source: join(dir, 'l.txt') }], ...extra }));
    return file;
  };

  test('the format key chooses the output; --format overrides it', async () => {
    const keyed = await runCli(['compile', '-c', config({ format: 'unbound' }), '-q']);
    expect(keyed.stdout).toContain('local-zone: "ads.example.org." always_nxdomain\n');
    expect(keyed.stdout.startsWith('server:\n')).toBe(true);
    const flagged = await runCli(['compile', '-c', config({ format: 'unbound' }), '--format', 'dnsmasq', '-q']);
    expect(flagged.stdout).toContain(
      '\nlocal=/ads.example.org/\nhost-record=b.example.org,0.0.0.0,::\nserver=/ok.example.org/#',
    );
  });

  test('--hosts-address gives each name a line per address; refused with another format or a bad address', async () => {
    const file = config({});
    const dual = await runCli(['compile', '-c', file, '--format', 'hosts', '--hosts-address', '0.0.0.0,::', '-q']);
    expect(dual.code).toBe(0);
    expect(dual.stdout).toContain(
      '\n0.0.0.0 ads.example.org\n:: ads.example.org\n0.0.0.0 b.example.org\n:: b.example.org',
    );
    // What hosts cannot say is counted on stderr, even with -q.
    expect(dual.stderr).toContain(
      'warning: 1 rule(s) cannot be expressed in hosts format and were left out (1 format-exception)',
    );
    expect(dual.stderr).toContain('warning: 1 rule(s) for a domain and its subdomains written for the domain alone');
    const wrong = await runCli(['compile', '-c', file, '--hosts-address', '0.0.0.0', '-q']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/^Error: --hosts-address is for the hosts format; this compile writes adblock\n/);
    const bad = await runCli(['compile', '-c', file, '--format', 'hosts', '--hosts-address', '0.0.0.0,nope', '-q']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /^Error: --hosts-address takes IPv4 or IPv6 addresses \(e\.g\. 0\.0\.0\.0,::\), got "nope"\n/,
    );
  });

  test('--report carries the format and every kept rule with its provenance', async () => {
    const report = join(dir, 'r.json');
    const result = await runCli(['compile', '-c', config({ format: 'rpz' }), '--report', report, '-o', join(dir, 'o')]);
    expect(result.code, result.stderr).toBe(0);
    const json = JSON.parse(readFileSync(report, 'utf8'));
    expect(Object.keys(json)).toEqual(['removed', 'kept', 'format', 'sources', 'transformations']);
    expect(json.format).toBe('rpz');
    expect(json.kept).toEqual([
      { source: join(dir, 'l.txt'), line: 1, text: '||ads.example.org^' },
      { source: join(dir, 'l.txt'), line: 2, text: '0.0.0.0 b.example.org' },
      { source: join(dir, 'l.txt'), line: 3, text: '@@||ok.example.org^' },
    ]);
  });
});
