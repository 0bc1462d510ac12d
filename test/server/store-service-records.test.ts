import { describe, expect, test } from 'vitest';
import type { FlashEntry } from '../../src/server/store/service-records.js';
import { ENGINES, storesFor } from '../support/stores.js';

const password = { hash: 'h', salt: 's', iterations: 1 };

const flash = (token: string, createdAt: string, expiresAt: string): FlashEntry => ({
  token,
  code: 'FORBIDDEN',
  message: 'no',
  type: 'error',
  createdAt,
  expiresAt,
});

/** Flash entries, error events and rule sets, once per engine. */
describe.each(ENGINES)('$engine store: service records', (engine) => {
  const fresh = storesFor(engine);

  test('a flash entry is taken once, and not after it expired', async () => {
    const store = await fresh();
    const t = '2026-01-01T00:00:00.000Z';
    const e = flash('a', t, '2026-01-01T00:01:00.000Z');
    await store.putFlash(e);
    expect(await store.takeFlash('a', '2026-01-01T00:00:30.000Z')).toEqual(e);
    expect(await store.takeFlash('a', '2026-01-01T00:00:30.000Z')).toBeNull();
    await store.putFlash(flash('b', t, '2026-01-01T00:01:00.000Z'));
    expect(await store.takeFlash('b', '2026-01-01T00:01:00.000Z')).toBeNull();
    expect(await store.takeFlash('unknown', t)).toBeNull();
  });

  test('of concurrent reads of one flash entry, exactly one gets it', async () => {
    const store = await fresh();
    const t = '2026-01-01T00:00:00.000Z';
    for (let i = 0; i < 5; i += 1) {
      await store.putFlash(flash(`t${i}`, t, '2026-01-01T00:01:00.000Z'));
      const reads = await Promise.all(Array.from({ length: 4 }, () => store.takeFlash(`t${i}`, t)));
      expect(reads.filter((r) => r !== null)).toHaveLength(1);
    }
  });

  test('storing a flash entry drops the expired ones', async () => {
    const store = await fresh();
    await store.putFlash(flash('old', '2026-01-01T00:00:00.000Z', '2026-01-01T00:01:00.000Z'));
    await store.putFlash(flash('new', '2026-01-01T00:02:00.000Z', '2026-01-01T00:03:00.000Z'));
    // Even read with a clock that would still accept it, the old entry is gone.
    expect(await store.takeFlash('old', '2026-01-01T00:00:10.000Z')).toBeNull();
    expect(await store.takeFlash('new', '2026-01-01T00:02:10.000Z')).not.toBeNull();
  });

  test('error events are listed newest first, with their total', async () => {
    const store = await fresh();
    const base = { source: 'frontend', stack: null, context: null, url: null, userAgent: null, sessionId: null };
    await store.addErrorEvent({
      ...base,
      id: '1',
      severity: 'low',
      message: 'a',
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    await store.addErrorEvent({
      ...base,
      id: '2',
      severity: 'high',
      message: 'b',
      context: '{"x":1}',
      createdAt: '2026-01-02T00:00:00.000Z',
    });
    const page = await store.errorEvents(1, 0);
    expect(page.total).toBe(2);
    expect(page.events).toEqual([expect.objectContaining({ id: '2', context: '{"x":1}', severity: 'high' })]);
    expect((await store.errorEvents(10, 1)).events.map((e) => e.id)).toEqual(['1']);
  });

  test('rule sets: owned, listed per owner or for all, changed and deleted only by their owner', async () => {
    const store = await fresh();
    const a = await store.createUser({ email: 'a@example.org', role: 'user', tier: 'free', password });
    const b = await store.createUser({ email: 'b@example.org', role: 'user', tier: 'free', password });
    const at = '2026-01-01T00:00:00.000Z';
    const made = await store.createRuleSet({
      id: 'r1',
      ownerId: a.id,
      name: 'mine',
      description: null,
      rules: ['||ads.example^', '@@||ok.example^'],
      ruleCount: 2,
      createdAt: at,
      updatedAt: at,
    });
    expect(await store.ruleSet('r1')).toEqual(made);
    expect((await store.ruleSets(a.id, 10, 0)).total).toBe(1);
    expect((await store.ruleSets(b.id, 10, 0)).ruleSets).toEqual([]);
    expect((await store.ruleSets(null, 10, 0)).ruleSets[0]).not.toHaveProperty('rules');
    expect(await store.updateRuleSet('r1', b.id, { name: 'theirs' }, at)).toBeNull();
    expect(await store.deleteRuleSet('r1', b.id)).toBe(false);
    const changed = await store.updateRuleSet('r1', a.id, { rules: ['x'] }, '2026-01-02T00:00:00.000Z');
    expect(changed).toMatchObject({ name: 'mine', rules: ['x'], ruleCount: 1, updatedAt: '2026-01-02T00:00:00.000Z' });
    await store.deleteUser(a.id);
    expect(await store.ruleSet('r1')).toBeNull();
  });
});
