import { describe, expect, test } from 'vitest';
import { compile } from '../../../src/core/pipeline/compile.js';
import type { Configuration } from '../../../src/core/config/schema.js';
import { SourceError } from '../../../src/core/errors/index.js';
import { Allowlist } from '../../../src/core/pipeline/allowlist.js';
import { memoryReader } from '../../support/memory-reader.js';

// One entry removes the domain and its subdomains in every syntax a list uses, IDN and punycode
// alike, keeps look-alike names and never touches an exception.
const LIST = [
  '! comment about example.org',
  '0.0.0.0 a.example.org',
  '127.0.0.1 example.org',
  '||example.org^',
  'example.org',
  'sub.example.org.',
  '||sub.example.org^$important',
  '||deep.sub.EXAMPLE.org^$third-party',
  '|exact.example.org^',
  '||example.org/ads/banner.js',
  '1.2.3.4 rewrite.example.org',
  '||пример.рф^',
  '||xn--e1afmkfd.xn--p1ai^',
  '||sub.пример.рф^',
  '0.0.0.0 a.example.org keep.other.com # two names',
  'notexample.org',
  '||notexample.org^',
  '||example.org.evil.com^',
  '@@||example.org^',
  '@@||sub.example.org^$important',
  'example.org##.ad',
  '||other.com^$domain=example.org',
  '||org^',
  '||keep.example.com^',
].join('\n');

const KEPT = [
  '! comment about example.org',
  '0.0.0.0 keep.other.com',
  'notexample.org',
  '||notexample.org^',
  '||example.org.evil.com^',
  '@@||example.org^',
  '@@||sub.example.org^$important',
  'example.org##.ad',
  '||other.com^$domain=example.org',
  '||org^',
  '||keep.example.com^',
];

async function run(config: Partial<Configuration>, files: Record<string, string> = {}, packed = true) {
  return compile(
    { name: 'A', sources: [{ source: 'list.txt' }], ...config },
    { reader: memoryReader({ '/list.txt': LIST, ...files }), compiler: 'x', report: true, packed },
  );
}

/** The list's own lines in the output (the header and source block left out). */
const body = (lines: string[]) => lines.slice(lines.indexOf('! Source: list.txt') + 2);

describe('the allowlist', () => {
  test.each([true, false])(
    'allow: [example.org, пример.рф] removes them in every syntax, and nothing else (packed: %s)',
    async (packed) => {
      const result = await run({ allow: ['example.org', 'пример.рф'] }, {}, packed);
      expect(body(result.lines)).toEqual(KEPT);
      const removed = result.report!.removed;
      expect(removed.every((r) => r.code === 'allowlisted' && r.transformation === 'Allowlist')).toBe(true);
      expect(removed.map((r) => r.line)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
      expect(removed.find((r) => r.line === 8)!.reason).toBe('deep.sub.example.org (under example.org) is allowlisted');
      expect(removed.find((r) => r.line === 13)!.reason).toBe('xn--e1afmkfd.xn--p1ai is allowlisted');
      expect(removed.find((r) => r.line === 15)!.reason).toBe(
        'a.example.org (under example.org) is allowlisted; the line keeps the rest: 0.0.0.0 keep.other.com',
      );
      expect(
        result.report!.transformations.map((t) => `${t.scope}:${t.name}:${t.inputCount}->${t.outputCount}`),
      ).toEqual(['global:Allowlist:27->14']);
    },
  );

  test('an entry in punycode removes the IDN spelling too, and an IDN entry the punycode one', async () => {
    for (const entry of ['xn--e1afmkfd.xn--p1ai', 'ПРИМЕР.РФ']) {
      const result = await run({ allow: [entry] });
      expect(body(result.lines).filter((l) => /пример|xn--e1afmkfd/.test(l))).toEqual([]);
      expect(body(result.lines)).toContain('||example.org^');
    }
  });

  test('a subdomain entry keeps the parent rule, which still blocks it', async () => {
    const result = await run({ allow: ['sub.example.org'] });
    expect(body(result.lines)).toContain('||example.org^');
    expect(body(result.lines)).not.toContain('||sub.example.org^$important');
    expect(body(result.lines)).toContain('0.0.0.0 a.example.org');
  });

  test('allow_sources: one domain a line, in any syntax; at source level it applies to that source only', async () => {
    const files = {
      '/trusted.txt': '# trusted\n! also a comment\n\nexample.org\n0.0.0.0 keep.example.com\n@@||notexample.org^\n',
      '/b.txt': '||example.org^\n||keep.example.com^',
    };
    const result = await run(
      { sources: [{ source: 'list.txt', allow_sources: ['trusted.txt'] }, { source: 'b.txt' }] },
      files,
    );
    const lines = result.lines;
    const [a, b] = [lines.slice(0, lines.indexOf('! Source: b.txt')), lines.slice(lines.indexOf('! Source: b.txt'))];
    expect(a).not.toContain('||keep.example.com^');
    expect(a).not.toContain('||notexample.org^');
    expect(a).not.toContain('||example.org^');
    expect(b).toEqual(['! Source: b.txt', '!', '||example.org^', '||keep.example.com^']);
    expect(new Set(result.report!.removed.map((r) => r.scope))).toEqual(new Set([0]));
  });

  test('a line of an allow_sources file that names no domain fails the compile, naming the file and line', async () => {
    const files = { '/trusted.txt': 'example.org\n\n/regex/\n' };
    const failure = await run({ allow_sources: ['trusted.txt'] }, files).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(SourceError);
    expect((failure as Error).message).toBe('Allowlist file trusted.txt failed: line 3: "/regex/" names no domain');
    const missing = await run({ allow_sources: ['none.txt'] }).catch((e: unknown) => e);
    expect((missing as Error).message).toMatch(/^Allowlist file none\.txt failed: no such file/);
  });

  test('without allow keys the step does not run', async () => {
    const result = await run({});
    expect(result.report!.transformations).toEqual([]);
    expect(body(result.lines)).toEqual(LIST.split('\n'));
  });

  test('entryFor and mayCover compare names label by label', () => {
    const allow = new Allowlist(['example.org']);
    expect(allow.entryFor('a.b.example.org')).toBe('example.org');
    expect(allow.entryFor('notexample.org')).toBeNull();
    expect(allow.entryFor('example.org.evil.com')).toBeNull();
    expect(allow.mayCover('||ads.other.com^')).toBe(false);
    expect(allow.mayCover('||EXAMPLE.ORG^')).toBe(true);
    expect(allow.check('||notexample.org^')).toBeNull();
    expect(allow.check('@@||example.org^')).toBeNull();
  });
});
