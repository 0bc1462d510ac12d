import { describe, expect, test } from 'vitest';
import { BusyError, ConfigError } from '../../src/core/errors/index.js';
import { PARSE_LIMITS, parseApart } from '../../src/node/parse-apart.js';

/** YAML whose parse holds a thread until its deadline or its heap ends it (about 1-2 s). */
const SLOW = `name: anchors\nz: ${'&a '.repeat(100_000)}x\n`;
const QUICK = 'name: quick\nsources:\n  - source: https://example.org/list.txt\n';

describe('YAML and TOML read apart, the threads shared fairly', () => {
  test('a caller has one document in the process at a time', async () => {
    const first = parseApart(SLOW, 'yaml', { caller: 'mallory' });
    await expect(parseApart(QUICK, 'yaml', { caller: 'mallory' })).rejects.toThrow(BusyError);
    await expect(first).rejects.toThrow(ConfigError);
    // Once it is done, the next one is read.
    await expect(parseApart(QUICK, 'yaml', { caller: 'mallory' })).resolves.toMatchObject({ name: 'quick' });
  }, 20_000);

  test('callers holding every thread with slow documents make another wait for the next, not fail', async () => {
    expect(PARSE_LIMITS.running).toBe(2);
    const held = [parseApart(SLOW, 'yaml', { caller: 'a' }), parseApart(SLOW, 'yaml', { caller: 'b' })];
    // Both threads are taken: this one waits its turn, and gets it before the holders' next documents.
    const waiting = parseApart(QUICK, 'yaml', { caller: 'victim' });
    const next = held.map((p, i) => p.catch(() => parseApart(SLOW, 'yaml', { caller: i === 0 ? 'a' : 'b' })));
    await expect(waiting).resolves.toMatchObject({ name: 'quick' });
    await Promise.allSettled(next);
  }, 30_000);
});
