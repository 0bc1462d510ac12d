import { describe, expect, test } from 'vitest';
import { corpusPath, testCorpus } from '../../support/corpus.js';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { compile } from '../../../src/core/pipeline/compile.js';
import { concerns, explain, explainDomain } from '../../../src/core/explain/explain.js';
import { parseExplainReport } from '../../../src/core/explain/report-input.js';
import { validateConfiguration } from '../../../src/core/config/parse.js';
import type { OutputFormat } from '../../../src/core/output/formats.js';
import type { KeptRule, RemovedLine } from '../../../src/core/pipeline/report.js';
import { InputError } from '../../../src/core/errors/index.js';
import { NodeSourceReader, DEFAULT_HTTP } from '../../../src/node/source-reader.js';

// test/fixtures/explain: list A (a.txt) and list B (b.txt, with an allowlist), under Validate and
// Deduplicate. Each rule's line in its file is known.
const DIR = resolve(import.meta.dirname, '../../fixtures/explain');
const A = join(DIR, 'lists/a.txt');
const B = join(DIR, 'lists/b.txt');
const { config } = validateConfiguration(JSON.parse(readFileSync(join(DIR, 'config.json'), 'utf8')));

async function compiled(
  format: OutputFormat,
  sink: { onKept?: (r: KeptRule) => void; onRemoved?: (r: RemovedLine) => void },
) {
  const reader = new NodeSourceReader({ ...DEFAULT_HTTP, baseDir: DIR, cacheDir: null, userAgent: 'flc-test' });
  try {
    return await compile(config, { reader, compiler: 'x', format, report: !sink.onKept, ...sink });
  } finally {
    await reader.close();
  }
}

/** The explanation from a compile that keeps only the lines about the domain, as `flc explain` runs it. */
async function live(domain: string, format: OutputFormat = 'adblock') {
  const about = concerns(explainDomain(domain));
  const kept: KeptRule[] = [];
  const removed: RemovedLine[] = [];
  await compiled(format, {
    onKept: (r) => about(r.text) && kept.push(r),
    onRemoved: (r) => about(r.text) && removed.push(r),
  });
  return explain(domain, { format, kept, removed });
}

const brief = (r: { text: string; source: string | null; line: number | null }) => `${r.text} @ ${r.source}:${r.line}`;

describe('explain', () => {
  test('a parent-domain rule blocks it, with source and line; a removed copy is listed with its step', async () => {
    const e = await live('ads.example.org');
    expect(e.blocked).toBe(true);
    expect(e.domain).toBe('ads.example.org');
    expect(e.rules.map(brief)).toEqual([`||example.org^ @ ${A}:3`, `0.0.0.0 ads.example.org @ ${A}:5`]);
    expect(e.rules[0]).toMatchObject({ name: 'example.org', kind: 'block', effect: 'block', subdomains: true });
    expect(e.rules[1]).toMatchObject({ name: 'ads.example.org', subdomains: false });
    expect(brief(e.decidedBy!)).toBe(`||example.org^ @ ${A}:3`);
    expect(e.removed).toEqual([
      expect.objectContaining({
        text: '0.0.0.0 ads.example.org',
        source: A,
        line: 2,
        transformation: 'Deduplicate',
        code: 'duplicate',
      }),
    ]);
  });

  test('an exception outranks a block; an important block outranks an exception', async () => {
    const safe = await live('www.safe.example.org');
    expect(safe.blocked).toBe(false);
    expect(brief(safe.decidedBy!)).toBe(`@@||safe.example.org^ @ ${A}:6`);
    const video = await live('video.example.org');
    expect(video.blocked).toBe(true);
    expect(brief(video.decidedBy!)).toBe(`||video.example.org^$important @ ${A}:7`);
    expect(video.rules.map((r) => r.kind)).toEqual(['block', 'block', 'allow']);
  });

  test('a rule removed by Validate would have blocked it; a rule with modifiers only may', async () => {
    const e = await live('tracker.example.net');
    expect(e.blocked).toBe(false);
    expect(e.decidedBy).toBeNull();
    expect(e.rules).toEqual([
      expect.objectContaining({
        text: '||example.net^$dnstype=AAAA',
        line: 1,
        effect: 'conditional',
        modifiers: ['dnstype'],
      }),
    ]);
    expect(e.removed).toEqual([
      expect.objectContaining({
        text: '||tracker.example.net^$media',
        source: A,
        line: 4,
        transformation: 'Validate',
        code: 'invalid-rule',
        reason: 'unsupported modifier $media',
      }),
    ]);
  });

  test('an allowlisted domain: the rule is listed as removed by the allowlist', async () => {
    const e = await live('allowed.example.com');
    expect(e.blocked).toBe(false);
    expect(e.removed.map((r) => `${r.transformation}:${r.code}:${r.line}`)).toEqual([`Allowlist:allowlisted:3`]);
    expect(e.removed[0].source).toBe(B);
  });

  test('a regular expression rule is matched against the name', async () => {
    expect((await live('banner12.example.com')).blocked).toBe(true);
    expect((await live('banner.example.com')).blocked).toBe(false);
  });

  test('the answer is for the output format: hosts blocks the name a rule names, not its subdomains', async () => {
    const sub = await live('www.example.org', 'hosts');
    expect(sub.blocked).toBe(false);
    expect(sub.rules).toEqual([]);
    expect(sub.removed.map((r) => `${r.transformation}:${r.code}:${r.line}`)).toEqual([
      'format:hosts:format-narrowed:3',
    ]);
    const name = await live('example.org', 'hosts');
    expect(name.blocked).toBe(true);
    expect(name.removed).toEqual([]);
    // hosts can write no exception, and blocks the parent rule's name alone.
    const safe = await live('safe.example.org', 'hosts');
    expect(safe.blocked).toBe(false);
    expect(safe.removed.map((r) => `${r.code}:${r.line}`)).toEqual(['format-narrowed:3', 'format-exception:6']);
    // dnsmasq writes both, and the exception stands.
    expect((await live('www.safe.example.org', 'dnsmasq')).blocked).toBe(false);
    expect((await live('www.example.org', 'dnsmasq')).blocked).toBe(true);
  });

  test.each(['adblock', 'hosts', 'rpz'] as const)(
    'a whole report (%s) gives the same answer as a compile that keeps only the lines about the domain',
    async (format) => {
      const result = await compiled(format, {});
      const report = parseExplainReport(JSON.parse(JSON.stringify(result.report)), 'report.json');
      for (const domain of ['ads.example.org', 'www.example.org', 'safe.example.org', 'tracker.example.net']) {
        expect(explain(domain, report)).toEqual(await live(domain, format));
      }
    },
  );

  testCorpus('on a real list, keeping only the lines about the domain loses none of them', async () => {
    const list = corpusPath('adguard-dns-filter-2019.txt');
    const real = { name: 'AdGuard DNS filter', sources: [{ source: list }], transformations: ['Deduplicate' as const] };
    const read = () => new NodeSourceReader({ ...DEFAULT_HTTP, baseDir: DIR, cacheDir: null, userAgent: 'flc-test' });
    const reader = read();
    const whole = await compile(real, { reader, compiler: 'x', format: 'rpz', report: true }).finally(() =>
      reader.close(),
    );
    const domains = [
      'www.a.adwolf.ru',
      'blog.logrocket.com',
      'oyy.ru',
      'www.oyy.ru',
      'ADS.Google.com',
      'x.doubleclick.net',
    ];
    let blocked = 0;
    for (const domain of domains) {
      const about = concerns(explainDomain(domain));
      const kept: KeptRule[] = [];
      const removed: RemovedLine[] = [];
      const again = read();
      await compile(real, {
        reader: again,
        compiler: 'x',
        format: 'rpz',
        onKept: (r) => about(r.text) && kept.push(r),
        onRemoved: (r) => about(r.text) && removed.push(r),
      }).finally(() => again.close());
      const answer = explain(domain, whole.report!);
      expect(explain(domain, { format: 'rpz', kept, removed }), domain).toEqual(answer);
      if (answer.blocked) blocked += 1;
    }
    expect(blocked).toBeGreaterThan(0);
    expect(blocked).toBeLessThan(domains.length);
  });

  test('the domain may be an IDN or a URL; anything else is an InputError', () => {
    expect(explainDomain('Пример.РФ')).toBe('xn--e1afmkfd.xn--p1ai');
    expect(explainDomain('https://Ads.Example.org:8443/path?q')).toBe('ads.example.org');
    expect(() => explainDomain('not a domain')).toThrow(InputError);
    expect(() => explainDomain('1.2.3.4')).toThrow(/"1\.2\.3\.4" is not a domain name/);
  });

  test('a report without kept rules, or malformed, is refused naming the file', () => {
    expect(() => parseExplainReport({ removed: [], sources: [], transformations: [] }, 'old.json')).toThrow(
      /old\.json has no "kept" rules or "format": it is not a report of this flc; compile again with --report/,
    );
    expect(() => parseExplainReport({ format: 'adblock', kept: [{ text: 1 }], removed: [] }, 'r.json')).toThrow(
      /r\.json: kept\[0\]\.source: /,
    );
  });
});
