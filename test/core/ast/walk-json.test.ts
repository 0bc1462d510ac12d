import { describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { walkJsonPart, walkJsonText } from '../../../src/core/ast/walk-json.js';
import { textLines, walkTree, type WalkInput } from '../../../src/core/ast/walk-tree.js';
import { CORPUS, NEEDS_CORPUS, readCorpus } from '../../support/corpus.js';

const FIXTURE = readFileSync(resolve(import.meta.dirname, '../../fixtures/walk/all-node-types.txt'), 'utf8');

/** The walk's JSON from parts of `size` lines, walked in reverse order to show order does not matter. */
function fromParts(text: string, size: number, options: Omit<WalkInput, 'text' | 'rules'>): string {
  const lines = textLines(text);
  const parts = [];
  for (let k = Math.ceil(lines.length / size) - 1; k >= 0; k -= 1)
    parts[k] = walkJsonPart(lines, k * size, Math.min(lines.length, (k + 1) * size), options);
  return [...walkJsonText(parts, options)].join('');
}

const OPTIONS: Omit<WalkInput, 'text' | 'rules'>[] = [
  {},
  { includeContext: true },
  { maxDepth: 0 },
  { maxDepth: 1, includeContext: true },
  { maxDepth: 2 },
  { nodeTypes: ['Modifier', 'Value'] },
  { nodeTypes: ['FilterList', 'App'], includeContext: true },
  { nodeTypes: ['FilterList'], maxDepth: 3 },
  { nodeTypes: ['Agent'] },
];

describe('the walk as JSON parts', () => {
  test.each(OPTIONS)('parts of any size join into exactly the whole walk: %j', (options) => {
    const expected = JSON.stringify(walkTree({ text: FIXTURE, ...options }));
    for (const size of [1, 2, 7, 1000]) expect(fromParts(FIXTURE, size, options)).toBe(expected);
  });

  test('a part without reported nodes adds no empty record (no ",,")', () => {
    const text = '||a.com^\n! comment\n! another\nexample.org##.ad\n';
    const options = { nodeTypes: ['NetworkRule', 'ElementHidingRule'] };
    expect(fromParts(text, 1, options)).toBe(JSON.stringify(walkTree({ text, ...options })));
  });

  test('empty and one-line lists', () => {
    for (const text of ['', '\n', '||a^']) expect(fromParts(text, 3, {})).toBe(JSON.stringify(walkTree({ text })));
  });

  test('summary counts keep the order in which the walk meets each type', () => {
    const text = 'example.org##.ad\n||a.com^$third-party\n! comment\nexample.org##.b\n';
    const joined = JSON.parse(fromParts(text, 1, {}));
    expect(Object.keys(joined.summary)).toEqual(Object.keys(walkTree({ text }).summary));
  });

  test.for(['easylist.txt', 'ubo-filters.txt', 'hosts-hagezi-light.txt'])(
    `%s: parts join into the single-walk text${CORPUS === null ? ` [${NEEDS_CORPUS}]` : ''}`,
    { timeout: 120_000 },
    (file, ctx) => {
      if (CORPUS === null) return ctx.skip(NEEDS_CORPUS);
      const text = readCorpus(file);
      const whole = JSON.stringify(walkTree({ text }));
      expect(fromParts(text, 4000, {}) === whole).toBe(true);
    },
  );
});
