import { describe, expect, test } from 'vitest';
import { splitText } from '../../../src/core/load/split.js';
import { conditionMask, directivesOf, evaluateCondition } from '../../../src/core/load/conditions.js';
import { loadList } from '../../../src/core/load/load-list.js';
import { loadListPacked } from '../../../src/core/engine/load-packed.js';
import { isPacked, type ListData, unpackLines } from '../../../src/core/engine/packed.js';
import { unpackOrigin } from '../../../src/core/transforms/lines.js';
import { DirectiveError } from '../../../src/core/errors/index.js';
import { memoryReader } from '../../support/memory-reader.js';

describe('splitText', () => {
  test.each([
    ['a\nb', ['a', 'b']],
    ['\n\n a\r\n\r\nb\rc \n', ['a', 'b', 'c']],
    ['', ['']],
    ['x\n\n\ny', ['x', 'y']],
  ])('%j', (text, lines) => {
    expect(splitText(text, false).lines).toEqual(lines);
    expect(splitText(text, true).lines).toEqual(lines);
  });

  test('line numbers count LF, CRLF and lone CR in the original text', () => {
    expect([...splitText('\n\nfirst\r\n\r\nsecond\rthird\n\nfourth', true).numbers!]).toEqual([3, 5, 6, 8]);
  });
});

describe('conditions', () => {
  const kept = (lines: string[]) => {
    const keep = conditionMask(lines.length, directivesOf(lines));
    return lines.filter((_, i) => keep[i] === 1);
  };

  test.each([
    ['true', true],
    ['false', false],
    ['ext_ubol', false],
    ['!ext_ubol', true],
    ['!(true)', false],
    ['true && !false', true],
    ['false || true', true],
    ['(false || true) && (true && !x)', true],
    ['cap_html_filtering && true', false],
  ])('%s is %s', (expr, value) => {
    expect(evaluateCondition(expr)).toBe(value);
  });

  test('blocks, else branches and nesting', () => {
    const lines = ['a', '!#if true', 'b', '!#if false', 'c', '!#else', 'd', '!#endif', '!#else', 'e', '!#endif', 'f'];
    expect(kept(lines)).toEqual(['a', 'b', 'd', 'f']);
  });

  test.each([
    [['!#if true', 'a'], /condition end not found/],
    [['!#else'], /unexpected '!#else'/],
    [['!#endif'], /unexpected '!#endif'/],
    [['!#if (true', 'x', '!#endif'], /incorrect brackets/],
    [['!#if', 'x', '!#endif'], /empty condition/],
    [['!#if true', 'x', '!#else junk', '!#endif'], /invalid directive/],
  ])('%j fails: %s', (lines, message) => {
    expect(() => kept(lines)).toThrow(message);
  });
});

describe('loadList', () => {
  test('includes resolve relative to the including list, with provenance', async () => {
    const reader = memoryReader({
      '/lists/main.txt': '! main\n\n!#include sub/child.txt\n||main.example^',
      '/lists/sub/child.txt': '! Diff-Path: x.patch\n||child.example^',
    });
    const files: string[] = [];
    const lines = await loadList('/lists/main.txt', { reader, tracked: true, files });
    expect(lines.text).toEqual(['! main', '||child.example^', '||main.example^']);
    const origins = [...lines.from!].map((v) => unpackOrigin(v)).map((o) => `${files[o!.file]}:${o!.line}`);
    expect(origins).toEqual(['/lists/main.txt:1', '/lists/sub/child.txt:2', '/lists/main.txt:4']);
  });

  test('a cross-origin include is refused', async () => {
    const reader = memoryReader({ 'https://a.example/list.txt': '!#include https://b.example/other.txt' });
    await expect(loadList('https://a.example/list.txt', { reader, tracked: false, files: [] })).rejects.toThrow(
      /not on the same origin/,
    );
  });

  test('a same-origin absolute include is read', async () => {
    const reader = memoryReader({
      'https://a.example/x/list.txt': '!#include https://a.example/y.txt',
      'https://a.example/y.txt': 'rule',
    });
    expect((await loadList('https://a.example/x/list.txt', { reader, tracked: false, files: [] })).text).toEqual([
      'rule',
    ]);
  });

  test('a missing include names the including list and line', async () => {
    const reader = memoryReader({ '/main.txt': 'a\n!#include gone.txt' });
    const error = await loadList('/main.txt', { reader, tracked: false, files: [] }).catch((e) => e);
    expect(error).toBeInstanceOf(DirectiveError);
    expect(error.message).toMatch(/^\/main\.txt:2: failed to resolve !#include gone\.txt: no such file/);
  });
});

describe('loadListPacked from bytes', () => {
  const texts: Record<string, string> = {
    '/plain.txt': '\n\r \n||a.example^\r\n0.0.0.0 b.example\n\r\r\n! comment\rc.example\n',
    '/bom.txt': '\ufeff||a.example^\nc.example',
    '/unicode-edge.txt': '\u00a0||a.example^\nmünchen.de\u2003',
    '/directive.txt': '||a.example^\n!#include /plain.txt\n',
    '/mark-inside.txt': '||a.example^$domain=x.example!#\n',
    '/indented-mark.txt': '||a.example^\n  !#include /plain.txt\n',
    '/late-directive.txt': '||a.example^\n||b.example^\n!#if true\n||c.example^\n!#endif\n',
    '/empty.txt': '',
  };
  const encoder = new TextEncoder();
  /**
   * The memory reader, given the bytes of each list with room after them that holds a rule of
   * its own (which must not become part of the list); `refuse` lists answer null (not UTF-8, say).
   */
  function bytesReader(refuse: string[] = []) {
    const reader = memoryReader(texts);
    const byteReads: string[] = [];
    const given: Uint8Array[] = [];
    return Object.assign(reader, {
      byteReads,
      given,
      async readBytes(location: string) {
        byteReads.push(location);
        if (refuse.includes(location)) return null;
        const length = encoder.encode(texts[location]).length;
        given.push(encoder.encode(`${texts[location]}\n||room.example^\n`));
        return { bytes: given[given.length - 1], length };
      },
    });
  }

  // Each list: whether it comes back packed, and whether it is packed straight from its bytes
  // (ASCII edges) rather than from their decoded text. Directives are resolved on the packed
  // list; an included list is joined to it in a new buffer.
  const cases: [string, boolean, boolean][] = [
    ['/plain.txt', true, true],
    ['/empty.txt', true, true],
    ['/bom.txt', true, false],
    ['/unicode-edge.txt', true, false],
    ['/directive.txt', true, false],
    // Only a line that starts with `!#` can be a directive; `!#` elsewhere packs as usual.
    ['/mark-inside.txt', true, true],
    ['/indented-mark.txt', true, true],
    ['/late-directive.txt', true, true],
  ];

  test.each(cases)(
    '%s loads from its bytes exactly as from its text (packed: %s, straight from bytes: %s)',
    async (location, packed, straight) => {
      const fromText = await loadListPacked(location, { reader: memoryReader(texts), tracked: false, files: [] });
      const reader = bytesReader();
      const files: string[] = [];
      const fromBytes = await loadListPacked(location, { reader, tracked: false, files });
      const asLines = (l: typeof fromText) => (isPacked(l) ? unpackLines(l) : l);
      expect(asLines(fromBytes).text).toEqual(asLines(fromText).text);
      expect(files[0]).toBe(location);
      expect(isPacked(fromBytes)).toBe(packed);
      // Packed straight from the bytes means the lines are ranges of the very buffer the reader gave.
      expect(isPacked(fromBytes) && fromBytes.bytes === reader.given[0]).toBe(straight);
      // Each list is read once, as bytes, the included one too.
      expect(reader.byteReads).toEqual(location === '/directive.txt' ? [location, '/plain.txt'] : [location]);
      expect(reader.reads).toEqual([]);
      // With provenance, each line's file and line number as the string loader gives them.
      const tracked = { reader: bytesReader(), tracked: true, files: [] };
      const strings = await loadList(location, { reader: memoryReader(texts), tracked: true, files: [] });
      expect(asLines(await loadListPacked(location, tracked))).toEqual(strings);
    },
  );

  test('a list the reader has no bytes for is read as text', async () => {
    const reader = bytesReader(['/plain.txt']);
    const list = await loadListPacked('/plain.txt', { reader, tracked: false, files: [] });
    expect(reader.reads).toEqual(['/plain.txt']);
    expect(unpackLines(list as Parameters<typeof unpackLines>[0]).text).toEqual([
      '||a.example^',
      '0.0.0.0 b.example',
      '! comment',
      'c.example',
    ]);
  });
});

/** A seeded generator of lines, to make lists with directives in every arrangement. */
function rng(seed: number) {
  let state = seed >>> 0;
  return (n: number) => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return Math.floor((state / 4294967296) * n);
  };
}

const DIRECTIVE_LINES = [
  '!#if true',
  '!#if false',
  '!#if !false',
  '!#if (true && !false) || false',
  '!#if (true',
  '!#if',
  '!#else',
  '!#else junk',
  '!#endif',
  '!#include /inc-a.txt',
  '!#include /inc-b.txt',
  '!#include /gone.txt',
  '!#include',
  '!#safari_cb_affinity(general)',
  '  !#if false',
  '! Diff-Path: x.patch',
];
const RULES = ['||a.example^', '0.0.0.0 b.example', '! comment', 'c.example', '', '||ü.example^', 'example.org##.ad'];

function listWithDirectives(random: (n: number) => number, lines: number, eol: string): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i += 1) {
    const pool = random(3) === 0 ? DIRECTIVE_LINES : RULES;
    out.push(pool[random(pool.length)]);
  }
  return out.join(eol);
}

describe('directives resolved on packed lists', () => {
  test('give the lines and errors the string path gives, on 600 generated lists', async () => {
    const random = rng(7);
    for (let n = 0; n < 600; n += 1) {
      const eol = random(2) === 0 ? '\n' : '\r\n';
      const files: Record<string, string> = {
        '/main.txt': listWithDirectives(random, 1 + random(14), eol),
        // Included lists: balanced blocks only half the time, a Diff-Path line near the top.
        '/inc-a.txt': `! Diff-Path: a.patch${eol}${listWithDirectives(random, random(6), eol)}`,
        '/inc-b.txt': RULES.join(eol),
      };
      const errors: (string | undefined)[] = [];
      for (const tracked of [true, false]) {
        const outcome = async (load: () => Promise<ListData>) => {
          try {
            const list = await load();
            const lines = isPacked(list) ? unpackLines(list) : list;
            return { text: lines.text, from: lines.from && Array.from(lines.from) };
          } catch (e) {
            return { error: (e as Error).message };
          }
        };
        const strings = await outcome(() => loadList('/main.txt', { reader: memoryReader(files), tracked, files: [] }));
        errors.push('error' in strings ? strings.error : undefined);
        // Packed lists keep no provenance: a compile that keeps it loads on strings.
        if (tracked) continue;
        const packed = await outcome(() =>
          loadListPacked('/main.txt', { reader: memoryReader(files), tracked, files: [] }),
        );
        expect(packed, `${JSON.stringify(files)} tracked: ${tracked}`).toEqual(strings);
        // Packed straight from the bytes a reader hands over, as the Node reader does for files.
        const reader = Object.assign(memoryReader(files), {
          async readBytes(location: string) {
            if (files[location] === undefined) throw new Error(`no such file: ${location}`);
            const bytes = new TextEncoder().encode(files[location]);
            return { bytes, length: bytes.length };
          },
        });
        const fromBytes = await outcome(() => loadListPacked('/main.txt', { reader, tracked, files: [] }));
        expect(fromBytes, `${JSON.stringify(files)} tracked: ${tracked}, from bytes`).toEqual(strings);
      }
      // An error names the same line with provenance kept or not (blank lines counted).
      expect(errors[1], JSON.stringify(files)).toBe(errors[0]);
    }
  });

  test('a long list split by the kernel keeps its live blocks and includes', async () => {
    const body = Array.from({ length: 6000 }, (_, i) => `||r${i}.example^`);
    const text = ['!#if false', '||gone.example^', '!#endif', ...body, '!#include /inc-b.txt', '||last.example^'].join(
      '\n',
    );
    const encoder = new TextEncoder();
    const files = { '/long.txt': text, '/inc-b.txt': RULES.join('\n') };
    const reader = Object.assign(memoryReader(files), {
      async readBytes(location: string) {
        const bytes = encoder.encode(files[location as keyof typeof files]);
        return { bytes, length: bytes.length };
      },
    });
    const packed = await loadListPacked('/long.txt', { reader, tracked: false, files: [] });
    const strings = await loadList('/long.txt', { reader: memoryReader(files), tracked: false, files: [] });
    expect(isPacked(packed)).toBe(true);
    expect(unpackLines(packed as Parameters<typeof unpackLines>[0]).text).toEqual(strings.text);
    expect(strings.text).not.toContain('||gone.example^');
    expect(strings.text.slice(-3)).toEqual(['||ü.example^', 'example.org##.ad', '||last.example^']);
  });
});
