import { afterAll, expect, test } from 'vitest';
import { CompilePool } from '../../src/node/compile-pool.js';

const pool = new CompilePool({ size: 1, maxMemoryMb: 64 });
afterAll(() => pool.destroy());

test('sources needing more heap than --max-memory fail the compile (MEMORY_LIMIT); the pool compiles on', async () => {
  // About 60 MB of distinct rules: far more than a 64 MB heap holds once split, parsed and deduplicated.
  const huge = Array.from({ length: 2_000_000 }, (_, i) => `||host-${i}.memory-limit.example^`).join('\n');
  const reader = {
    resolve: (ref: string) => ref,
    read: async (location: string) => (location.includes('huge') ? huge : '||small.example^\n'),
  };
  const options = { reader, compiler: 'flc', now: () => new Date() };
  const config = (name: string) => ({ name, sources: [{ source: `https://lists.example/${name}` }] }) as never;
  await expect(pool.compile(config('huge'), options)).rejects.toMatchObject({
    code: 'MEMORY_LIMIT',
    message:
      'The sources of this compile come to more than 10 MiB, the most a worker of 64 MB may compile ' +
      '(--max-memory): compile fewer or smaller sources',
  });
  expect((await pool.compile(config('small'), options)).lines).toContain('||small.example^');
}, 120_000);
