import { describe, expect, test } from 'vitest';
import { batchedLookup } from '../../src/server/auth/lookups.js';

describe('batchedLookup', () => {
  test('calls made together share one query; a call made while a query runs waits for a newer one', async () => {
    const queries: string[][] = [];
    let version = 1;
    const pending: (() => void)[] = [];
    const lookup = batchedLookup(async (keys: string[]) => {
      queries.push(keys);
      const seen = version;
      await new Promise<void>((r) => pending.push(r));
      return new Map(keys.map((k) => [k, `${k}@v${seen}`]));
    });
    const first = [lookup('a'), lookup('b'), lookup('a')];
    await Promise.resolve();
    await Promise.resolve();
    expect(queries).toEqual([['a', 'b']]);
    // A change commits, then a request arrives while the first query is still out.
    version = 2;
    const later = lookup('a');
    const alsoLater = lookup('c');
    pending.shift()!();
    expect(await Promise.all(first)).toEqual(['a@v1', 'b@v1', 'a@v1']);
    await new Promise((r) => setImmediate(r));
    expect(queries).toEqual([
      ['a', 'b'],
      ['a', 'c'],
    ]);
    pending.shift()!();
    expect(await later).toBe('a@v2');
    expect(await alsoLater).toBe('c@v2');
  });

  test('a failed query fails its callers only; the next calls query again', async () => {
    let fail = true;
    const lookup = batchedLookup(async (keys: string[]) => {
      if (fail) throw new Error('database away');
      return new Map(keys.map((k) => [k, k.toUpperCase()]));
    });
    await expect(lookup('x')).rejects.toThrow('database away');
    fail = false;
    expect(await lookup('x')).toBe('X');
  });
});
