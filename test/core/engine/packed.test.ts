import { PACKED_FORMS } from '../../../src/core/engine/packed-engine.js';
import { describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import fc from 'fast-check';
import * as tldts from 'tldts';
import { isOwnPublicSuffix, pslPathNames } from '../../support/psl-names.js';
import {
  concatPacked,
  joinPacked,
  keepWherePacked,
  packBytes,
  packedLines,
  packStrings,
  packText,
  unpackLines,
  PackedBuilder,
  type PackedLines,
} from '../../../src/core/engine/packed.js';
import { splitText } from '../../../src/core/load/split.js';
import { TRANSFORMATIONS } from '../../../src/core/transforms/registry.js';
import { compressPackedJs } from '../../../src/core/engine/compress.js';
import type { Lines } from '../../../src/core/transforms/lines.js';
import type { TransformContext } from '../../../src/core/transforms/types.js';
import { cleanHostname, cleanHostnameAt, ruleProblem, ruleProblemAt } from '../../../src/core/rules/rule-validity.js';
import { isOwnPublicSuffixAt } from '../../../src/core/rules/public-suffix.js';
import {
  isJustDomain,
  isJustDomainAt,
  plainHostRuleAt,
  plainHostRuleHostname,
  simpleHostsLineAt,
  simpleHostsLineHostname,
} from '../../../src/core/rules/rule-text.js';
import { ByteTable } from '../../../src/core/engine/byte-table.js';
import { ALL_TRICKY, trickyList } from '../../support/tricky-lines.js';

const CORPUS = resolve(import.meta.dirname, '../../../../shared/corpus');

/**
 * Shapes the byte code decides or must hand to the string code: Unicode whitespace, BOM,
 * non-ASCII, exceptions and single modifiers, commas and spaces after `$`.
 */
const UNICODE_LINES = [
  '||single.example.com^$third-party',
  '@@||single.example.com^$popup',
  '@@||allowed.example.com^',
  '@@||co.uk^',
  '@x||one-at.example.com^',
  '@@||1.2.3.4^',
  '||x.example.com^$important',
  '||UPPER.example.com^$third-party',
  '||a.b^$3p',
  '||dollar.example.net^$,,',
  '||dollar.example.net^$ ',
  '||escaped.example.net^\\$third-party',
  '||under_score.example.net^$third_party',
  '0.0.0.0\u00a0nbsp.example.com',
  '\u00a0||nbsp.example.com^\u00a0',
  '\ufeff||bom.example.com^',
  '0.0.0.0 em-space.example.com\u2003',
  '127.0.0.1 münchen.de',
  'ex.example.com\u3000',
  '\u2028',
  '\u00a0',
  '||xn--mnchen-3ya.de^',
  '||ünicode.example.com^$important',
  '0.0.0.0 a.example.com b.example.com sub.a.example.com',
  '127.0.0.1 x.example.org\ty.example.org # two names',
  '||dollar.example.com^$,',
];

const lists: [string, string][] = [
  ['tricky LF', trickyList(3000, 11)],
  ['tricky CRLF with blank runs', `\r\n\n ${trickyList(1500, 12, '\r\n')}\r\r\n${trickyList(500, 13, '\n\n')}\n\n`],
  ['tricky lone CR', trickyList(800, 14, '\r')],
  ['unicode', [...UNICODE_LINES, ...UNICODE_LINES.map((l) => l.replace('example', 'ex2')), ...ALL_TRICKY].join('\n')],
  ['hosts corpus', readFileSync(`${CORPUS}/hosts-hagezi-light.txt`, 'utf8')],
  ['adblock corpus', readFileSync(`${CORPUS}/adblock-hagezi-light.txt`, 'utf8')],
  ['easylist', readFileSync(`${CORPUS}/easylist.txt`, 'utf8')],
];

type Removal = [string, number | undefined, string, string];

function recorder(): TransformContext & { log: Removal[] } {
  const log: Removal[] = [];
  return { reporting: true, log, removed: (line, origin, code, reason) => void log.push([line, origin, code, reason]) };
}

describe('packing', () => {
  test.each(lists)('packText splits %s exactly as splitText, with the same line numbers', (_name, text) => {
    const packed = packText(text, 3)!;
    const split = splitText(text, true);
    expect(unpackLines(packed).text).toEqual(split.lines);
    expect(Array.from(packed.from!, (v) => v % 2 ** 32)).toEqual(Array.from(split.numbers!));
    expect(Array.from(packed.from!, (v) => Math.floor(v / 2 ** 32)).every((f) => f === 3)).toBe(true);
    expect(new TextDecoder().decode(joinPacked(packed))).toBe(split.lines.join('\n'));
  });

  test('generated texts split alike, whatever their breaks and edges', () => {
    const piece = fc.constantFrom('a', '||x.example^', ' ', '\t', '\r', '\n', '\r\n', '\u00a0', 'é', '!', '#');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
        const text = pieces.join('');
        const packed = packText(text, 0)!;
        const split = splitText(text, true);
        expect(unpackLines(packed).text).toEqual(split.lines);
        expect(Array.from(packed.from!)).toEqual(Array.from(split.numbers!));
      }),
      { numRuns: 2000 },
    );
  });

  test.each(lists)(
    'packBytes splits the UTF-8 of %s exactly as splitText, with the same line numbers',
    (_name, text) => {
      const packed = packBytes(new TextEncoder().encode(text), 3);
      const split = splitText(text, true);
      // Only a list that starts or ends with non-ASCII (maybe whitespace trim() removes) is refused.
      if (packed === null) {
        expect(/^\s*[\u0080-\uffff]|[\u0080-\uffff]\s*$/.test(text)).toBe(true);
        return;
      }
      expect(unpackLines(packed).text).toEqual(split.lines);
      expect(Array.from(packed.from!, (v) => v % 2 ** 32)).toEqual(Array.from(split.numbers!));
      expect(new TextDecoder().decode(joinPacked(packed))).toBe(split.lines.join('\n'));
    },
  );

  test('generated bytes split as their text, or are refused only for a non-ASCII edge', () => {
    const piece = fc.constantFrom(
      'a',
      '||x.example^',
      ' ',
      '\t',
      '\v',
      '\f',
      '\r',
      '\n',
      '\r\n',
      '\u00a0',
      '\ufeff',
      'é',
      '!',
      '#',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
        const text = pieces.join('');
        const packed = packBytes(new TextEncoder().encode(text), 0);
        const trimmedAscii = text.replace(/^[\t-\r ]+|[\t-\r ]+$/g, '');
        if (packed === null) {
          expect(/^[\u0080-\uffff]|[\u0080-\uffff]$/.test(trimmedAscii)).toBe(true);
          return;
        }
        const split = splitText(text, true);
        expect(unpackLines(packed).text).toEqual(split.lines);
        expect(Array.from(packed.from!)).toEqual(Array.from(split.numbers!));
      }),
      { numRuns: 2000 },
    );
  });

  test('bytes split alike whatever their alignment in memory and whatever bytes sit near a break', () => {
    // splitPacked skips four bytes at a time when they hold no byte under 14, on aligned buffers.
    const piece = fc.constantFrom(
      'ab',
      'abcd',
      '||x.example^',
      '\r',
      '\n',
      '\r\n',
      '\t',
      '\u0000',
      '\u000b',
      '\u000e',
      '\u007f',
      'é',
      '€',
      '😀',
      ' ',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), fc.integer({ min: 0, max: 3 }), (pieces, offset) => {
        const text = `x${pieces.join('')}x`;
        const encoded = new TextEncoder().encode(text);
        const holder = new Uint8Array(encoded.length + offset);
        holder.set(encoded, offset);
        const packed = packBytes(holder.subarray(offset), 0)!;
        const split = splitText(text, true);
        expect(unpackLines(packed).text).toEqual(split.lines);
        expect(Array.from(packed.from!)).toEqual(Array.from(split.numbers!));
      }),
      { numRuns: 3000 },
    );
  });

  test("packed bytes are the reader's own buffer, and rewrites append after all of it", () => {
    const bytes = new TextEncoder().encode('\n\n  0.0.0.0 a.example\n||b.example^  \n\n0.0.0.0 c.example \n\n');
    const packed = packBytes(bytes, 0)!;
    expect(packed.bytes).toBe(bytes);
    expect(packed.used).toBe(bytes.length);
    expect(unpackLines(packed).text).toEqual(['0.0.0.0 a.example', '||b.example^  ', '0.0.0.0 c.example']);
    expect(Array.from(packed.from!)).toEqual([3, 4, 6]);
    const compress = TRANSFORMATIONS.find((t) => t.name === 'Compress')!;
    const compressed = unpackLines(PACKED_FORMS.Compress!(packed, recorder()));
    expect(compressed.text).toEqual(compress.apply(unpackLines(packed), recorder()).text);
    expect(compressed.text).toContain('||c.example^');
    expect(new TextDecoder().decode(bytes)).toBe('\n\n  0.0.0.0 a.example\n||b.example^  \n\n0.0.0.0 c.example \n\n');
  });

  test.each([
    [
      'Compress',
      (list: PackedLines) =>
        PACKED_FORMS.Compress!(list, {
          reporting: false,
          removed: () => undefined,
        }),
    ],
    ['its TypeScript', (list: PackedLines) => compressPackedJs(list, { reporting: false, removed: () => undefined })],
  ])(
    'concatenation appends small lists in the room after a large one, and leaves room itself (%s)',
    (name, compress) => {
      const header = packStrings(['! Title: x', '!']);
      const body = packText(
        Array.from({ length: 300 }, (_, i) => (i % 2 ? `0.0.0.0 h${i}.example` : `||k${i}.example^`)).join('\n'),
      )!;
      // Exact-size buffers: a new buffer, half as large again, whose room the TypeScript Compress
      // then writes into (the WebAssembly kernel writes into its own memory, with room after).
      const joined = concatPacked([header, body], false);
      expect(joined.bytes.length).toBeGreaterThanOrEqual(joined.used * 1.5 - 1);
      const compressed = compress(joined);
      if (name === 'Compress') expect(compressed.bytes).not.toBe(joined.bytes);
      else expect(compressed.bytes).toBe(joined.bytes);
      // Compress left room: the header goes after its bytes, which stay where they are.
      const before = unpackLines(compressed).text;
      const final = concatPacked([header, compressed, header], false);
      expect(final.bytes).toBe(compressed.bytes);
      expect(final.used).toBe(compressed.used + header.used);
      expect(unpackLines(final).text).toEqual([...unpackLines(header).text, ...before, ...unpackLines(header).text]);
      expect(unpackLines(compressed).text).toEqual(before);
      expect(unpackLines(joined).text).toEqual([...unpackLines(header).text, ...unpackLines(body).text]);
      // No room for the others: copied, the large list untouched.
      const tight = packedLines(compressed.bytes, compressed.bytes.length - 1, compressed.start, compressed.end);
      const copied = concatPacked([header, tight], false);
      expect(copied.bytes).not.toBe(tight.bytes);
      expect(unpackLines(copied).text).toEqual([...unpackLines(header).text, ...before]);
    },
  );

  test('a list read with room after it stays in its one buffer through joining and Compress', () => {
    const quiet = { reporting: false, removed: () => undefined };
    const text = Array.from({ length: 200 }, (_, i) => `0.0.0.0 h${i}.example`).join('\n');
    const list = new TextEncoder().encode(text);
    const bytes = new Uint8Array(list.length * 2 + 1024);
    bytes.set(list);
    // The room is not the list's, whatever it holds.
    bytes.set(new TextEncoder().encode('\n||room.example^'), list.length);
    const packed = packBytes(bytes, 0, list.length)!;
    expect(packed.used).toBe(list.length);
    const joined = concatPacked([packStrings(['! Source: x']), packed], false);
    expect(joined.bytes).toBe(bytes);
    // The TypeScript Compress writes into that room (the WebAssembly kernel has its own memory).
    const compressed = compressPackedJs(joined, quiet);
    expect(compressed.bytes).toBe(bytes);
    expect(unpackLines(compressed).text).toEqual([
      '! Source: x',
      ...Array.from({ length: 200 }, (_, i) => `||h${i}.example^`),
    ]);
  });

  test('text packs with room after its bytes, or without when its UTF-8 takes more than twice its units', () => {
    const ascii = packText('||a.example^\n0.0.0.0 b.example')!;
    expect(ascii.bytes.length - ascii.used).toBeGreaterThanOrEqual(ascii.used);
    // Three UTF-8 bytes per unit, over a thousand units: more than the room guessed for them.
    const wide = Array.from({ length: 3 }, (_, i) => `||${'漢字'.repeat(300)}${i}.example^`).join('\n');
    const packed = packText(wide, 0)!;
    expect(packed.used).toBe(new TextEncoder().encode(wide).length);
    expect(unpackLines(packed).text).toEqual(splitText(wide, false).lines);
  });

  test("filtering and trimming move lines within the list's own arrays", () => {
    const list = packText(['||a.example^', ' ! comment', '||b.example^\t', '||c.example^'].join('\n'), 0)!;
    const { start, end, from } = list;
    const trimmed = PACKED_FORMS.TrimLines!(list, recorder());
    expect(trimmed.start.buffer).toBe(start.buffer);
    expect(unpackLines(trimmed).text).toEqual(['||a.example^', '! comment', '||b.example^', '||c.example^']);
    const kept = keepWherePacked(trimmed, Uint8Array.from([1, 0, 1, 1]));
    expect([kept.start.buffer, kept.end.buffer, kept.from!.buffer]).toEqual([start.buffer, end.buffer, from!.buffer]);
    expect(unpackLines(kept).text).toEqual(['||a.example^', '||b.example^', '||c.example^']);
    expect(Array.from(kept.from!)).toEqual([1, 3, 4]);
  });

  test('text with a lone surrogate stays in string form', () => {
    expect(packText('||a.example^\n\ud800x')).toBeNull();
  });

  test('a header line holding a line break survives unpacking', () => {
    const packed = packStrings(['! Description: two\nlines', '||a.example^']);
    expect(unpackLines(packed).text).toEqual(['! Description: two\nlines', '||a.example^']);
  });
});

describe('every packed transformation equals its string form', () => {
  const packedOnes = TRANSFORMATIONS.filter((t) => PACKED_FORMS[t.name]);

  test('the transformations that pay have a packed form; IP-normalising validators do not', () => {
    expect(packedOnes.map((t) => t.name).sort()).toEqual(
      [
        'Compress',
        'ConvertToAscii',
        'Deduplicate',
        'InsertFinalNewLine',
        'RemoveComments',
        'RemoveEmptyLines',
        'RemoveModifiers',
        'TrimLines',
        'Validate',
        'ValidateAllowPublicSuffix',
      ].sort(),
    );
  });

  for (const t of packedOnes) {
    test.each(lists)(`${t.name} on %s: same lines, provenance and removal records`, (_name, text) => {
      const packed = packText(text, 0)!;
      const strings: Lines = unpackLines(packed);
      const byString = recorder();
      const byBytes = recorder();
      const expected = t.apply(strings, byString);
      const actual = unpackLines(PACKED_FORMS[t.name]!(packed, byBytes));
      expect(actual.text).toEqual(expected.text);
      expect(Array.from(actual.from!)).toEqual(Array.from(expected.from!));
      expect(byBytes.log).toEqual(byString.log);
    });
  }

  test('the whole bench chain, packed from start to end, equals the string chain', () => {
    const chain = [
      'TrimLines',
      'RemoveComments',
      'Compress',
      'Validate',
      'Deduplicate',
      'RemoveEmptyLines',
      'InsertFinalNewLine',
    ];
    const steps = TRANSFORMATIONS.filter((t) => chain.includes(t.name));
    for (const [, text] of lists) {
      let packed: PackedLines = packText(text)!;
      let strings: Lines = unpackLines(packed);
      const quiet = { reporting: false, removed: () => undefined };
      for (const t of steps) {
        packed = PACKED_FORMS[t.name]!(packed, quiet);
        strings = t.apply(strings, quiet);
      }
      expect(unpackLines(packed).text).toEqual(strings.text);
      expect(new TextDecoder().decode(joinPacked(packed))).toBe(strings.text.join('\n'));
    }
  });
});

describe('byte helpers agree with their string counterparts', () => {
  const encoder = new TextEncoder();
  const corpusLines = [
    'hosts-hagezi-light.txt',
    'adblock-hagezi-light.txt',
    'easylist.txt',
    'adguard-dns-filter-2019.txt',
  ]
    .flatMap((f) => readFileSync(`${CORPUS}/${f}`, 'utf8').split(/\r?\n/))
    .filter((_, i) => i % 7 === 0);
  const samples = [...ALL_TRICKY, ...UNICODE_LINES, ...corpusLines];
  const at = (line: string) => {
    const b = encoder.encode(`xx${line}yy`);
    return { b, s: 2, e: b.length - 2 };
  };

  test('line shapes: ||host^, simple hosts lines, bare domains', () => {
    for (const line of samples) {
      const { b, s, e } = at(line);
      const plain = plainHostRuleHostname(line);
      expect(plainHostRuleAt(b, s, e) === -1 ? null : line.substring(2, line.length - 1), line).toBe(plain);
      const simple = simpleHostsLineHostname(line);
      const simpleAt = simpleHostsLineAt(b, s, e);
      // The byte form may leave a non-ASCII name to the string code, never the reverse.
      if (simpleAt !== -1) expect(new TextDecoder().decode(b.subarray(simpleAt, e)), line).toBe(simple);
      else if (simple !== null) expect(/[\u0080-\uffff]/.test(simple), line).toBe(true);
      expect(isJustDomainAt(b, s, e), line).toBe(isJustDomain(line));
    }
  });

  test('line shapes agree for every ASCII character in every position of each shape', () => {
    // The byte scanners classify characters by a table; this walks the table's whole range.
    const chars = [...Array.from({ length: 128 }, (_, c) => String.fromCharCode(c)), '\u00a0', 'é', '\u2028', '\ufeff'];
    for (const ch of chars) {
      for (const line of [
        `||ab${ch}cd.com^`,
        `||${ch}ab.com^`,
        `0.0.0.0 ab${ch}cd.com`,
        `127.0.0.1 ${ch}ab`,
        `ab${ch}cd.com`,
        `${ch}ab.com`,
        `ab.com${ch}`,
        `ab.${ch}`,
      ]) {
        const { b, s, e } = at(line);
        expect(plainHostRuleAt(b, s, e) === -1 ? null : line.substring(2, line.length - 1), line).toBe(
          plainHostRuleHostname(line),
        );
        const simpleAt = simpleHostsLineAt(b, s, e);
        const simple = simpleHostsLineHostname(line);
        if (simpleAt !== -1) expect(new TextDecoder().decode(b.subarray(simpleAt, e)), line).toBe(simple);
        else if (simple !== null) expect(/[\u0080-\uffff]/.test(simple), line).toBe(true);
        expect(isJustDomainAt(b, s, e), line).toBe(isJustDomain(line));
      }
    }
  });

  test('validity on bytes equals ruleProblem, for every option set', () => {
    const options = [
      { allowIp: false, allowPublicSuffix: false },
      { allowIp: false, allowPublicSuffix: true },
    ];
    for (const opts of options) {
      for (const line of samples) {
        const { b, s, e } = at(line);
        expect(ruleProblemAt(b, s, e, opts), line).toBe(ruleProblem(line, opts));
      }
    }
  });

  test('IP-address patterns and lines with non-domain characters: bytes agree with ruleProblem', () => {
    const octet = fc.oneof(
      fc.integer({ min: 0, max: 300 }).map(String),
      fc.constantFrom('00', '01', '010', '255', '256', '1000', '*', ''),
    );
    const ip = fc.array(octet, { minLength: 1, maxLength: 5 }).map((o) => o.join('.'));
    const ipRule = fc
      .tuple(
        fc.constantFrom('', '@@'),
        fc.constantFrom('||', '|', ''),
        ip,
        fc.constantFrom('^', '^|', '', '.^', '^$important', '^$third-party'),
      )
      .map((parts) => parts.join(''));
    const junk = fc.constantFrom(
      '#',
      '##',
      '#@#',
      '#?#',
      '$',
      ' ',
      '\t',
      '/',
      ':',
      ',',
      '~',
      '=',
      'é',
      '!',
      '@',
      '%',
      '[',
      ']',
      '"',
    );
    const word = fc.stringMatching(/^[a-zA-Z0-9.*|^-]{0,8}$/);
    const junkLine = fc
      .tuple(fc.constantFrom('', '@@', '||', '!', '#', '/', '://', ' '), word, junk, word)
      .map((parts) => parts.join(''));
    for (const opts of [
      { allowIp: false, allowPublicSuffix: false },
      { allowIp: true, allowPublicSuffix: false },
    ]) {
      fc.assert(
        fc.property(fc.oneof(ipRule, junkLine), (line) => {
          const { b, s, e } = at(line);
          expect(ruleProblemAt(b, s, e, opts), line).toBe(ruleProblem(line, opts));
        }),
        { numRuns: 5000 },
      );
    }
    // The shapes the fast paths take, for the record.
    expect(ruleProblem('||1.2.3.4^', { allowIp: false, allowPublicSuffix: false })).toBe('IP address is not allowed');
    expect(ruleProblem('example.org##.ad', { allowIp: false, allowPublicSuffix: false })).toBe(
      'contains characters that cannot be in a domain name',
    );
  });

  test('single-modifier verdicts stay right for thousands of distinct names (past the verdict cache)', () => {
    const opts = { allowIp: false, allowPublicSuffix: false };
    for (let i = 0; i < 3000; i += 1) {
      for (const line of [
        `||m${i}.example.com^$fake-${i}`,
        `||m${i}.example.com^$important`,
        `@@||m${i}.example.com^$ctag`,
      ]) {
        const { b, s, e } = at(line);
        expect(ruleProblemAt(b, s, e, opts), line).toBe(ruleProblem(line, opts));
      }
    }
  });

  test('the public-suffix walk on bytes equals tldts on every name of the list, and one label below it', () => {
    // Every path of both tries, as it is and under one more label.
    const names = pslPathNames().flatMap((name) => [name, `a.${name}`, `a1-b.${name}`]);
    const light = { extractHostname: false, validateHostname: false, detectIp: false, mixedInputs: false };
    let checked = 0;
    for (const h of names) {
      if (!cleanHostname(h)) continue;
      const { b, s, e } = at(h);
      expect(isOwnPublicSuffixAt(b, s, e), h).toBe(tldts.getPublicSuffix(h, light) === h);
      checked += 1;
    }
    expect(checked).toBeGreaterThan(15_000);
  });

  test('clean hostnames and the public-suffix walk on bytes', () => {
    const suffixes = [
      'com',
      'co.uk',
      'uk',
      'github.io',
      'kawasaki.jp',
      'city.kawasaki.jp',
      'ck',
      'www.ck',
      'a.ck',
      'de',
      'x.de',
      'invalidtld',
      'appspot.com',
      'net',
      'blogspot.com',
      'localhost',
      'x',
      'a.b.invalidtld',
      'k12.ak.us',
      'ak.us',
      'x.k12.ak.us',
      'nom.br',
      'a.nom.br',
    ];
    const label = fc
      .array(fc.constantFrom(...'abz09-'.split('')), { minLength: 1, maxLength: 8 })
      .map((c) => c.join(''));
    const host = fc
      .tuple(fc.array(label, { maxLength: 3 }), fc.constantFrom(...suffixes))
      .map(([ls, s]) => [...ls, s].join('.'));
    fc.assert(
      fc.property(host, (h) => {
        const { b, s, e } = at(h);
        expect(cleanHostnameAt(b, s, e)).toBe(cleanHostname(h));
        if (cleanHostname(h)) expect(isOwnPublicSuffixAt(b, s, e)).toBe(isOwnPublicSuffix(h));
      }),
      { numRuns: 3000 },
    );
    for (const h of suffixes) {
      const { b, s, e } = at(h);
      expect(isOwnPublicSuffixAt(b, s, e), h).toBe(isOwnPublicSuffix(h));
    }
  });
});

describe('Deduplicate trusts Compress: no two `||host^` rules of its output are alike', () => {
  const _step = (name: string) => TRANSFORMATIONS.find((t) => t.name === name)!;
  const quiet = { reporting: false, removed: () => undefined };
  /** Texts that are, or are written as, or parse to the same `||name^` as one another. */
  const ALIKE = [
    '||a.example^',
    '0.0.0.0 a.example',
    'a.example',
    '127.0.0.1 a.example',
    '||a.example^',
    '||b.example.^',
    '0.0.0.0 b.example.',
    'b.example.',
    '||b.example.^',
    '||C.example^',
    '0.0.0.0 C.example',
    'C.example',
    '||c.example^',
    '||C.example^',
    '||d.example^|',
    '||d.example^',
    '|https://d.example^',
    '||d.example^|',
    '0.0.0.0 e.example f.example e.example',
    '||f.example^',
    '||e.example^$third-party',
    '||e.example^',
    '||-g.example^',
    '0.0.0.0 -g.example',
    '||-g.example^',
    '||h..example^',
    'h..example',
    '||h..example^',
    '||i_j.example^',
    '0.0.0.0 i_j.example',
    '||i_j.example^',
  ].join('\n');
  const inputs: [string, string][] = [...lists, ['alike', ALIKE], ['alike, twice over', `${ALIKE}\n${ALIKE}`]];

  test.each(inputs)('%s: Compress says so, and it is true', (_name, text) => {
    const out = PACKED_FORMS.Compress!(packText(text)!, quiet);
    expect(out.distinctHostRules).toBe(true);
    const rules = unpackLines(out).text.filter((line) => plainHostRuleHostname(line) !== null);
    expect(rules.length).toBeGreaterThan(0);
    expect(new Set(rules).size).toBe(rules.length);
  });

  test.each(inputs)(
    '%s: Deduplicate after Compress and Validate removes what it removes without the flag',
    (_name, text) => {
      const compressed = PACKED_FORMS.Validate!(PACKED_FORMS.Compress!(packText(text, 0)!, quiet), quiet);
      expect(compressed.distinctHostRules).toBe(true);
      // Each run consumes its list: the second gets copies of the arrays.
      const { bytes, used, start, end, from } = compressed;
      const unflagged = packedLines(bytes, used, start.slice(), end.slice(), from!.slice(), false);
      const trusting = recorder();
      const checking = recorder();
      const kept = PACKED_FORMS.Deduplicate!(compressed, trusting);
      const all = PACKED_FORMS.Deduplicate!(unflagged, checking);
      expect(unpackLines(kept).text).toEqual(unpackLines(all).text);
      expect(Array.from(kept.from!)).toEqual(Array.from(all.from!));
      expect(trusting.log).toEqual(checking.log);
    },
  );

  test('filtering keeps the flag; joining lists, rewriting lines and the other transformations drop it', () => {
    // A fresh list per use: transformations and filtering consume theirs.
    const compressed = () => PACKED_FORMS.Compress!(packText(ALIKE)!, quiet);
    const keepAll = new Uint8Array(compressed().start.length).fill(1);
    const keepSome = keepAll.map((_, i) => i % 2);
    expect(keepWherePacked(compressed(), keepAll).distinctHostRules).toBe(true);
    expect(keepWherePacked(compressed(), keepSome).distinctHostRules).toBe(true);
    expect(PACKED_FORMS.Validate!(compressed(), quiet).distinctHostRules).toBe(true);
    const twice = compressed();
    expect(concatPacked([twice, twice], false).distinctHostRules).toBe(false);
    expect(new PackedBuilder(compressed(), 4).finish().distinctHostRules).toBe(false);
    expect(packText(ALIKE)!.distinctHostRules).toBe(false);
    for (const name of ['TrimLines', 'InsertFinalNewLine'] as const)
      expect(PACKED_FORMS[name]!(compressed(), quiet).distinctHostRules).toBe(false);
  });
});

describe('ByteTable', () => {
  test('is a set of byte ranges that grows past its expected size, with suffix lookups', () => {
    const words = Array.from({ length: 5000 }, (_, i) => `w${i * 7919}.example`);
    const b = new TextEncoder().encode(words.join('\n'));
    const table = new ByteTable(10, true);
    let o = 0;
    const ranges = words.map((w) => {
      const r = [o, o + w.length] as const;
      o += w.length + 1;
      return r;
    });
    for (const [s, e] of ranges) expect(table.add(b, s, e)).toBe(true);
    for (const [s, e] of ranges) expect(table.add(b, s, e)).toBe(false);
    // Every entry is found after the growths, its filter bit included.
    for (const [s, e] of ranges) expect(table.has(b, s, e, ByteTable.hash(b, s, e))).toBe(true);
    const [s0, e0] = ranges[42];
    const dot = b.indexOf(46, s0);
    const suffix = ByteTable.hash(b, dot + 1, e0);
    expect(table.has(b, dot + 1, e0, suffix)).toBe(false);
    expect(table.has(b, s0, e0, ByteTable.hash(b, s0, e0))).toBe(true);
  });
});
