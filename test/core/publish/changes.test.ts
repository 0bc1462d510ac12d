import { describe, expect, test } from 'vitest';
import { listChanges, listContents, sameBesidesHeader } from '../../../src/core/publish/changes.js';
import { checkShrink, ShrinkGuardError } from '../../../src/core/publish/guard.js';
import { formatAge, parseAge } from '../../../src/core/publish/duration.js';

const list = (blocks: Record<string, string[]>, modified = '2026-01-01T00:00:00.000Z') =>
  [
    '!',
    '! Title: T',
    `! Last modified: ${modified}`,
    '!',
    ...Object.entries(blocks).flatMap(([source, rules]) => ['!', `! Source: ${source}`, '!', ...rules]),
    '',
  ].join('\n');

describe("a list's rules by source block", () => {
  test('rules are counted under their source; comments, blank lines and the header are not rules', () => {
    const text = list({ a: ['||x^', '! a comment', '', '##.ad'], b: ['0.0.0.0 y', '# hosts comment'] });
    const contents = listContents(text);
    expect(contents.blocks).toEqual([
      { source: 'a', rules: ['||x^', '##.ad'] },
      { source: 'b', rules: ['0.0.0.0 y'] },
    ]);
    expect(contents.ruleCount).toBe(3);
  });

  test("a source named twice gets two keys; the DNS formats' comment syntaxes open blocks too", () => {
    const text = ['#', '# Source: a', '#', 'x.example', ';', '; Source: a', ';', 'y.example CNAME .', ''].join('\n');
    expect(listContents(text).blocks.map((b) => b.source)).toEqual(['a', 'a#2']);
  });

  test('a list without source blocks is one block', () => {
    expect(listContents('||a^\n||b^\n').blocks).toEqual([{ source: '', rules: ['||a^', '||b^'] }]);
  });

  test('changes: the set differences in all and per source, a move counted per source only', () => {
    const before = listContents(list({ a: ['1', '2', 'm'], b: ['3'] }));
    const after = listContents(list({ a: ['1', '4'], b: ['3', 'm'] }));
    expect(listChanges(before, after)).toEqual({
      total: { added: ['4'], removed: ['2'] },
      sources: [
        { source: 'a', added: ['4'], removed: ['2', 'm'] },
        { source: 'b', added: ['m'], removed: [] },
      ],
    });
  });

  test('header-only: Last modified, Diff-Path and Checksum lines are not changes', () => {
    const a = list({ a: ['1'] });
    const b = `! Diff-Path: p/x-1-1.patch\n${list({ a: ['1'] }, '2027-01-01T00:00:00.000Z')}`;
    expect(sameBesidesHeader(a, b)).toBe(true);
    expect(sameBesidesHeader(a, list({ a: ['1', '2'] }))).toBe(false);
    expect(sameBesidesHeader(a, a.replace('Title: T', 'Title: U'))).toBe(false);
  });
});

describe('the shrink guard', () => {
  const counts = (total: number, sources: [string, number][]) => ({ ruleCount: total, sources: new Map(sources) });

  test('within bounds, or without a previous build for --max-shrink, it passes', () => {
    expect(() => checkShrink({ maxShrinkPercent: 10 }, counts(100, []), counts(90, []))).not.toThrow();
    expect(() => checkShrink({ maxShrinkPercent: 10 }, null, counts(1, []))).not.toThrow();
    expect(() => checkShrink({ minRules: 5 }, null, counts(5, []))).not.toThrow();
  });

  test('past a bound it names each source that fell, the largest fall first', () => {
    const before = counts(100, [
      ['a', 50],
      ['b', 30],
      ['c', 20],
    ]);
    const after = counts(60, [
      ['a', 45],
      ['b', 0],
      ['c', 15],
    ]);
    let error: unknown;
    try {
      checkShrink({ maxShrinkPercent: 25 }, before, after);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ShrinkGuardError);
    expect((error as ShrinkGuardError).fallen.map((f) => f.source)).toEqual(['b', 'a', 'c']);
    expect((error as Error).message).toContain('shrink by 40% (100 -> 60 rules), more than the maximum of 25%');
    expect((error as Error).message).toContain('  b: 30 -> 0 rules (-30, -100.0%)');
  });
});

test('ages', () => {
  expect(parseAge('90s')).toBe(90_000);
  expect(parseAge('36h')).toBe(36 * 3_600_000);
  expect(parseAge('7d')).toBe(7 * 86_400_000);
  expect(parseAge('120')).toBe(120_000);
  expect(parseAge('7 weeks')).toBeNull();
  expect(formatAge(3 * 86_400_000 + 4 * 3_600_000 + 5_000)).toBe('3 d 4 h');
  expect(formatAge(2 * 3_600_000 + 5 * 60_000)).toBe('2 h 5 min');
  expect(formatAge(40_000)).toBe('40 s');
});
