import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { regexSetMatcher } from '../../../src/core/pipeline/regex-dfa.js';
import { PatternSet } from '../../../src/core/pipeline/patterns.js';
import { DFA, SELECTED } from '../../../src/core/engine/kernel-constants.js';
import type { ByteAutomaton } from '../../../src/core/engine/engine.js';
import { kernelSelect } from '../../../src/core/engine/kernel.js';
import { packText, selectPacked, unpackLines } from '../../../src/core/engine/packed.js';
import { stringEngine } from '../../../src/core/engine/engine.js';

/** Sets of regex sources (without slashes), as exclusions and inclusions give them. */
const SETS = [
  ['^(?![!#])(?!.*#[@$?%]?#)(@@)?\\|\\|[^\\/\\s]+\\^(\\$[a-z~,-]+)?$'],
  ['(?!^(\\|\\||@@\\|\\|))^.+'],
  ['^@@', '^!', '^#'],
  ['^(@@)?\\|\\|[0-9][^\\/$^]*\\^(\\$(important|third-party))?$'],
  ['ab+c', 'x{2,3}y$', '^z?$'],
  ['^(a|b)*c$', '[A-Z]Z', 'foo$|^bar'],
  ['^(?=.*a)(?!.*b)c', '^(?=x|y)..'],
  ['^$'],
  ['^.{3}$', '^[^a-c]{2,}'],
  ['#[@$?%]?#', ':\\/\\/', '\\.(?:local|lan)\\^'],
  ['^\\|\\|[^\\^]*\\*', '\\$.*(?:domain|denyallow)='],
  ['^[\\w-]+\\.\\d+$', '\\s\\S', '[\\x41-\\x43]{2}'],
  ['^(?!a)(?!b)', '^(?=$)'],
  ['A|b|\\^|\\|'],
];

const UNITS = 'abcxyzABCXYZ019 .-_|^$@#!/:?%*=~,\t'.split('');

/** V8's answer for the line, as the pattern set asks it (`mi`, the line alone). */
const v8 = (sources: readonly string[], line: string) => sources.some((s) => new RegExp(s, 'mi').test(line));

/** The automaton's table read in JavaScript, as wasm/select.wat reads it. */
function runTable({ table, ended, start }: ByteAutomaton, bytes: Uint8Array): number {
  if (bytes.length === 0) return SELECTED.SELECTED_UNREAD;
  let state = start;
  for (const b of bytes) {
    const to = table[state * DFA.DFA_ROW + b];
    if (to === DFA.DFA_MATCHES) return SELECTED.SELECTED_YES;
    if (to === DFA.DFA_NO_MATCH) return SELECTED.SELECTED_NO;
    if (to < 0) return SELECTED.SELECTED_UNREAD;
    state = to;
  }
  return ended[state];
}

const line = fc.oneof(
  fc.array(fc.constantFrom(...UNITS), { maxLength: 24 }).map((u) => u.join('')),
  fc
    .tuple(
      fc.constantFrom('', '@@', '!', '#'),
      fc.constantFrom('||', '|', ''),
      fc.stringMatching(/^[a-z0-9.#@$]{0,12}$/),
    )
    .map(([a, b, c]) => `${a}${b}${c}${c.length % 3 === 0 ? '^' : '^$third-party'}`),
);

describe('a regex set as an automaton on bytes (regex-dfa.ts)', () => {
  test.each(SETS.map((sources) => [sources]))('%j answers as V8 on ASCII lines', (sources) => {
    const matcher = regexSetMatcher(sources);
    expect(matcher).not.toBeNull();
    const automaton = matcher!.complete();
    expect(automaton).not.toBeNull();
    const encoder = new TextEncoder();
    fc.assert(
      fc.property(line, (text) => {
        const bytes = encoder.encode(text);
        const expected = v8(sources, text);
        expect(matcher!.test(bytes, 0, bytes.length), text).toBe(expected);
        if (bytes.length > 0) expect(runTable(automaton!, bytes), text).toBe(expected ? 1 : 0);
      }),
      { numRuns: 400 },
    );
  });

  test("a set every line matches, or none, needs no automaton: the line's start decides", () => {
    for (const [sources, expected] of [
      [['(?:)'], true],
      [['a*'], true],
      [['^(?!)'], false],
    ] as const) {
      const matcher = regexSetMatcher(sources)!;
      expect(matcher.complete()).toBeNull();
      for (const text of ['', 'a', 'xyz']) {
        const bytes = new TextEncoder().encode(text);
        expect(matcher.test(bytes, 0, bytes.length)).toBe(expected);
        expect(v8(sources, text)).toBe(expected);
      }
    }
  });

  test('reads a line where it stands among others', () => {
    const matcher = regexSetMatcher(['^ab$'])!;
    const bytes = new TextEncoder().encode('xab ab ab');
    expect(matcher.test(bytes, 1, 3)).toBe(true);
    expect(matcher.test(bytes, 0, 3)).toBe(false);
    expect(matcher.test(bytes, 4, 6)).toBe(true);
    expect(matcher.test(bytes, 4, 7)).toBe(false);
  });

  test.each([['(a)\\1'], ['\\bad'], ['(?<=a)b'], ['^a(?=b)'], ['(?!a)b'], ['a{200}'], ['(?i:a)']])(
    '%s is left to V8',
    (source) => {
      expect(regexSetMatcher([source])).toBeNull();
      // One such pattern leaves the whole set to V8.
      expect(regexSetMatcher(['^a', source])).toBeNull();
    },
  );

  test.each([
    ['(?:a|b)*a(?:a|b){12}', 'a deterministic automaton of 2^13 states'],
    ['(?:(?:a{100}){100})', 'ten thousand copies of a'],
  ])('%s (%s) is left to V8, built no further than its budget', (source) => {
    expect(regexSetMatcher([source])?.complete() ?? null).toBeNull();
  });

  test('a pattern that names a character past ASCII is left to V8, which folds its case by where it stands', () => {
    // In Node 20's V8 the first matches DEL and the second neither k nor K; each character alone reads otherwise.
    const sets = [['(?:(a)|\u017f)+'], ['\u212a|\x4b|\x4b'], ['[\u0041-\u2126]'], ['^\u00e4']];
    for (const sources of sets) expect(regexSetMatcher(sources), sources[0]).toBeNull();
    const packed = packText(['k', 'K', 'x', 'zz\x7fzz', 's'].join('\n'))!;
    for (const texts of [['/\u212a|\x4b|\x4b/'], ['/(?:(a)|\u017f)+/']]) {
      const set = new PatternSet(texts);
      for (const exclude of [false, true]) {
        expect(selectPacked(packed, set, exclude, 0)).toEqual(stringEngine.select(unpackLines(packed), set, exclude));
      }
    }
  });

  test('a pattern nested past the stack is left to V8, not thrown', () => {
    for (const n of [900, 2000]) {
      const deep = `${'(?:'.repeat(n)}a${')?'.repeat(n)}`;
      expect(regexSetMatcher([deep])).toBeNull();
      // The set's shapes (regex-shape.ts) walk the tree too: such a pattern is tried alone.
      const set = new PatternSet([`/${deep}/`]);
      expect(set.byteAutomaton()).toBeNull();
      expect([set.has('a'), set.has('')]).toEqual([true, true]);
    }
  });

  test("making the automaton runs no regex of the set's on lines of its own", () => {
    const set = new PatternSet(['/^(?:(?:.*\\S*||)+\\0$)/', '/^a/']);
    set.has = () => {
      throw new Error('asked');
    };
    expect(set.byteAutomaton()).not.toBeNull();
  });

  test('a pattern of more alternatives than parts allowed is refused before any is built', () => {
    expect(regexSetMatcher([Array.from({ length: 100_000 }, () => 'b').join('|')])).toBeNull();
  });

  test('a set of more than 64 parts is left to V8', () => {
    expect(regexSetMatcher(Array.from({ length: 64 }, (_, i) => `^a${i}`))).not.toBeNull();
    expect(regexSetMatcher(Array.from({ length: 65 }, (_, i) => `^a${i}`))).toBeNull();
  });

  test('a set whose automaton would grow too large has none', () => {
    // Each `.{n}x` remembers the last n units: the product of several is huge.
    const sources = [5, 6, 7, 8, 9].map((n) => `x.{${n}}y`);
    const matcher = regexSetMatcher(sources);
    expect(matcher === null || matcher.complete() === null).toBe(true);
    if (matcher !== null) {
      // The lazy form still answers, starting its table afresh as it fills.
      const encoder = new TextEncoder();
      for (let k = 0; k < 300; k += 1) {
        const text = Array.from({ length: 40 }, (_, j) => 'xyab'[(k * 7 + j * j * 3 + (k >> 2)) % 4]).join('');
        const bytes = encoder.encode(text);
        expect(matcher.test(bytes, 0, bytes.length), text).toBe(v8(sources, text));
      }
    }
  });

  test('PatternSet gives an automaton only when every pattern is a regex the automaton reads', () => {
    expect(new PatternSet(['/^a/', '/b$/']).byteAutomaton()).not.toBeNull();
    expect(new PatternSet(['/^a/', 'plain']).byteAutomaton()).toBeNull();
    expect(new PatternSet(['/^a/', '*b*']).byteAutomaton()).toBeNull();
    expect(new PatternSet(['/^a/', '/\\bb/']).byteAutomaton()).toBeNull();
  });

  test('the kernel runs the automaton over a list: lines outside ASCII and empty ones are left unread', () => {
    const sources = ['^(?!.*#)(@@)?\\|\\|[a-z.]+\\^$', '^b$'];
    const automaton = regexSetMatcher(sources)!.complete()!;
    const texts = ['||a.b^', '@@||c.d^', '||a#b^', 'B', '||\u00e4.de^', 'x', '\u2028', 'b'];
    const packed = packText(texts.join('\n'))!;
    expect(unpackLines(packed).text).toEqual(texts);
    const read = kernelSelect(packed, automaton)!;
    expect([...read]).toEqual([1, 1, 0, 1, 2, 0, 2, 1]);
    for (const [i, text] of texts.entries()) if (read[i] !== 2) expect(read[i] === 1, text).toBe(v8(sources, text));
  });
});
