import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ENGINES, firstDifference, flcOutput, flcReport, referenceOutput } from '../support/reference.js';
import { trickyList } from '../support/tricky-lines.js';
import { TRANSFORMATION_NAMES, type TransformationName } from '../../src/core/transforms/types.js';
import type { Configuration } from '../../src/core/config/schema.js';

let dir: string;
const file = (name: string) => join(dir, name);

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'flc-diff-'));
  writeFileSync(file('a.txt'), trickyList(1500, 1));
  writeFileSync(file('b.txt'), trickyList(1500, 2, '\r\n'));
  // With directives, so that every transformation and combination also runs on a list that has them.
  writeFileSync(
    file('c.txt'),
    `\n\n  ${trickyList(400, 3, '\n\n')}\r\n!#if false\r\n||c-hidden.example^\r\n!#else\r\n||c-else.example^\r\n` +
      `!#endif\n!#include inc-child.txt\n${trickyList(200, 4)}\r\n\r\n`,
  );
  writeFileSync(file('excl.txt'), '! exclusions\nex1\n\n/^@@/\n*.org^\n');
  // IP rules in the shapes the IP variants of Validate rewrite or keep, and a line holding a line
  // separator (a line terminator for `^` and `$` under the flag `m`).
  writeFileSync(
    file('ip.txt'),
    [
      '! IP rules',
      '||10.0.0.1^',
      '@@||10.0.0.2^$important',
      '10.0.0.3',
      '  10.0.0.4  ',
      '10.0.0.5$important',
      '|10.0.0.6^|',
      '||10.1.2.',
      '10.1.2.*',
      '10.1.2.',
      '||10.1.*',
      '||010.0.0.1^',
      '||256.0.0.1^',
      '||10.0.0.1^$dnstype=A',
      '! a comment above a dropped rule',
      '10.0',
      '||a.example^',
      '||line\u2028sep.example^',
      'ex\u2028||start.example^',
      '@@||b.example^',
      '0.0.0.0 c.example',
    ].join('\n'),
  );
  writeFileSync(file('incl.txt'), '# inclusions\n||\n/\\./\n');
  writeFileSync(file('empty.txt'), '');
  writeFileSync(
    file('inc-main.txt'),
    [
      '! main',
      '!#include inc-child.txt',
      '||main.example^',
      '!#if true',
      '||if-true.example^',
      '!#else',
      '||if-else.example^',
      '!#endif',
      '!#if !ext_ubol',
      '||not-ubol.example^',
      '!#endif',
      '!#if (ext_ubol || cap_html_filtering)',
      '||never.example^',
      '!#endif',
    ].join('\n'),
  );
  writeFileSync(
    file('inc-child.txt'),
    '! Diff-Path: patches/x.patch\n||child.example^\n!#if false\n||hidden.example^\n!#endif',
  );
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every engine of flc gives the reference's output, and both report the same removed lines, reasons and counts. */
async function same(config: Configuration) {
  const [reference, ...ours] = await Promise.all([
    referenceOutput(config),
    ...ENGINES.map((engine) => flcOutput(config, engine)),
  ]);
  for (const [i, engine] of ENGINES.entries()) expect(firstDifference(reference, ours[i]), engine).toBeNull();
  const [packed, strings] = await Promise.all([flcReport(config, true), flcReport(config, false)]);
  expect(packed).toEqual(strings);
  return ours[0];
}

const VALIDATORS = [
  'Validate',
  'ValidateAllowIp',
  'ValidateAllowPublicSuffix',
  'ValidateAllowIpAndPublicSuffix',
] as const;
const NON_VALIDATORS = TRANSFORMATION_NAMES.filter((t) => !(VALIDATORS as readonly string[]).includes(t));

const COMBINATIONS: TransformationName[][] = [
  ['RemoveComments', 'Deduplicate', 'Compress', 'Validate', 'TrimLines', 'InsertFinalNewLine'],
  ...VALIDATORS.map((v) => [...NON_VALIDATORS.filter((t) => t !== 'InvertAllow'), v]),
  ['InvertAllow', 'RemoveModifiers', 'ValidateAllowIp', 'Deduplicate'],
  ['ConvertToAscii', 'Compress', 'ValidateAllowIpAndPublicSuffix', 'RemoveEmptyLines'],
  ['TrimLines', 'Compress', 'Deduplicate'],
  ['InsertFinalNewLine', 'Deduplicate', 'RemoveComments'],
  [
    ...TRANSFORMATION_NAMES.filter(
      (t) => !(VALIDATORS as readonly string[]).includes(t) || t === 'ValidateAllowPublicSuffix',
    ),
  ],
];

describe('generated lists, one transformation at a time', () => {
  test.each(TRANSFORMATION_NAMES.map((t) => [t]))('%s alone, on LF, CRLF and blank-line-heavy input', async (t) => {
    await same({
      name: 'Gen',
      sources: [{ source: file('a.txt') }, { source: file('b.txt') }, { source: file('c.txt') }],
      transformations: [t],
    });
  });

  test.each(TRANSFORMATION_NAMES.map((t) => [t]))('%s alone at source level', async (t) => {
    await same({
      name: 'Gen',
      sources: [
        { source: file('a.txt'), name: 'A', transformations: [t] },
        { source: file('b.txt'), transformations: [t] },
      ],
    });
  });
});

describe('generated lists, combinations', () => {
  test.each(COMBINATIONS.map((c) => [c.join('+'), c]))('%s', async (_name, transformations) => {
    await same({
      name: 'Gen',
      description: 'combination',
      sources: [{ source: file('a.txt') }, { source: file('b.txt'), name: 'B' }],
      transformations,
    });
  });

  test('source-level and list-level transformations together', async () => {
    await same({
      name: 'Gen',
      version: '1.2.3',
      homepage: 'https://example.org',
      license: 'MIT',
      sources: [
        { source: file('a.txt'), name: 'A', transformations: ['TrimLines', 'Compress', 'ValidateAllowIp'] },
        { source: file('b.txt'), transformations: ['RemoveModifiers', 'ConvertToAscii'] },
        { source: file('c.txt'), name: 'C' },
      ],
      transformations: ['RemoveComments', 'Deduplicate', 'RemoveEmptyLines', 'InsertFinalNewLine'],
    });
  });
});

describe('exclusions and inclusions', () => {
  const kinds = {
    plain: ['ex2', 'ads'],
    wildcard: ['*.org^', '||*example*^$*', '@@*'],
    regex: ['/^\\|\\|[a-z]+\\.ex\\d/', '/DOMAIN=/'],
    // Anchored at the line's start: joined, and tried there only (with look-aheads).
    'anchored regex': ['/^@@/', '/(?!^(\\|\\||@@\\|\\|))^.+/', '/(^0|^1)\\./', '/^\\|\\|[^.]+\\^/'],
    // With literals to look for first.
    'keyed regex': ['/\\.(?:com|org)\\^/', '/(?<=\\.)EX[0-9]/', '/\\$(?!important)/', '/START\\.ex/'],
    // The shape maintainers run (bench/compile/configs.js `regex-exclusions`): every kind at once.
    'many regexes': [
      '/^!/',
      '/^\\|\\|[0-9.]+\\^/',
      '/\\$(?!important$)(?!important,)[a-z~]/',
      '/\\^(?!$)(?!\\$)(?!\\|$)/',
      '/\\b(?:ex1|ex3)\\b/',
      '/^\\|\\|(?=[^^]*7)/',
      '/[^\\x00-\\x7f]/',
      '/^(?:0\\.0\\.0\\.0|127\\.0\\.0\\.1) /',
      '/^\\|\\|(?!.*\\.)/',
      '/^[^|@].*\\^$/',
      'localhost',
    ],
  };

  test.each(Object.entries(kinds))('%s exclusions, list and source level', async (_kind, patterns) => {
    const out = await same({
      name: 'Gen',
      sources: [{ source: file('a.txt'), exclusions: patterns }, { source: file('b.txt') }],
      exclusions: patterns.slice(0, 1),
      transformations: ['Deduplicate'],
    });
    expect(out.length).toBeGreaterThan(10);
  });

  test.each(Object.entries(kinds))('%s inclusions, list and source level', async (_kind, patterns) => {
    await same({
      name: 'Gen',
      sources: [{ source: file('a.txt'), inclusions: patterns }, { source: file('b.txt') }],
      inclusions: [...patterns, '! Source'],
    });
  });

  test('every kind together, in an order that mixes them, on a list with IP rules and line separators', async () => {
    const patterns = ['/START\\.ex/', 'ads', '/^@@/', '*.org^', '/\\.(?:com|org)\\^/', '/(?!^(\\|\\||@@\\|\\|))^.+/'];
    await same({
      name: 'Gen',
      sources: [
        { source: file('ip.txt'), exclusions: patterns },
        { source: file('a.txt'), inclusions: patterns },
      ],
      exclusions: patterns.slice(2),
      transformations: ['Deduplicate'],
    });
  });

  test("regexes anchored at the line's start, lines ruled out by how they open (line separators kept)", async () => {
    // The bench's regex-inclusion shape, and regexes opening with a digit or a letter of either case.
    const patterns = [
      '/^(?![!#])(?!.*#[@$?%]?#)(@@)?\\|\\|[^\\/\\s]+\\^(\\$[a-z~,-]+)?$/',
      '/^[0-9]+\\.[0-9]/',
      '/(^Z|^x)\\w/',
    ];
    const out = await same({
      name: 'Gen',
      sources: [
        { source: file('ip.txt'), inclusions: patterns },
        { source: file('a.txt'), inclusions: patterns.slice(0, 1) },
        { source: file('b.txt'), exclusions: patterns.slice(1) },
      ],
      inclusions: [...patterns, '/^!/'],
      transformations: ['Deduplicate'],
    });
    expect(out).toContain('ex\u2028||start.example^');
  });

  test("lists long enough for their sets' automata (50,000 lines or more), read in the kernel", async () => {
    // Regexes every one of which the automaton reads (pipeline/regex-dfa.ts): look-aheads at the
    // start, `$`, classes, repetitions, either case; lines outside ASCII, with line separators
    // (after which `^` holds again) and empty ones are asked of V8.
    const rules = (n: number, seed: number) =>
      Array.from({ length: n }, (_, i) => {
        const k = (i * 7919 + seed) % 13;
        if (k === 0) return `||H${i}.Example^$Third-Party`;
        if (k === 1) return `@@||w${i}.example^`;
        if (k === 2) return `example.org##.ad-${i}`;
        if (k === 3) return `! comment ${i}`;
        if (k === 4) return `||ä${i}.example^`;
        if (k === 5) return `x\u2028||sep${i}.example^`;
        if (k === 6) return `0.0.0.0 hosts${i}.example`;
        if (k === 7) return `||d${i}.example^|`;
        if (k === 8) return '';
        return `||h${i % 997}.s${seed}.example^${k === 9 ? '$important' : ''}`;
      });
    writeFileSync(file('long-1.txt'), [trickyList(3000, 11), ...rules(48000, 1)].join('\n'));
    writeFileSync(file('long-2.txt'), rules(51000, 2).join('\r\n'));
    const inclusions = [
      '/^(?![!#])(?!.*#[@$?%]?#)(@@)?\\|\\|[^\\/\\s]+\\^(\\$[a-z~,-]+)?$/',
      '/^[0-9]+\\.[0-9]/',
      '/(^Z|^x)\\w/',
      '/^\\|\\|d\\d{2,3}\\./',
    ];
    const out = await same({
      name: 'Gen',
      sources: [
        { source: file('long-1.txt'), inclusions },
        { source: file('long-2.txt'), exclusions: ['/^@@/', '/(?!^(\\|\\||@@\\|\\|))^.+/', '/\\$important$/'] },
      ],
      inclusions: [...inclusions, '/^!/'],
      transformations: ['Deduplicate'],
    });
    expect(out).toContain('||H6.Example^$Third-Party');
    expect(out).toContain('x\u2028||sep2.example^');
    expect(out).not.toContain('hosts9.example');
  });

  test('a list-level inclusion keeping few of the bytes read, then the kernel steps (regex-inclusion)', async () => {
    // Long lines the inclusion drops between the rules it keeps: the sources are joined from the
    // lines kept (gathered), and Compress, Validate, Deduplicate and the output copy only those.
    const long = (i: number) => [`example.org##.ad-${i}-${'x'.repeat(400)}`, `! ${'-'.repeat(300)} ${i}`];
    const lines = (n: number, seed: number) =>
      Array.from({ length: n }, (_, i) => [
        ...long(i),
        `||h${i % 97}.s${seed}.example^`,
        `||sub.h${i % 89}.s${seed}.example^$third-party`,
        `@@||ok${i}.example^`,
        `0.0.0.0 hosts${i}.example`,
      ]).flat();
    writeFileSync(file('sparse-1.txt'), lines(400, 1).join('\n'));
    writeFileSync(file('sparse-2.txt'), lines(300, 2).join('\r\n'));
    writeFileSync(file('sparse-3.txt'), lines(350, 3).join('\n'));
    const out = await same({
      name: 'Gen',
      // Together more than the largest's room after its bytes (as much again), so joined anew.
      sources: ['sparse-1.txt', 'a.txt', 'sparse-2.txt', 'sparse-3.txt'].map((f) => ({ source: file(f) })),
      inclusions: ['/^(?![!#])(?!.*#[@$?%]?#)(@@)?\\|\\|[^\\/\\s]+\\^(\\$[a-z~,-]+)?$/'],
      transformations: ['RemoveComments', 'Compress', 'Validate', 'Deduplicate', 'InsertFinalNewLine'],
    });
    expect(out).toContain('||h5.s2.example^');
    expect(out).not.toContain('hosts1.example');
  });

  test('an inclusion of every line (`*`), and an exclusion of every line', async () => {
    const out = await same({
      name: 'Gen',
      sources: [
        { source: file('a.txt'), inclusions: ['*'] },
        { source: file('ip.txt'), exclusions: ['**'] },
      ],
      inclusions: ['*', '/never/'],
      transformations: ['RemoveComments'],
    });
    expect(out.length).toBeGreaterThan(100);
  });

  test.each(VALIDATORS.map((v) => [v]))('%s on IP rules, with exclusion files', async (validator) => {
    await same({
      name: 'Gen',
      sources: [
        {
          source: file('ip.txt'),
          transformations: ['RemoveModifiers', validator],
          exclusions_sources: [file('excl.txt')],
        },
        { source: file('b.txt'), transformations: ['Compress', validator] },
      ],
      transformations: ['Deduplicate'],
    });
  });

  test('exclusions_sources and inclusions_sources with comments and blank lines', async () => {
    await same({
      name: 'Gen',
      sources: [
        { source: file('a.txt'), exclusions_sources: [file('excl.txt')] },
        { source: file('b.txt'), inclusions_sources: [file('incl.txt')], exclusions: ['ex0'] },
      ],
      exclusions_sources: [file('excl.txt')],
      inclusions_sources: [file('incl.txt')],
      inclusions: ['!'],
      transformations: ['Compress', 'Validate'],
    });
  });
});

describe('loading', () => {
  test('!#include, !#if/!#else, Diff-Path lines and an empty source', async () => {
    const out = await same({
      name: 'Gen',
      sources: [{ source: file('inc-main.txt') }, { source: file('empty.txt'), name: 'Empty' }],
      transformations: ['RemoveComments'],
    });
    expect(out).toContain('||child.example^');
    expect(out).toContain('||not-ubol.example^');
    expect(out).not.toContain('||hidden.example^');
  });

  test('Diff-Path lines dropped the way the reference walks them: next to each other, and past line 50', async () => {
    writeFileSync(file('diff-two.txt'), '! Diff-Path: a.patch\n! Diff-Path: b.patch\n||i.example^');
    const rules = Array.from({ length: 49 }, (_, i) => `||r${i}.example^`);
    writeFileSync(file('diff-late.txt'), ['! Diff-Path: a', ...rules, '! Diff-Path: b', '||z.example^'].join('\n'));
    writeFileSync(file('diff-main.txt'), '||a.example^\n!#include diff-two.txt\n!#include diff-late.txt\n||z.example^');
    const out = await same({ name: 'Gen', sources: [{ source: file('diff-main.txt') }] });
    // The second of two neighbours stays; the one that the window reaches after a removal goes.
    expect(out).toContain('! Diff-Path: b.patch');
    expect(out).not.toContain('! Diff-Path: b');
  });
});
