import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { compilePattern, PatternSet } from '../../../src/core/pipeline/patterns.js';
import { regexShape } from '../../../src/core/pipeline/regex-shape.js';

/** The reference's wildcard: `*` becomes `[\s\S]*` in an anchored, case-insensitive regex. */
function referenceWildcard(text: string): RegExp {
  const escapeRegExp = (s: string) => s.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
  return new RegExp(`^${text.split(/\*+/).map(escapeRegExp).join('[\\s\\S]*')}$`, 'i');
}

// Characters where case-insensitive matching has traps: ASCII letters, ß, ſ, ı, İ, K (Kelvin), ﬀ,
// Greek sigmas, Deseret (a surrogate pair with a case mapping), and the wildcard itself.
const alphabet = [
  'a',
  'A',
  'b',
  's',
  'S',
  'k',
  'K',
  'i',
  'I',
  '.',
  '*',
  'ß',
  'ſ',
  'ı',
  'İ',
  '\u212a',
  'ﬀ',
  'σ',
  'Σ',
  'ς',
  '𐐨',
  '𐐀',
  '\n',
];
const text = (max: number) => fc.array(fc.constantFrom(...alphabet), { maxLength: max }).map((a) => a.join(''));

describe('wildcard patterns', () => {
  test('match exactly as the reference regex does', () => {
    fc.assert(
      fc.property(text(8), text(14), (pattern, line) => {
        fc.pre(pattern.includes('*'));
        const line2 = line.replaceAll('*', '');
        expect(compilePattern(pattern).test(line2)).toBe(referenceWildcard(pattern).test(line2));
      }),
      { numRuns: 5_000 },
    );
  });

  test('the set reports the first matching pattern in order, of any kind', () => {
    const set = new PatternSet(['/b+/', '*b*', 'zzz']);
    expect(set.match('abc')).toBe('/b+/');
    expect(new PatternSet(['*B*', '/b+/']).match('abc')).toBe('*B*');
    // Order, not the place in the line: `c` comes first although `a` is found first.
    expect(new PatternSet(['c', 'a', 'ab']).match('abc')).toBe('c');
    expect(new PatternSet(['zz', 'bc', 'abc', '/a/']).match('abc')).toBe('bc');
    expect(new PatternSet(['/x/', 'abc', '*C']).match('abc')).toBe('abc');
  });

  test('a*a*a*a*a*a*b over a long line of a answers at once (no backtracking)', () => {
    // The reference's regex needs on the order of n^6 steps here; the matcher a few passes.
    const line = 'a'.repeat(100_000);
    const started = performance.now();
    expect(compilePattern('a*a*a*a*a*a*b').test(line)).toBe(false);
    expect(new PatternSet(['a*a*a*a*a*a*b']).match(line)).toBeNull();
    expect(compilePattern('*a*a*a*a*a*a*b*').test(line)).toBe(false);
    // Generous bound: the backtracking regex would not finish in this test's lifetime.
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

const numRuns = Number(process.env.FC_RUNS ?? 3000);

/** What the set must answer: the first unique, non-empty pattern that matches alone. */
function firstAlone(texts: readonly string[], line: string): string | null {
  return [...new Set(texts)].find((t) => t.length > 0 && compilePattern(t).test(line)) ?? null;
}

// Regexes whose meaning could change inside a joined regex (backreferences, named groups, `\1`
// as an octal escape when there is no group, `\k` as a plain `k`), anchors and case traps.
const regexes = [
  String.raw`/a+/ /^s/ /k$/ /(a)\1/ /(?<n>s)\k<n>/ /\1/ /\2/ /\k<n>/ /(a|b)(s)/ /[ß-ſ]/ /\bK/ /(?<=a)b/`,
  String.raw`/(a)(b)\2/ /(b)\1/ /(?<n>a)b/ /(?<!a)b/`,
  String.raw`/./ /|/ /^$/ /ı/ /\u212a/ /σ/ /\n/ /a{/ /]/ /[^a]*b$/ /^(?:ab)+$/m`,
  // Anchored at the line's start (tried there only), with look-arounds, and with literals to find.
  String.raw`/(?!^(\|\||@@\|\|))^.+/ /(^a|^b)s/ /(?:^|\.)ab/ /^(?=.*s)a/ /a^/ /(?<=^a)b/ /^\|\|[^.]+\^$/`,
  String.raw`/\.ab(?:c|d)/ /(?<=a)bs/ /AB(?=s)/ /(?:ab|ba)+\*?/ /a\b\.s/ /[ab]\||ba/ /(?:ab)?s/ /\^\|$/`,
].flatMap((r) => r.split(' '));
const lineAlphabet = [...alphabet, '/', '|', '^', '\x01', 'n', '{', ']', '<', '>', '@', '\u2028', '\r'];
// Few letters, so that patterns overlap and hide inside one another (`b` in `ab`) often.
const few = fc.array(fc.constantFrom('a', 'b', 'B', '*'), { maxLength: 4 }).map((a) => a.join(''));

describe('PatternSet', () => {
  const pattern = fc.oneof(
    text(5).map((t) => t.replaceAll('*', '')),
    text(8),
    fc.constantFrom(...regexes),
    text(4).map((t) => `/${t.replaceAll('*', '.*').replaceAll('\n', '')}/`),
    fc.constantFrom('', '*', '**', '//', '/', '*a', 'a*'),
    few,
  );
  const line = fc.oneof(
    fc.array(fc.constantFrom(...lineAlphabet), { maxLength: 16 }).map((a) => a.join('')),
    few.map((t) => t.replaceAll('*', 'a').repeat(2)),
  );

  test('names the same pattern as trying each pattern alone, in order', () => {
    fc.assert(
      fc.property(fc.array(pattern, { maxLength: 12 }), fc.array(line, { maxLength: 8 }), (texts, lines) => {
        const set = new PatternSet(texts);
        for (const l of lines) expect(set.match(l)).toBe(firstAlone(texts, l));
      }),
      { numRuns },
    );
  });

  test('has() says whether a pattern matches, as match() and each pattern alone do', () => {
    fc.assert(
      fc.property(fc.array(pattern, { maxLength: 12 }), fc.array(line, { maxLength: 8 }), (texts, lines) => {
        const set = new PatternSet(texts);
        for (const l of lines) expect(set.has(l), l).toBe(firstAlone(texts, l) !== null);
      }),
      { numRuns },
    );
    // Each kind alone and mixed, lines with terminators, a set past one joined regex.
    const texts = ['/^@@/', '/(?!^(\\|\\||@@\\|\\|))^.+/', '/\\.onion\\^/', '/[0-9]{3}/', '*.Org^', 'never'];
    const long = Array.from({ length: 260 }, (_, i) => (i % 2 ? `/^x${i}y${'q?'.repeat(10)}/` : `*Y${i}z*`));
    // Past MOST_SEARCHED plain patterns the automaton looks for them.
    const plains = [...Array.from({ length: 10 }, (_, i) => `p${i}`), 'zz', '/^b/'];
    for (const set of [texts, texts.slice(2), ['plain', ...long], ['/^b/'], ['a', '*'], plains, plains.slice(8)]) {
      for (const l of [
        '@@||a^',
        '||a.onion^',
        '||a.org^',
        '||123^',
        'x259yz',
        'aY258Z',
        'plain',
        'a\u2028b',
        '',
        'zz',
        'xp9',
        'P1',
        'p1\u2028b',
      ]) {
        expect(new PatternSet(set).has(l), `${set.slice(0, 3).join(' ')} on ${l}`).toBe(firstAlone(set, l) !== null);
      }
    }
  });

  test('a line opening with a unit no anchored regex opens with matches none (openings)', () => {
    const units = (o: Uint8Array | null) =>
      o === null ? null : String.fromCharCode(...Array.from(o).flatMap((v, c) => (v ? [c] : [])));
    const opening = (re: string) => units(regexShape(re).opening);
    expect(opening(String.raw`^(?![!#])(?!.*#[@$?%]?#)(@@)?\|\|[^\/\s]+\^(\$[a-z~,-]+)?$`)).toBe('@|');
    expect(opening('(^a|^B)s')).toBe('ABab');
    expect(opening(String.raw`^\d|^[x-z_]`)).toBe('0123456789XYZ_xyz');
    expect(opening(String.raw`^[^|@\s]`)?.length).toBe(128 - 2 - 6);
    // What may open with anything, or match the empty string, tells nothing; nor does an unanchored regex.
    for (const re of ['^x?', '^.', '^\\n', '^(?:a|)', 'a', '^\\1(a)', '^[\\W]']) expect(opening(re), re).toBeNull();
    expect(new PatternSet(['/^a/', 'b']).openings).toBeNull();
    expect(units(new PatternSet(['/^a/', '/^@@/']).openings)).toBe('@Aa');
    // Each regex of the generated ones never matches a line ruled out by its openings.
    const lines = fc.array(fc.constantFrom(...lineAlphabet.filter((u) => !/[\n\r\u2028\u2029]/.test(u))), {
      maxLength: 16,
    });
    fc.assert(
      fc.property(fc.constantFrom(...regexes, '/^[^a]b/', '/^[a-c]+$/', '/(?:^|x)a/'), lines, (re, chars) => {
        const shape = regexShape(re.slice(1, -1));
        const line = chars.join('');
        const code = line.charCodeAt(0);
        if (shape.opening !== null && code < 128 && shape.opening[code] === 0) {
          expect(compilePattern(re).test(line), `${re} on ${line}`).toBe(false);
        }
      }),
      { numRuns },
    );
  });

  test('hasAt() asks a line where it stands in a text of lines, as has() asks it alone', () => {
    // Anchored regexes none of whose parts matches a line break: they never look past their line.
    const bound = String.raw`/^a$/ /^(@@)?\|\|[a-z.]+\^$/ /^b/ /^(?=.*s)a/ /^(?!.*#)\|\|/ /^(?<!x)a/ /^.+\bk$/`;
    const bounds = [...bound.split(' '), String.raw`/^\S+\^/`];
    const sets = [bounds, ['/^(?![!#])(?!.*#[@$?%]?#)(@@)?\\|\\|[^\\/\\s]+\\^(\\$[a-z~,-]+)?$/']];
    const ascii = lineAlphabet.filter((u) => u.charCodeAt(0) < 128 && u !== '\r' && u !== '\n');
    const lines = fc.array(
      fc.oneof(
        fc.array(fc.constantFrom(...ascii, '#', ' ', '$'), { maxLength: 12 }).map((a) => a.join('')),
        fc.constantFrom('||a.b^', '@@||ab^', 'a', 'as', 'b', '||x^$third-party', '||a#b^', 'ak'),
      ),
      { minLength: 1, maxLength: 8 },
    );
    fc.assert(
      fc.property(fc.constantFrom(...sets), lines, fc.constantFrom('\n', '\r\n', '\r', '\n\n'), (texts, ls, br) => {
        const set = new PatternSet(texts);
        const joined = ls.join(br);
        let at = 0;
        for (const l of ls) {
          expect(set.hasAt!(joined, at), `${l} in ${JSON.stringify(joined)}`).toBe(set.has(l));
          at += l.length + br.length;
        }
      }),
      { numRuns },
    );
    // What could read past its line, or is no anchored regex, is asked line by line.
    expect(sets.every((texts) => new PatternSet(texts).hasAt !== null)).toBe(true);
    for (const texts of [
      ['/^a[^b]c/'],
      ['/^a\\sc/'],
      ['/^a\\Wb/'],
      ['/^(?![^x]*y)a/'],
      ['/^a[\\s\\S]/'],
      ['/^a\\n/'],
      ['/^a/', 'plain'],
      ['/^a/', '/b/'],
      ['/^a/', '*'],
      ['/^a/', 'a*b'],
      ['/^\\|\\|ads\\./'],
    ]) {
      expect(new PatternSet(texts).hasAt, texts.join(' ')).toBeNull();
    }
  });

  test('backreferences and named groups keep their meaning', () => {
    // Joined after `(x)`, `\2` would mean `(a)`; two groups named `n` would not compile at all.
    expect(new PatternSet(['/(x)/', '/(a)(b)\\2/']).match('abb')).toBe('/(a)(b)\\2/');
    expect(new PatternSet(['/(?<n>a)b/', '/(?<n>s)\\k<n>/']).match('ss')).toBe('/(?<n>s)\\k<n>/');
  });

  test('case-insensitive alternatives beyond ASCII match as each does alone (V8 misses them joined)', () => {
    const cases: [string[], string][] = [
      [['/ſ/', 'S*', '/S/'], 's'],
      [['/ſ/', '/S/', '/S/'], 's'],
      [['/\u212a/', '/K/', '/ka/'], 'K'],
      [['/ſ/', '/s\\./', '/s\\.e/'], '||s.example^'],
    ];
    for (const [texts, line] of cases) {
      expect(firstAlone(texts, line)).not.toBeNull();
      expect(new PatternSet(texts).match(line), texts.join(' ')).toBe(firstAlone(texts, line));
    }
  });

  test('past one prefilter regex, each pattern stays behind its own', () => {
    // Over 4,000 characters of sources: several prefilters.
    const texts = Array.from({ length: 260 }, (_, i) => (i % 2 ? `/^x${i}y${'q?'.repeat(10)}/` : `*Y${i}z*`));
    const set = new PatternSet(['plain', ...texts]);
    for (const l of ['x1y', 'x259yz', 'aY258Z', 'y2z', 'x3y plain', 'plain', 'x2y', 'nothing']) {
      expect(set.match(l)).toBe(firstAlone(['plain', ...texts], l));
    }
  });

  test('each kind of regex is tried its own way and still names the first match in order', () => {
    const texts = [
      '/^@@/',
      '/(?!^(\\|\\||@@\\|\\|))^.+/',
      '/\\.onion\\^/',
      '/(^x|^y)z/',
      '/[0-9]{3}/',
      '*.Org^',
      '*',
      'never',
    ];
    const set = new PatternSet(texts);
    const lines = [
      '@@||a.org^',
      '||a.onion^',
      '||A.ONION^',
      'xz',
      '||xz^',
      '||a.org^',
      '||123^',
      'plain',
      '',
      'a\u2028b',
    ];
    for (const l of lines) expect(set.match(l), l).toBe(firstAlone(texts, l));
    // After a line terminator `^` matches again (flag `m`): such lines are tried pattern by pattern.
    expect(new PatternSet(['/^b/']).match('a\u2028b')).toBe('/^b/');
    expect(new PatternSet(['/^b/', '/(?!^a)^b/']).match('a\nb')).toBe('/^b/');
    expect(new PatternSet(['/(?!^a)^b/']).match('a\rb')).toBe('/(?!^a)^b/');
  });

  test('sets too large for a table of moves match as the small ones do', () => {
    // 4,000 texts of 6-7 units: past the states an automaton keeps a table for.
    const texts = Array.from({ length: 4_000 }, (_, i) => `${i % 2 ? '*' : ''}${(i * 7919).toString(36)}.Ab`);
    texts.push('/(?:xq|qx)\\.AB/', '/^zz/');
    const set = new PatternSet(texts);
    const lines = [
      '||1ekf.ab^',
      'x 2k0.AB',
      'qx.ab',
      'zz',
      'nothing',
      'ſ.ab',
      '5x.ab\u2028zz',
      `${(3 * 7919).toString(36)}.ab`,
    ];
    for (const l of lines) expect(set.match(l), l).toBe(firstAlone(texts, l));
  });

  test('long regexes are tried alone: joined, they could pass what V8 accepts', () => {
    // Each has 16,400 groups; one regex with both would have too many for V8 to build.
    const texts = ['a', 'b'].map((c) => `/${c}${'(){0}'.repeat(16_400)}/`);
    const set = new PatternSet(texts);
    for (const l of ['xb', 'A', 'c']) expect(set.match(l)).toBe(firstAlone(texts, l));
  });
});
