import { afterAll, describe, expect, test } from 'vitest';
import { CompilePool } from '../../src/node/compile-pool.js';
import { compile } from '../../src/core/pipeline/compile.js';
import type { RemovedLine } from '../../src/core/pipeline/report.js';
import { validateConfiguration } from '../../src/core/config/parse.js';
import { memoryReader } from '../support/memory-reader.js';

// The console's removal report comes from the worker pool: the lines a pooled compile removes
// must be the report an in-process compile gives, in batches past the first thousand too.
const pool = new CompilePool({ size: 1 });
afterAll(() => pool.destroy());

const many = Array.from({ length: 2_500 }, (_, i) => `||dup${i % 1_200}.example.com^`);
const files = {
  '/a.txt': ['! comment', '0.0.0.0 ads.example.com', '0.0.0.0 ads.example.com', '||bad rule^', ...many].join('\n'),
};
const { config } = validateConfiguration({
  name: 'report',
  sources: [{ source: '/a.txt', type: 'hosts' }],
  transformations: ['RemoveComments', 'Compress', 'Validate', 'Deduplicate'],
});
const options = { compiler: 'flc test', now: () => new Date(0) };

describe('a pooled compile reports its removed lines on request', () => {
  test('the same lines, in the same order, as the in-process report', async () => {
    const expected = await compile(config, { ...options, reader: memoryReader(files), report: true });
    const removed: RemovedLine[] = [];
    const out = await pool.compile(config, {
      ...options,
      reader: memoryReader(files),
      onRemoved: (line) => removed.push(line),
    });
    expect(expected.report?.removed.length).toBeGreaterThan(1_300);
    expect(removed).toEqual(expected.report?.removed);
    expect(out.lines).toEqual(expected.lines);
  });

  test('nothing is sent when nobody asks', async () => {
    const out = await pool.compile(config, { ...options, reader: memoryReader(files) });
    expect(out.ruleCount).toBeGreaterThan(1_000);
  });
});
