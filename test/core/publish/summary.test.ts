import { describe, expect, test } from 'vitest';
import { listChanges, listContents } from '../../../src/core/publish/changes.js';
import { MOST_SOURCES, summaryLines, summaryMarkdown } from '../../../src/core/publish/summary.js';

/** A list of `n` source blocks as flc writes them; a source can write such header lines too. */
function listOf(n: number, name: (i: number) => string): string {
  const blocks = Array.from({ length: n }, (_, i) => `!\n! Source: ${name(i)}\n!\n||r${i}.example^`);
  return `! Title: T\n${blocks.join('\n')}\n`;
}

describe('the change summary of a list with many source blocks', () => {
  const notes = { stale: [], deadDomains: 0, outcome: 'Wrote list.txt.' };
  const before = listContents(listOf(1, () => 'a'));
  const after = listContents(listOf(MOST_SOURCES + 50, (i) => `${'x'.repeat(i === 0 ? 5000 : 1)}${i}`));

  test('names at most MOST_SOURCES sources on stderr, then how many more', () => {
    const lines = summaryLines(listChanges(before, after), 'list.txt');
    expect(lines).toHaveLength(MOST_SOURCES + 2);
    expect(lines.at(-1)).toBe('flc:   and 51 more sources');
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThan(300);
  });

  test('the step summary keeps to MOST_SOURCES rows and short names', () => {
    const markdown = summaryMarkdown('flc: list.txt', after, listChanges(before, after), notes);
    const rows = markdown.split('\n').filter((l) => l.startsWith('| '));
    // The head, the sources shown, the row of the rest and the total.
    expect(rows).toHaveLength(MOST_SOURCES + 3);
    expect(markdown).toContain('| and 50 more sources | | | |');
    expect(markdown.length).toBeLessThan(20_000);
    expect(summaryMarkdown('t', after, null, notes)).toContain('| and 50 more sources | |\n');
  });

  test('a name with line breaks (a stale source, the title) stays on its line', () => {
    const stale = [{ source: 'https://a.example/\rlist\u2028x|y', age: '2d' }];
    const markdown = summaryMarkdown('flc:\rlist', before, null, { ...notes, stale });
    expect(markdown).toContain('### flc: list\n');
    expect(markdown).toContain('- stale: https://a.example/ list x\\|y (cached copy 2d old)\n');
  });
});
