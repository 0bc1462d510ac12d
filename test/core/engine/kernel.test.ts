import { packedEngine } from '../../../src/core/engine/packed-engine.js';
import { describe, expect, test } from 'vitest';
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import fc from 'fast-check';
import { KERNEL_WASM } from '../../../src/core/engine/wasm/kernel-binary.js';
import { compressPacked } from '../../../src/core/engine/compress.js';
import { deduplicatePacked } from '../../../src/core/engine/deduplicate.js';
import { kernelVerdicts } from '../../../src/core/engine/validate.js';
import { cleanHostname, fullRuleProblem } from '../../../src/core/rules/rule-validity.js';
import { normalizeIpRule } from '../../../src/core/rules/ip-normalize.js';
import { rules as tldtsRules } from 'tldts/dist/es6/src/data/trie.js';
import {
  joinInKernel,
  kernelMemory,
  PSL_NODE_SLOTS,
  pslNodeSet,
  splitDirectives,
  splitInKernel,
} from '../../../src/core/engine/kernel.js';
import { directiveLines } from '../../../src/core/engine/load-packed.js';
import {
  concatPacked,
  copyPlan,
  isPacked,
  lineText,
  packBytes,
  packStrings,
  withRanges,
  packText,
  unpackLines,
  type PackedLines,
} from '../../../src/core/engine/packed.js';
import { splitText } from '../../../src/core/load/split.js';
import { compress } from '../../../src/core/transforms/compress.js';
import { deduplicate } from '../../../src/core/transforms/deduplicate.js';
import { ALL_TRICKY, trickyList } from '../../support/tricky-lines.js';
import { readCorpus, testCorpus } from '../../support/corpus.js';
// @ts-expect-error: a plain JavaScript script, without types
import { assembleKernel } from '../../../scripts/wasm-kernel.js';

const quiet = { reporting: false, removed: () => undefined };

/** The text's lines as the readable engine holds them. */
const strings = (text: string) => ({ text: splitText(text, false).lines });

/**
 * The kernel's Compress and the readable one (`compress.apply`) on the same text. Each line's
 * provenance is its index: both must report the same removed lines, with the same reasons and
 * provenance, in the same order, and give each kept line the same provenance.
 */
function both(text: string) {
  const reported: unknown[][] = [[], []];
  const ctx = (k: number) => ({ reporting: true, removed: (...line: unknown[]) => reported[k].push(line) });
  const packed = packText(text)!;
  const from = Float64Array.from(packed.start, (_, i) => i);
  const out = compressPacked(withRanges(packed, packed.start, packed.end, from), ctx(0));
  const js = compress.apply({ ...strings(text), from: from.slice() }, ctx(1));
  if (out) expect([reported[0], out.from]).toEqual([reported[1], js.from]);
  return { wasm: out && unpackLines(out).text, js: js.text };
}

describe('the WebAssembly kernel (kernel.ts, wasm/*.wat)', () => {
  test('a step larger than the kept memory gets a memory of its own: the kept one never grows past 64 MB', () => {
    const large = kernelMemory(100 << 20)!;
    const kept = kernelMemory(1024)!;
    expect(large.memory.buffer.byteLength).toBeGreaterThanOrEqual(100 << 20);
    expect(kept).not.toBe(large);
    expect(kept.memory.buffer.byteLength).toBeLessThanOrEqual(64 << 20);
    expect(kernelMemory(2048)).toBe(kept);
    // Past 2 GiB the kernel's signed 32-bit offsets would wrap: no memory, so the step runs on strings.
    expect(kernelMemory(2 ** 31 + 1)).toBeNull();
  });

  test('is its .wat files assembled with the constants as the TypeScript defines them (npm run build)', async () => {
    const assembled: Buffer = await assembleKernel();
    expect(assembled.toString('base64')).toBe(KERNEL_WASM);
  });

  test('decides the tricky lines as the TypeScript does, each alone and all together', () => {
    for (const line of ALL_TRICKY) {
      const { wasm, js } = both(`${line}\n||keep.example^`);
      expect(wasm, line).toEqual(js);
    }
    // Parents at every position, the host's first byte included.
    const cases: [string[], string[]][] = [
      [['||.a.example^', '||b.a.example^', 'c.b.a.example', '||a.example^'], ['||a.example^']],
      [
        ['||b.a.example^', '0.0.0.0 example', '||x.example.^', '||example.^'],
        ['||example^', '||example.^'],
      ],
    ];
    for (const [lines, kept] of cases) {
      const { wasm, js } = both(lines.join('\n'));
      expect(wasm).toEqual(js);
      expect(js).toEqual(kept);
    }
    const { wasm, js } = both(ALL_TRICKY.join('\n'));
    expect(wasm).toEqual(js);
  });

  test('decides every ASCII character in every position of each shape as the readable form does', () => {
    // The kernel classifies bytes by tables (BYTE_CLASS, ADDRESS_CODE); this walks their whole range.
    const chars = [...Array.from({ length: 128 }, (_, c) => String.fromCharCode(c)), '\u00a0', 'é', '\u2028', '\ufeff'];
    const lines = chars.flatMap((ch) => [
      `||ab${ch}cd.com^`,
      `||${ch}ab.com^`,
      `0.0.0.0 ab${ch}cd.com`,
      `127.0.0.1 ${ch}ab`,
      `ab${ch}cd.com`,
      `${ch}ab.com`,
      `ab.com${ch}`,
      `ab.${ch}`,
      `||ab.com^$${ch}`,
      `1.2.3.4${ch}ab.com`,
    ]);
    for (let i = 0; i < lines.length; i += 40) {
      const text = `||keep.example^\n${lines.slice(i, i + 40).join('\n')}\n||keep.example^`;
      const { wasm, js } = both(text);
      expect(wasm, text).toEqual(js);
    }
  });

  test.each([1, 2, 3, 4])('decides seeded tricky lists as the TypeScript does (seed %i)', (seed) => {
    const { wasm, js } = both(trickyList(3000, seed));
    expect(wasm).toEqual(js);
  });

  /** Lines near every boundary the kernel tests: label and name lengths, shapes, modifiers. */
  const label = fc.oneof(
    // A few labels, often: hosts then share parents and repeat, for the table and the parent pass.
    { arbitrary: fc.constantFrom('a', 'b', 'ex', 'com'), weight: 4 },
    fc.stringMatching(/^[a-z0-9]{1,8}$/),
    fc.stringMatching(/^[a-zA-Z0-9_-]{1,6}$/),
    fc.constantFrom('a'.repeat(63), 'b'.repeat(64), 'xn--p1ai', 'ü', 'A', '-', ''),
  );
  const host = fc
    .array(label, { minLength: 1, maxLength: 5 })
    .chain((labels) => fc.constantFrom('', '.', '..').map((end) => labels.join('.') + end));
  const longHost = fc
    .integer({ min: 250, max: 258 })
    .map((n) => `${`${'a'.repeat(60)}.`.repeat(5).slice(0, n - 4)}.com`);
  const line = fc
    .tuple(
      fc.constantFrom(
        '',
        '',
        '||',
        '||',
        '@@||',
        '|',
        '0.0.0.0 ',
        '127.0.0.1 ',
        '0.0.0.0\t',
        '::1 ',
        '1.2.3.4%eth0 ',
        'fe80::1 ',
        ' ',
        '#',
        '!',
        'abc ',
      ),
      fc.array(fc.oneof(host, longHost), { minLength: 1, maxLength: 3 }),
      fc.constantFrom(' ', '\t', '  '),
      fc.constantFrom(
        '',
        '',
        '^',
        '^',
        '^$third-party',
        '^$',
        '^$,',
        '^$,,',
        '\\$x',
        '^|',
        ' # c',
        '#x',
        ' ',
        '$important',
        '^$1p\\$',
      ),
    )
    .map(([prefix, names, gap, suffix]) => prefix + names.join(gap) + suffix);

  test('decides generated lines as the TypeScript does', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 60 }), (lines) => {
        const text = lines.join('\n').trim();
        if (text === '') return;
        const { wasm, js } = both(text);
        expect(wasm).toEqual(js);
      }),
      { numRuns: 400 },
    );
  });

  test('leaves the list to the readable form, on strings, when its hostnames outgrow the room given', () => {
    // 40 lines naming 100 hosts each: more outputs and table entries than the kernel makes room for.
    const text = Array.from(
      { length: 40 },
      (_, i) => `0.0.0.0 ${Array.from({ length: 100 }, (_, j) => `h${i}-${j}.example`).join(' ')}`,
    ).join('\n');
    const list = packText(text)!;
    const before = { bytes: list.bytes.slice(), start: list.start.slice(), end: list.end.slice() };
    expect(compressPacked(list, quiet)).toBeNull();
    expect({ bytes: list.bytes, start: list.start, end: list.end }).toEqual(before);
    const out = packedEngine.apply(compress, list, quiet);
    expect(isPacked(out)).toBe(false);
    expect(packedEngine.lines(out).text).toEqual(compress.apply(strings(text), quiet).text);
    expect(packedEngine.count(out)).toBe(4000);
    expect(packedEngine.fallback(out, compress)).toBe("Compress finds no room in the WebAssembly kernel's memory");
  });

  test('leaves the list it reads as it was, and room after its own for the lines joined later', () => {
    const list = packText('0.0.0.0 a.example\nb.example\n||c.example^')!;
    const before = new Uint8Array(list.bytes);
    const out = compressPacked(list, quiet)!;
    expect(list.bytes).toEqual(before);
    expect(out.bytes).not.toBe(list.bytes);
    expect(unpackLines(out).text).toEqual(['||a.example^', '||b.example^', '||c.example^']);
    expect(out.bytes.length - out.used).toBeGreaterThanOrEqual(65536);
  });

  test('copies out only the lines it keeps, joined, unless they outgrow its table; else every byte', () => {
    const text = trickyList(3000, 7);
    const out = compressPacked(packText(text)!, quiet)!;
    const lines = unpackLines(out).text;
    expect(lines).toEqual(compress.apply(strings(text), quiet).text);
    expect(Buffer.from(out.bytes.subarray(0, out.used)).toString()).toBe(lines.join('\n'));
    expect(copyPlan(out).gathered).toBe(false);
    // Kept lines longer than the table's room (11 bytes a slot, two slots or more a line) stay where
    // they were read, with the duplicates dropped between them.
    const long = Array.from({ length: 3000 }, (_, i) => `||${'a'.repeat(100)}${i}.com^`);
    const wide = compressPacked(packText([...long, ...long].join('\n'))!, quiet)!;
    expect(unpackLines(wide).text).toEqual(long);
    expect(wide.used).toBeGreaterThan(2 * long.join('\n').length);
  });

  describe('Deduplicate', () => {
    /** Deduplicate in the kernel and readable (`deduplicate.apply`) on the list `make` gives (called once per way). */
    const dedupBoth = (make: () => PackedLines) => ({
      wasm: unpackLines(deduplicatePacked(make(), quiet)!).text,
      js: deduplicate.apply(unpackLines(make()), quiet).text,
    });
    const lists = [
      ALL_TRICKY.join('\n'),
      ...[1, 2, 3].map((seed) => trickyList(3000, seed)),
      ['! a', '', '||x.example^', '# b', '||x.example^', '!', '||x.example^'].join('\n'),
    ];

    test.each(lists.map((text, i) => [i, text]))(
      'keeps what the TypeScript keeps, in a list as read and after Compress (list %i)',
      (i, text) => {
        const read = dedupBoth(() => packText(text as string)!);
        expect(read.wasm).toEqual(read.js);
        const compressed = dedupBoth(() => compressPacked(packText(text as string)!, quiet)!);
        expect(compressed.wasm).toEqual(compressed.js);
        // Something to remove: the lists repeat rules.
        if (i !== 0) expect(read.wasm.length).toBeLessThan(unpackLines(packText(text as string)!).text.length);
      },
    );

    test('keeps what the TypeScript keeps, on generated lines', () => {
      fc.assert(
        fc.property(
          fc.array(fc.oneof(line, fc.constantFrom('', '!', '# x', '#', '####', '#x', '||a.ex^')), {
            minLength: 1,
            maxLength: 80,
          }),
          (lines) => {
            const text = lines.join('\n').trim();
            if (text === '') return;
            const read = dedupBoth(() => packText(text)!);
            expect(read.wasm).toEqual(read.js);
            const compressed = dedupBoth(() => compressPacked(packText(text)!, quiet)!);
            expect(compressed.wasm).toEqual(compressed.js);
          },
        ),
        { numRuns: 300 },
      );
    });

    test('works on a copy in the kernel memory: the list keeps its bytes, and joins as the readable one', () => {
      const text = trickyList(500, 7);
      const read = packText(text)!;
      const before = new Uint8Array(read.bytes);
      const kept = deduplicatePacked(read, quiet)!;
      expect(kept.bytes === read.bytes && kept.bytes.every((b, i) => b === before[i])).toBe(true);
      const whole = concatPacked([packStrings(['! Title: x']), kept]);
      const expected = ['! Title: x', ...deduplicate.apply(strings(text), quiet).text].join('\n');
      expect(Buffer.from(joinInKernel(whole)!).toString()).toBe(expected);
    });
  });

  describe('the split', () => {
    /** The list as the reader hands it over: its bytes, then as much room again. */
    const given = (text: string) => {
      const encoded = new TextEncoder().encode(text);
      const bytes = new Uint8Array(encoded.length * 2 + 65_536);
      bytes.set(encoded);
      return { bytes, length: encoded.length };
    };
    const lines = (list: PackedLines) => unpackLines(list).text;
    const pad = (text: string, eol = '\n') => `${text}${eol}${'||padding.example^\n'.repeat(4000)}`;

    test('splits as splitText does: CRLF, lone CR, runs of breaks, control bytes, UTF-8, every alignment', () => {
      const odd = ['a\r\nb\rc\n\n\r\nd', 'x\ty\u000bz\u000c!\u0001', 'é ü\r\n  ||a.com^  \n\t\t', '#\n!\n!x#'];
      for (let shift = 0; shift < 9; shift += 1) {
        for (const eol of ['\n', '\r\n', '\r']) {
          for (const text of [
            `${' '.repeat(shift)}${odd.join(eol)}${eol}${pad(trickyList(500, shift, eol), eol)}\n \n`,
            `${' '.repeat(shift)}${odd.join(eol)}${eol}`,
            ...(shift < 2 ? [`${odd.join(eol)}${eol}${'||padding.example^\n'.repeat(20_000)}${odd.join(eol)}`] : []),
          ]) {
            const { bytes, length } = given(text);
            const ours = packBytes(bytes, length)!;
            expect(lines(ours)).toEqual(splitText(text, false).lines);
            // The lines are ranges of the reader's buffer, with the room after the list it left.
            expect(ours.bytes === bytes && ours.used === length).toBe(true);
            expect(bytes.subarray(0, length)).toEqual(given(text).bytes.subarray(0, length));
            expect(lines(packText(text)!)).toEqual(splitText(text, false).lines);
          }
        }
      }
    });

    test('splits directive lines like any other, and refuses a non-ASCII edge', () => {
      for (const text of [pad('ü'), `${pad('a')}ü`]) {
        const { bytes, length } = given(text);
        expect(packBytes(bytes, length), text.slice(0, 20)).toBeNull();
      }
      for (const text of ['!#include x.txt', pad('a\n!#if true\nb\n!#endif'), `${pad('a')}\n!#endif`]) {
        const { bytes, length } = given(text);
        expect(lines(packBytes(bytes, length)!)).toEqual(splitText(text, false).lines);
      }
      // `!` closing the list, with nothing after it to read.
      const closing = given(`${pad('a')}\n!`);
      expect(lines(packBytes(closing.bytes, closing.length)!).at(-1)).toBe('!');
      expect(lines(splitInKernel(new Uint8Array(8), 0, 0, 0)!)).toEqual(['']);
    });

    test('notes the lines that open with `!#` as a look at each line finds them', () => {
      const texts = fc.stringMatching(/^[!#a \r\n]{0,40}$/).map((t) => t.trim());
      const check = (text: string) => {
        const { bytes, length } = given(text);
        const list = packBytes(bytes, length)!;
        expect([...splitDirectives(list)!], JSON.stringify(text)).toEqual(directiveLines(list));
      };
      for (const text of ['!#if a', 'a\n!#', '!\n#', 'a\r\n!#include x\r\n!#', '!', '#!#', `${pad('a')}\n!#endif`])
        check(text);
      const blocks = given('a\n!#if b\nc\n!#endif');
      expect(splitDirectives(packBytes(blocks.bytes, blocks.length)!)).toEqual(Int32Array.of(1, 3));
      // A `!` closing the list, with a `#` after it in the room: no directive.
      const closing = given('a\n!');
      closing.bytes[closing.length] = 35;
      expect(splitDirectives(packBytes(closing.bytes, closing.length)!)).toEqual(new Int32Array(0));
      fc.assert(
        fc.property(texts, (text) => check(text)),
        { numRuns: 500 },
      );
      // Lists not split in the kernel have none noted.
      expect(splitDirectives(packStrings(['!#if a']))).toBeUndefined();
    });
  });

  describe('the join', () => {
    /** The lines joined with LF, each decoded alone. */
    const readable = (list: PackedLines) =>
      Array.from({ length: list.start.length }, (_, i) => lineText(list, i)).join('\n');

    test("writes the lines joined with LF, for Compress's output and lists joined to it in place", () => {
      for (const text of [trickyList(3000, 11), '||a.com^', '||a.com^\n\n\n||b.io^\n! c', ALL_TRICKY.join('\n')]) {
        const list = compressPacked(packText(text)!, quiet)!;
        const before = { start: list.start.slice(), end: list.end.slice() };
        const joined = joinInKernel(list)!;
        expect(joined).not.toBeNull();
        expect(joined.buffer).not.toBe(list.bytes.buffer);
        expect(Buffer.from(joined).toString()).toBe(readable(list));
        expect({ start: list.start, end: list.end }).toEqual(before);
        const header = packText('! Title: x\n! Version: 1')!;
        const whole = concatPacked([header, list, packText('')!]);
        // Appended in the room after the largest list's bytes.
        expect(whole.bytes.buffer === list.bytes.buffer).toBe(list.used > header.used);
        expect(Buffer.from(joinInKernel(whole)!).toString()).toBe(readable(whole));
      }
    });

    test('joins other lists, many lines and long ones', () => {
      const other = packText('||a.com^\n||b.com^')!;
      expect(Buffer.from(joinInKernel(other)!).toString()).toBe('||a.com^\n||b.com^');
      expect(joinInKernel(packStrings([]))).toEqual(new Uint8Array(0));
      const list = compressPacked(packText(`||${'a'.repeat(200)}.com^`)!, quiet)!;
      // One 206-byte line many times.
      for (const n of [100_000, 2_000]) {
        const many = withRanges(list, new Int32Array(n).fill(list.start[0]), new Int32Array(n).fill(list.end[0]));
        expect(Buffer.from(joinInKernel(many)!).toString(), `${n} lines`).toBe(readable(many));
      }
      const long = compressPacked(packText(`! ${'x'.repeat(300_000)}`)!, quiet)!;
      expect(Buffer.from(joinInKernel(long)!).toString()).toBe(readable(long));
      const few = withRanges(list, new Int32Array(3).fill(list.start[0]), new Int32Array(3).fill(list.end[0]));
      expect(Buffer.from(joinInKernel(few)!).toString()).toBe(readable(few));
    });
  });

  describe("Validate's verdicts from the kernel", () => {
    /** The validators that ask the kernel: those without allowIp. */
    const names = [
      'a.com',
      'b.example.org',
      'x-y.net',
      'q.de',
      'de',
      '.de',
      'a.b.edu',
      'gov.gov',
      'A.com',
      'a_b.com',
      '-a.com',
      'a-.com',
      'a..com',
      `${'a'.repeat(63)}.com`,
      `${'a'.repeat(64)}.com`,
      '1.2.3.com',
      '123.com',
      'x.co.uk',
      'co.uk',
      'x.io',
      'com',
      'localhost',
      'x.com.',
      'ü.com',
      'x.dee',
      '*.org',
      'a.*.com',
    ];
    const ips = [
      '1.2.3.4',
      '0.0.0.0',
      '255.255.255.255',
      '256.1.1.1',
      '01.2.3.4',
      '1.2.3',
      '1.2.3.4.5',
      '1.2.3.',
      '1..2.3',
      '1234.1.1.1',
      '1.2.3.4a',
    ];
    const modifiers = [
      'third-party',
      'important',
      '~important',
      'dnstype',
      'badfilter',
      'client',
      'ctag',
      'Third-party',
      'third_party',
      'x',
      'dnstype=a',
      'dnstype=AAAA|~CNAME',
      'denyallow=a.com|b.org',
      'client=10.0.0.0/8',
      'dnsrewrite=NOERROR;A;1.2.3.4',
      'important,third-party',
      'important,,badfilter',
      'important=x=y',
      '=important',
      ',important',
      'important,',
      'domain=a.com\\,b.com',
      'important,x\\,y',
      'ctag=device_pc\\,important',
      'important,ctag=a\\,b',
      '',
    ];
    const shapes = [
      ...names.flatMap((name) => [
        `||${name}^`,
        `@@||${name}^`,
        `||${name}^$third-party`,
        `||${name}^$important`,
        `@@||${name}^$important,badfilter`,
        `  ||${name}^ `,
        `\t@@||${name}^$denyallow=a.com`,
        `|${name}^`,
        `||${name}^|`,
        `||${name}`,
        `${name}`,
        `@@${name}`,
        `${name}##.ad`,
        `${name}#@#.ad`,
        `${name}#$#body { padding: 0 !important; }`,
        `${name}#%#//scriptlet('abort-on', 'x')`,
        `||${name}/ads/x.js`,
        `|https://${name}/x?id=1`,
        `://${name}^`,
        `0.0.0.0 ${name}`,
      ]),
      ...ips.flatMap((ip) => [
        `||${ip}^`,
        `@@||${ip}^`,
        `||${ip}^|`,
        `${ip}`,
        `||${ip}^$important`,
        `||${ip}^$denyallow=a.com`,
        `${ip} a.com`,
        `${ip}%lo0 a.com`,
      ]),
      ...modifiers.flatMap((m) => [
        `||a.com^$${m}`,
        `@@||a.io^$${m}`,
        `||^$${m}`,
        `$${m}`,
        `@@$${m}`,
        `||a.*.com^$${m}`,
        `||a.com$${m}`,
        `|a.com^$${m}`,
        `/banner/*/x.gif$${m}`,
        `/ads/$${m}`,
        `/a$b/`,
        `||a.com^\\$${m}`,
        `a.com##.ad$${m}`,
      ]),
      '##.banner-x',
      '#@#.ad',
      '#',
      '# comment',
      '####',
      '###id',
      '! comment',
      '!',
      '@@',
      '@@ ',
      '  ',
      '/^ad[sx]?[0-9]*\\.x\\.com$/',
      '/x/',
      '/',
      '//',
      'a.com##.ad banner',
      'a.com##.ad$x',
      'a.com##.ad\u00e9',
      'a.co#',
      'a.c#',
      '#a.com##x',
      'A.com##.ad',
      '9.com###ad',
      'a.com/ads',
      'a.com:8080',
      'abc example-hex.com',
      'dead.beef#$#body { x }',
      '::1 localhost',
      ':: a.com',
      '[::1] a.com',
      'fe80::1%lo0 localhost',
      'a.com\u00a0',
      '\u00a0||a.com^',
      '\u000b||a.com^',
    ];
    /** Lines the kernel decides, and its verdict: a verdict lost to 0 fails here. */
    const DECIDED: [string, number][] = [
      ['||a.com^', 1],
      ['@@||b.example.org^$important', 1],
      ['||x.co.uk^$dnstype=AAAA|~CNAME', 1],
      ['||x.io^$denyallow=a.com|b.org,badfilter', 1],
      ['  ||a.com^  ', 1],
      ['||1.2.3.4^', 2],
      ['@@||255.255.255.255^', 2],
      ['##.banner-x', 0],
      ['a.com##.ad', 3],
      ['a.com#$#body { padding: 0 !important; }', 4],
      ["a.com#%#//scriptlet('abort-on', 'x')", 3],
      ['||a.com/ads/x.js', 3],
      ['|https://a.com/x?id=1', 3],
      ['||a.com^$third-party', 4],
      ['||a.com^$important,third-party', 4],
      ['/banner/*/x.gif$image,domain=a.com', 4],
      ['/x[0-9]+\\.(gif|png)/$third-party', 4],
    ];
    const REASONS: Record<number, RegExp> = {
      2: /^IP address is not allowed$/,
      3: /^contains characters that cannot be in a domain name$/,
      4: /^unsupported modifier \$/,
    };

    /**
     * Checks each verdict on the list against fullRuleProblem, without allowIp and with it (on the
     * lines as the IP variants rewrite them); returns how many of each were given without.
     */
    const check = (list: PackedLines, given = [0, 0, 0, 0, 0]) => {
      // Before the verdicts: unpacking joins in the kernel memory the verdicts are a view of.
      const texts = unpackLines(list).text;
      for (const allowIp of [false, true]) {
        const lines = allowIp ? texts.map((t) => normalizeIpRule(t) ?? t) : texts;
        const verdicts = [...kernelVerdicts(allowIp ? packStrings(lines) : list, allowIp)!];
        for (let i = 0; i < lines.length; i += 1) {
          const line = lines[i];
          if (!allowIp) given[verdicts[i]] += 1;
          if (verdicts[i] === 0) continue;
          for (const allowPublicSuffix of [false, true]) {
            const problem = fullRuleProblem(line, { allowIp, allowPublicSuffix });
            if (verdicts[i] === 1) expect(problem, `${line} (allowIp: ${allowIp})`).toBeNull();
            else expect(problem, `${line}: ${verdicts[i]} (allowIp: ${allowIp})`).toMatch(REASONS[verdicts[i]]);
          }
        }
      }
      return given;
    };

    testCorpus('keep and drop only as fullRuleProblem does, on lines of every shape', () => {
      const given = [0, 0, 0, 0, 0];
      check(packText(shapes.join('\n'))!, given);
      check(compressPacked(packText(shapes.join('\n'))!, quiet)!, given);
      for (const seed of [1, 2, 3]) check(packText(trickyList(2000, seed))!, given);
      // Every ASCII character (and a few others) in every position of the shapes it decides.
      const chars = [...Array.from({ length: 128 }, (_, c) => String.fromCharCode(c)), '\u00a0', 'é', '\u2028'];
      const around = chars
        .filter((ch) => ch !== '\n' && ch !== '\r')
        .flatMap((ch) => [
          `||ab${ch}cd.com^`,
          `${ch}||ab.com^`,
          `||ab.com^${ch}`,
          `@@${ch}||ab.com^$important`,
          `||ab.com^$import${ch}ant`,
          `||ab.com^$important${ch},badfilter`,
          `ab${ch}cd.com##x`,
          `${ch}ab.com##x`,
          `${ch}b.cd ab.com`,
          `||1.2.3${ch}4^`,
        ]);
      check(packText(around.join('\n'))!, given);
      // A seventh of four real lists.
      const corpus = ['hosts-hagezi-light.txt', 'adblock-hagezi-light.txt', 'easylist.txt', 'adguard-base.txt']
        .flatMap((f) => readCorpus(f).split(/\r?\n/))
        .filter((_, i) => i % 7 === 0);
      check(packText(corpus.join('\n'))!, given);
      for (const verdict of [0, 1, 2, 3, 4]) expect(given[verdict], `verdict ${verdict}`).toBeGreaterThan(20);
      const decided = kernelVerdicts(packText(DECIDED.map(([line]) => line).join('\n'))!)!;
      expect([...decided]).toEqual(DECIDED.map(([, verdict]) => verdict));
      // With allowIp, a plain IPv4 address is kept; every other verdict stays.
      const allowIp = kernelVerdicts(packText(DECIDED.map(([line]) => line).join('\n'))!, true)!;
      expect([...allowIp]).toEqual(DECIDED.map(([, verdict]) => (verdict === 2 ? 1 : verdict)));
    });

    test('keep and drop only as fullRuleProblem does, on generated lines', () => {
      const piece = fc.constantFrom(
        '||',
        '@@',
        '|',
        '^',
        '$',
        ',',
        '=',
        '/',
        '\\',
        '#',
        '!',
        ' ',
        '\t',
        '.',
        '*',
        ':',
        '%',
        '~',
        '[',
        'a',
        'A',
        'com',
        'co.uk',
        'x-',
        '_',
        '1.2.3.4',
        '0.0.0.0 ',
        '255',
        'é',
        'ck',
        'localhost',
        'important',
        'third-party',
        'denyallow',
        'badfilter',
        'ctag=',
        'replace=',
      );
      const pieces = fc.array(piece, { minLength: 1, maxLength: 10 }).map((parts) => parts.join(''));
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
          fc.constantFrom('^', '^|', '', '.^', '^$important', '^$third-party', '^$denyallow=a.com'),
        )
        .map((parts) => parts.join(''));
      const line = fc.oneof(pieces, ipRule);
      fc.assert(
        fc.property(fc.array(line, { minLength: 1, maxLength: 40 }), (lines) => {
          check(packText(lines.join('\n'))!);
        }),
        { numRuns: 300 },
      );
    });

    /** The rules trie, `[flags, {label: node}]`, as tldts holds it. */
    type Trie = [number, Record<string, Trie>];
    const rules = tldtsRules as Trie;
    /**
     * The kernel's PSL verdict, walked on the trie itself: the walk stops at a label with no
     * node and no `*` child to take on the way, and the name has a dot.
     */
    const walkStopsEarly = (host: string) => {
      const labels = host.split('.').reverse();
      let node = rules;
      for (const label of labels) {
        if (Object.hasOwn(node[1], '*')) return false;
        const next = Object.hasOwn(node[1], label) ? node[1][label] : undefined;
        if (next === undefined) return labels.length > 1;
        node = next;
      }
      return false;
    };
    /** Every node's path in the trie (`co.uk`, `*.ck`), depth first. */
    const paths = (node: Trie, suffix: string): string[] =>
      Object.entries(node[1]).flatMap(([label, child]) => {
        const path = suffix === '' ? label : `${label}.${suffix}`;
        return [path, ...paths(child, path)];
      });
    const nodePaths = paths(rules, '');

    test('follow the Public Suffix List: its rules, wildcards and exceptions, and names under them', () => {
      const ascii = nodePaths.filter((path) => /^[a-z0-9.*-]+$/.test(path));
      expect(ascii.length).toBeGreaterThan(8000);
      const names = ascii.flatMap((path) => [
        path,
        `x.${path}`,
        `a.b.${path}`,
        path.replace(/\*/g, 'x'),
        path.replace(/\*/g, 'q.x'),
      ]);
      // Names whose walk passes a `*` child, or stops at the top: no verdict, or one by the walk.
      names.push(
        'www.ck',
        'x.ck',
        'a.x.ck',
        'x.y.bd',
        'x.nosuchtld',
        'nosuchtld',
        'x.co.uk',
        'co.uk',
        'uk',
        'x.io',
        'com.io',
        'a.com.io',
      );
      const lines = names.flatMap((name) => [`||${name}^`, `@@||${name}^$important`]);
      const list = packText(lines.join('\n'))!;
      const given = check(list);
      expect(given[1]).toBeGreaterThan(names.length / 2);
      // A clean name's verdict is the walk's, exactly.
      const verdicts = kernelVerdicts(list)!;
      for (let i = 0; i < lines.length; i += 1) {
        const host = names[i >> 1];
        if (!cleanHostname(host)) continue;
        expect(verdicts[i], lines[i]).toBe(walkStopsEarly(host) ? 1 : 0);
      }
    });

    test("hold the trie's every node in pslNodeSet", () => {
      // The kernel's $hash and $home, written out as the oracle.
      const hash = (s: string) => {
        let h = 0x811c9dc5 | 0;
        for (let i = s.length - 1; i >= 0; i -= 1) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
        return h;
      };
      const home = (h: number) => {
        const x = Math.imul(h ^ (h >>> 16), 0x45d9f3b);
        return x ^ (x >>> 16);
      };
      const set = pslNodeSet()!;
      expect(set.length).toBe(PSL_NODE_SLOTS);
      const has = (h: number) => {
        for (let i = home(h | 1) & (PSL_NODE_SLOTS - 1); set[i] !== 0; i = (i + 1) & (PSL_NODE_SLOTS - 1))
          if (set[i] === (h | 1)) return true;
        return false;
      };
      // Non-ASCII labels are hashed as UTF-8, and no clean name reaches them.
      for (const path of nodePaths.filter((p) => /^[^\u0080-\uffff]*$/.test(p)))
        expect(has(hash(path)), path).toBe(true);
      expect(has(hash('nosuchtld'))).toBe(false);
      // Distinct nodes, few shared hashes: the set is no fuller than the trie.
      const filled = set.reduce((n, v) => n + (v !== 0 ? 1 : 0), 0);
      expect(filled).toBeLessThanOrEqual(nodePaths.length);
      expect(filled).toBeGreaterThan(nodePaths.length * 0.99);
    });
  });

  test('a compile without WebAssembly (node --jitless) writes the same list', () => {
    const root = resolve(import.meta.dirname, '../../..');
    const run = (flags: string[]) =>
      execFileSync(
        process.execPath,
        [...flags, resolve(root, 'bin/run.js'), 'compile', '-c', resolve(root, 'examples/flc.config.json'), '-q'],
        {
          cwd: resolve(root, 'examples'),
          env: { ...process.env, SOURCE_DATE_EPOCH: '0' },
          encoding: 'utf8',
        },
      );
    const withWasm = run([]);
    expect(withWasm).toContain('||ads.example.com^');
    expect(run(['--jitless'])).toBe(withWasm);
  });
});
