import { expect, test } from 'vitest';
import { corpusLists, corpusPath, describeCorpus } from '../support/corpus.js';
import { ENGINES, firstDifference, flcOutput, flcReport, referenceOutput } from '../support/reference.js';
import type { Configuration } from '../../src/core/config/schema.js';

const QUICK = ['RemoveComments', 'Deduplicate', 'Compress', 'Validate', 'TrimLines', 'InsertFinalNewLine'] as const;
const lists = corpusLists();

describeCorpus('corpus lists under the reference quick configuration', () => {
  test('the corpus is present', () => {
    expect(lists.length).toBe(12);
  });

  test.each(lists)(
    '%s compiles exactly as @adguard/hostlist-compiler 2.1.1, on every engine, with the same report on both',
    async (file) => {
      const config: Configuration = {
        name: 'Blocklist',
        sources: [{ source: corpusPath(file) }],
        transformations: [...QUICK],
      };
      const [reference, ...ours] = await Promise.all([
        referenceOutput(config),
        ...ENGINES.map((engine) => flcOutput(config, engine)),
      ]);
      for (const [i, engine] of ENGINES.entries()) expect(firstDifference(reference, ours[i]), engine).toBeNull();
      expect(ours[0][1]).toBe('! Title: Blocklist');
      // Both engines report the same removed lines, reasons and provenance, in the same order.
      const reports = await Promise.all([true, false].map((packed) => flcReport(config, packed)));
      const [packed, strings] = reports.map((r) => [...r.steps, ...r.removed.map((line) => JSON.stringify(line))]);
      expect(firstDifference(strings, packed)).toBeNull();
    },
    180_000,
  );
});
