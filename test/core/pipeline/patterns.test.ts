import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { compilePattern, PatternSet } from '../../../src/core/pipeline/patterns.js';

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

  test('the set reports the first matching pattern in order, regex or wildcard', () => {
    const set = new PatternSet(['/b+/', '*b*', 'zzz']);
    expect(set.match('abc')).toBe('/b+/');
    expect(new PatternSet(['*B*', '/b+/']).match('abc')).toBe('*B*');
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
