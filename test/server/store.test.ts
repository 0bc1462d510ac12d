import { afterAll, beforeEach, describe, expect, test } from 'vitest';
import { openStore } from '../../src/server/store/open.js';
import { MIGRATION_NAMES } from '../../src/server/store/migrations/index.js';
import { ConflictError } from '../../src/core/errors/index.js';
import type { Store } from '../../src/server/store/store.js';
import type { UsageEntry } from '../../src/server/store/accounts.js';
import { applied, ENGINES, freshStore } from '../support/stores.js';

const password = { hash: 'h', salt: 's', iterations: 1 };
const at = '2026-01-01T00:00:00.000Z';

/** The store's whole suite, once per engine: SQLite always, PostgreSQL where there is one (CI). */
describe.each(ENGINES)('$engine store', (engine) => {
  const open: Store[] = [];
  const fresh = async () => {
    const store = await freshStore(engine);
    open.push(store);
    return store;
  };
  const newUser = (store: Store, email: string, tier = 'free') =>
    store.createUser({ email, role: tier === 'admin' ? 'admin' : 'user', tier, password });
  beforeEach((ctx) => {
    if (engine.skip) ctx.skip(engine.skip);
  });
  afterAll(async () => {
    await Promise.all(open.map((s) => s.close()));
    engine.cleanup();
  });

  test('migrates once on open and keeps data across reopening', async () => {
    const location = await engine.location();
    const first = await openStore(location);
    expect(first.engine).toBe(engine.engine);
    expect(await applied(first)).toEqual(MIGRATION_NAMES);
    await first.recordDeployment({ version: '1.0.0', nodeVersion: 'v20', startedAt: '2026-01-01T00:00:00.000Z' });
    await first.close();
    const second = await openStore(location);
    open.push(second);
    await second.recordDeployment({ version: '1.1.0', nodeVersion: 'v20', startedAt: '2026-01-02T00:00:00.000Z' });
    expect(await applied(second)).toEqual(MIGRATION_NAMES);
    expect((await second.deployments(10)).map((d) => d.version)).toEqual(['1.1.0', '1.0.0']);
    expect(await second.deploymentStats()).toEqual({
      total: 2,
      versions: [
        {
          version: '1.1.0',
          count: 1,
          firstStartedAt: '2026-01-02T00:00:00.000Z',
          lastStartedAt: '2026-01-02T00:00:00.000Z',
        },
        {
          version: '1.0.0',
          count: 1,
          firstStartedAt: '2026-01-01T00:00:00.000Z',
          lastStartedAt: '2026-01-01T00:00:00.000Z',
        },
      ],
    });
    expect(Object.keys((await second.deployments(1))[0])).toEqual(['id', 'version', 'nodeVersion', 'startedAt']);
  });

  test('two stores opening one new location together migrate it once', async () => {
    const location = await engine.location();
    const both = await Promise.all([openStore(location), openStore(location)]);
    open.push(...both);
    for (const store of both) expect(await applied(store)).toEqual(MIGRATION_NAMES);
    expect((await both[1].tiers()).map((t) => t.name)).toEqual(['anonymous', 'free', 'pro', 'admin']);
  });

  test('tiers, scopes and roles are seeded as the specification describes', async () => {
    const store = await fresh();
    expect((await store.tiers()).map((t) => [t.name, t.orderRank, t.rateLimit])).toEqual([
      ['anonymous', 0, 10],
      ['free', 1, 60],
      ['pro', 2, 300],
      ['admin', 3, 0],
    ]);
    expect((await store.scopes()).map((s) => [s.name, s.requiredTier])).toEqual([
      ['compile', 'free'],
      ['rules', 'free'],
      ['admin', 'admin'],
    ]);
    const roles = Object.fromEntries((await store.roles()).map((r) => [r.name, r.permissions]));
    expect(Object.keys(roles)).toEqual(['viewer', 'editor', 'super-admin']);
    expect(roles.viewer).toEqual([
      'admin:read',
      'audit:read',
      'metrics:read',
      'config:read',
      'users:read',
      'flags:read',
    ]);
    expect(roles['super-admin']).toEqual(expect.arrayContaining(['roles:assign', 'users:manage', 'admin:write']));
  });

  test('users: create, find, page, change, ban, delete', async () => {
    const store = await fresh();
    const a = await newUser(store, 'a@example.org');
    const b = await store.createUser({
      email: '+15551234567',
      identifierType: 'phone',
      name: 'B',
      role: 'admin',
      tier: 'admin',
      password,
    });
    expect(a).toMatchObject({ email: 'a@example.org', identifierType: 'email', banned: false, apiDisabled: false });
    expect(b).toMatchObject({ identifierType: 'phone', name: 'B', role: 'admin' });
    expect((await store.userByEmail('a@example.org'))?.password).toEqual(password);
    expect(await store.userById(a.id)).toEqual(a);
    expect((await store.userWithPassword(a.id))?.password).toEqual(password);
    expect(await store.userById('nobody')).toBeNull();
    expect((await store.listUsers()).map((u) => u.id).sort()).toEqual([a.id, b.id].sort());
    const page = await store.usersPage(1, 1);
    expect(page.total).toBe(2);
    expect(page.users).toHaveLength(1);

    await store.createSession('s1', { userId: a.id, createdAt: at, expiresAt: '2027-01-01T00:00:00.000Z' });
    const before = store.accountGeneration();
    const banned = await store.updateUser(a.id, { banned: true, banReason: 'spam', tier: 'pro' }, at);
    expect(banned).toMatchObject({ banned: true, banReason: 'spam', tier: 'pro', updatedAt: at });
    expect(store.accountGeneration()).toBeGreaterThan(before);
    expect((await store.sessionsWithUsers(['s1'])).size).toBe(0);
    expect(await store.updateUser(a.id, { banned: false }, at)).toMatchObject({ banned: false, banReason: null });
    expect(await store.updateUser('nobody', { banned: true }, at)).toBeNull();
    expect(await store.removeUser('a@example.org')).toBe(true);
    expect(await store.removeUser('a@example.org')).toBe(false);
    expect(await store.deleteUser(b.id)).toBe(true);
    expect(await store.listUsers()).toEqual([]);
  });

  test('an email is taken once: a second account with it is a ConflictError, also when sign-ups race', async () => {
    const store = await fresh();
    await newUser(store, 'taken@example.org');
    await expect(newUser(store, 'taken@example.org')).rejects.toBeInstanceOf(ConflictError);
    const racing = await Promise.allSettled(Array.from({ length: 5 }, () => newUser(store, 'race@example.org')));
    expect(racing.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of racing.filter((r) => r.status === 'rejected'))
      expect((r as PromiseRejectedResult).reason).toBeInstanceOf(ConflictError);
    // The store goes on working after the refused writes.
    expect((await store.listUsers()).map((u) => u.email).sort()).toEqual(['race@example.org', 'taken@example.org']);
  });

  test('sessions: one with its user, ended one by one, all at once, or all but one by a new password', async () => {
    const store = await fresh();
    const u = await newUser(store, 's@example.org');
    for (const t of ['t1', 't2', 't3'])
      await store.createSession(t, { userId: u.id, createdAt: at, expiresAt: '2027-01-01T00:00:00.000Z' });
    const found = await store.sessionsWithUsers(['t1', 't2', 'unknown']);
    expect([...found.keys()].sort()).toEqual(['t1', 't2']);
    expect(found.get('t1')).toEqual({
      session: { userId: u.id, createdAt: at, expiresAt: '2027-01-01T00:00:00.000Z' },
      user: u,
    });
    await store.deleteSession('t1');
    expect((await store.sessionsWithUsers(['t1'])).size).toBe(0);
    const next = { hash: 'h2', salt: 's2', iterations: 2 };
    expect(await store.setPassword(u.id, next, 't2', '2026-02-01T00:00:00.000Z')).toBe(1);
    expect((await store.userByEmail('s@example.org'))?.password).toEqual(next);
    expect([...(await store.sessionsWithUsers(['t2', 't3'])).keys()]).toEqual(['t2']);
    expect(await store.setPassword('nobody', next, null, at)).toBeNull();
    expect(await store.deleteSessions(u.id)).toBe(1);
    expect((await store.sessionsWithUsers(['t2'])).size).toBe(0);
  });

  test('API keys: created, listed, found with their owner, touched, revoked once', async () => {
    const store = await fresh();
    const u = await newUser(store, 'k@example.org');
    const other = await newUser(store, 'other@example.org');
    const key = await store.createApiKey(
      {
        id: 'k1',
        userId: u.id,
        name: 'ci',
        prefix: 'flc_abcdefgh',
        scopes: ['compile'],
        createdAt: at,
        expiresAt: null,
      },
      'hash1',
    );
    expect(key).toMatchObject({ id: 'k1', revokedAt: null, lastUsedAt: null });
    expect(await store.apiKeys(u.id)).toEqual([key]);
    expect(await store.apiKeysWithUsers(['hash1', 'nope'])).toEqual(new Map([['hash1', { key, user: u }]]));
    await store.touchApiKey('k1', '2026-01-02T00:00:00.000Z');
    expect((await store.apiKeysWithUsers(['hash1'])).get('hash1')?.key.lastUsedAt).toBe('2026-01-02T00:00:00.000Z');
    expect(await store.revokeApiKey(other.id, 'k1', at)).toBe(false);
    expect(await store.revokeApiKey(u.id, 'k1', at)).toBe(true);
    expect(await store.revokeApiKey(u.id, 'k1', at)).toBe(false);
    expect((await store.apiKeysWithUsers(['hash1'])).get('hash1')?.key.revokedAt).toBe(at);
    await expect(store.createApiKey({ ...key, id: 'k2' }, 'hash1')).rejects.toBeInstanceOf(ConflictError);
  });

  test('tiers and endpoint overrides change, and say so through the access generation', async () => {
    const store = await fresh();
    const before = store.accessGeneration();
    await store.updateConfigRow('tiers', { tier_name: 'free' }, { rate_limit: 10, features: { maxSources: 5 } }, at);
    expect((await store.tiers()).find((t) => t.name === 'free')).toEqual({
      name: 'free',
      orderRank: 1,
      rateLimit: 10,
      features: { maxSources: 5 },
    });
    expect(await store.updateConfigRow('tiers', { tier_name: 'nope' }, { rate_limit: 1 }, at)).toBeNull();
    await store.updateConfigRow('tiers', { tier_name: 'pro' }, { is_active: false }, at);
    expect((await store.tiers()).map((t) => t.name)).toEqual(['anonymous', 'free', 'admin']);
    const o = await store.createConfigRow(
      'endpoints',
      { path_pattern: '/api/x/*', method: '*', required_tier: 'free', required_scopes: ['rules'], is_public: false },
      at,
    );
    expect(await store.endpointOverrides()).toEqual([
      {
        id: o.id,
        pathPattern: '/api/x/*',
        method: '*',
        requiredTier: 'free',
        requiredScopes: ['rules'],
        isPublic: false,
      },
    ]);
    expect(store.accessGeneration()).toBeGreaterThanOrEqual(before + 3);
  });

  test('role assignments are idempotent, checked against the roles, and die with their user', async () => {
    const store = await fresh();
    const user = await newUser(store, 'r@example.org', 'admin');
    await store.assignRole(user.id, 'super-admin', 'test', at);
    await store.assignRole(user.id, 'super-admin', 'test', at);
    expect(await store.rolesOf(user.id, '2026-01-02T00:00:00Z')).toEqual(['super-admin']);
    await expect(store.assignRole(user.id, 'no-such-role', 'test', at)).rejects.toThrow();
    await store.removeUser('r@example.org');
    expect(await store.rolesOf(user.id, '2026-01-02T00:00:00Z')).toEqual([]);
  });

  test('usage: counts merge per user, day and route; deleted users are not counted', async () => {
    const store = await fresh();
    const u = await newUser(store, 'u@example.org');
    const e = (count: number, firstSeen: string, lastSeen: string): UsageEntry => ({
      userId: u.id,
      day: '2026-01-01',
      route: 'GET /api/version',
      count,
      firstSeen,
      lastSeen,
    });
    await store.addUsage([e(2, '2026-01-01T10:00:00Z', '2026-01-01T11:00:00Z')]);
    await store.addUsage([
      e(3, '2026-01-01T09:00:00Z', '2026-01-01T10:30:00Z'),
      { ...e(1, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'), userId: 'deleted-user' },
    ]);
    expect(await store.usage(u.id, '2026-01-01')).toEqual([e(5, '2026-01-01T09:00:00Z', '2026-01-01T11:00:00Z')]);
    expect(await store.usage(u.id, '2026-01-02')).toEqual([]);
    await store.deleteUser(u.id);
    expect(await store.usage(u.id, '2000-01-01')).toEqual([]);
  });

  test('a failed transaction is rolled back whole, and the store goes on working', async () => {
    const store = await fresh();
    const u = await newUser(store, 'tx@example.org');
    const good: UsageEntry = { userId: u.id, day: '2026-01-01', route: 'a', count: 1, firstSeen: at, lastSeen: at };
    // The second row breaks a NOT NULL constraint: the first, written in the same transaction, goes too.
    const broken = { ...good, route: 'b', count: null as unknown as number };
    await expect(store.addUsage([good, broken])).rejects.toThrow();
    expect(await store.usage(u.id, '2000-01-01')).toEqual([]);
    await store.addUsage([good]);
    expect(await store.usage(u.id, '2000-01-01')).toEqual([good]);
    expect(await store.updateUser(u.id, { tier: 'pro' }, at)).toMatchObject({ tier: 'pro' });
  });

  test('health checks and the smoke test', async () => {
    const store = await fresh();
    expect(await store.latestHealth()).toBeNull();
    await store.recordHealth({ status: 'ok', version: '1', checkedAt: 'a' });
    await store.recordHealth({ status: 'ok', version: '1', checkedAt: 'b' });
    expect(await store.latestHealth()).toEqual({ status: 'ok', version: '1', checkedAt: 'b' });
    await expect(store.smoke('2026-01-01T00:00:00.000Z')).resolves.toBeUndefined();
  });

  test('the description names the engine and never a password', async () => {
    const store = await fresh();
    expect(store.description).toMatch(engine.engine === 'sqlite' ? /^SQLite \/.*flc\.db$/ : /^PostgreSQL postgres:/);
  });
});
