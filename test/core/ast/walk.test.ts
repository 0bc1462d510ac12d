import { describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { walkAst } from '../../../src/core/ast/walk.js';
import type { WalkNode } from '../../../src/core/ast/walk-tree.js';
import { walkTree } from '../../../src/core/ast/walk-tree.js';
import { NODE_TYPES } from '../../../src/core/ast/node-types.js';
import { InputError } from '../../../src/core/errors/index.js';
import { corpusLists, readCorpus, testCorpus } from '../../support/corpus.js';

const FIXTURE = readFileSync(resolve(import.meta.dirname, '../../fixtures/walk/all-node-types.txt'), 'utf8');

describe('walkAst', () => {
  // The specification says "34 node types" but its list names 35 (FilterList included); all appear.
  test('every node type of the specification appears on the fixture', () => {
    const { nodes, summary } = walkAst({ text: FIXTURE });
    expect(NODE_TYPES).toHaveLength(35);
    expect(
      Object.keys(summary)
        .filter((k) => k !== 'total')
        .sort(),
    ).toEqual([...NODE_TYPES].sort());
    expect(summary.total).toBe(nodes.length);
    expect(nodes[0]).toMatchObject({ type: 'FilterList', depth: 0 });
    expect(nodes.filter((n) => n.depth === 1)).toHaveLength(FIXTURE.trimEnd().split('\n').length);
  });

  test('pre-order with key and index under includeContext', () => {
    const { nodes } = walkAst({ rules: ['||a.com^$app=x|y'], includeContext: true });
    expect(nodes.map((n) => [n.type, n.depth, n.key, n.index])).toEqual([
      ['FilterList', 0, null, null],
      ['NetworkRule', 1, 'children', 0],
      ['Value', 2, 'pattern', null],
      ['ModifierList', 2, 'modifiers', null],
      ['Modifier', 3, 'children', 0],
      ['Value', 4, 'name', null],
      ['Value', 4, 'value', null],
      ['App', 4, 'apps', 0],
      ['App', 4, 'apps', 1],
    ]);
    expect((nodes[1].node as { type: string }).type).toBe('NetworkRule');
  });

  test('without includeContext there is no key or index', () => {
    const { nodes } = walkAst({ rules: ['||a.com^'] });
    expect(Object.keys(nodes[1])).toEqual(['type', 'depth', 'node']);
  });

  test('the type filter skips nodes without pruning the walk', () => {
    const { nodes, summary } = walkAst({ text: FIXTURE, nodeTypes: ['Domain', 'App'] });
    expect(new Set(nodes.map((n) => n.type))).toEqual(new Set(['Domain', 'App']));
    expect(summary.App).toBe(2);
    expect(summary.Domain).toBeGreaterThanOrEqual(7);
    expect(summary.total).toBe(nodes.length);
  });

  test('the depth filter skips deeper nodes', () => {
    const all = walkAst({ text: FIXTURE }).nodes;
    for (const depth of [0, 1, 2, 3]) {
      const { nodes, summary } = walkAst({ text: FIXTURE, maxDepth: depth });
      expect(nodes).toEqual(all.filter((n: WalkNode) => n.depth <= depth));
      expect(summary.total).toBe(nodes.length);
    }
    expect(walkAst({ text: FIXTURE, maxDepth: 0 }).nodes).toHaveLength(1);
  });

  test('type and depth filters combine', () => {
    const { nodes } = walkAst({ text: FIXTURE, nodeTypes: ['Value'], maxDepth: 2 });
    expect(nodes.length).toBeGreaterThan(0);
    expect(nodes.every((n) => n.type === 'Value' && n.depth <= 2)).toBe(true);
  });

  test.each([
    [{}, /exactly one of rules and text is required/],
    [{ rules: ['a'], text: 'a' }, /exactly one of rules and text is required/],
    [{ rules: Array(5001).fill('a') }, /rules must have at most 5000 items/],
    [{ rules: ['a'.repeat(4097)] }, /each rule must be at most 4096 characters/],
    [{ text: 'a'.repeat(1024 * 1024 + 1) }, /text must be at most 1 MiB/],
    [{ text: 'é'.repeat(600 * 1024) }, /text must be at most 1 MiB/],
    [{ text: 'a', nodeTypes: Array(31).fill('Value') }, /nodeTypes must have at most 30 items/],
    [{ text: 'a', nodeTypes: ['Bogus'] }, /unknown node type "Bogus"/],
    [{ text: 'a', maxDepth: 51 }, /maxDepth must be between 0 and 50/],
    [{ text: 'a', maxDepth: -1 }, /maxDepth must be between 0 and 50/],
    [{ text: 'a', maxDepth: 1.5 }, /maxDepth must be an integer/],
  ])('rejects %#', (request, message) => {
    expect(() => walkAst(request)).toThrow(InputError);
    expect(() => walkAst(request)).toThrow(message);
  });

  test('limits hold at their edges', () => {
    expect(walkAst({ rules: Array(5000).fill('||a^'), maxDepth: 1 }).summary.NetworkRule).toBe(5000);
    expect(
      walkAst({ rules: ['a'.repeat(4096)], maxDepth: 0, nodeTypes: Array(30).fill('FilterList') }).nodes,
    ).toHaveLength(1);
    expect(walkAst({ text: 'a'.repeat(1024 * 1024), maxDepth: 50 }).summary.total).toBeGreaterThan(1);
  });
});

describe('walkTree (the command line walk, without request validation)', () => {
  testCorpus('the corpus has lists to walk', () => expect(corpusLists().length).toBeGreaterThan(0));

  test.each(corpusLists())(
    'walks corpus list %s',
    (file) => {
      const text = readCorpus(file);
      const { nodes, summary } = walkTree({ text, maxDepth: 2 });
      expect(summary.total).toBe(nodes.length);
      expect(summary.FilterList).toBe(1);
      expect(nodes.filter((n) => n.depth === 1).length).toBeGreaterThan(100);
    },
    120_000,
  );

  test('gives what walkAst gives for the same valid request', () => {
    const request = { text: FIXTURE, nodeTypes: ['Domain', 'Modifier'], maxDepth: 3, includeContext: true };
    expect(walkTree(request)).toEqual(walkAst(request));
    expect(walkTree({ rules: ['||a.com^$app=x|y'] })).toEqual(walkAst({ rules: ['||a.com^$app=x|y'] }));
  });

  test('still needs exactly one of rules and text', () => {
    expect(() => walkTree({})).toThrow('exactly one of rules and text is required');
    expect(() => walkTree({ rules: [], text: '' })).toThrow(InputError);
  });
});
