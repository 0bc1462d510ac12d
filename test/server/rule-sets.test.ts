import { describe, expect, test } from 'vitest';
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import { createApp } from '../../src/server/app.js';
import type { AppRouter } from '../../src/server/trpc/router.js';
import { openStore } from '../../src/server/store/open.js';
import { startSession } from '../../src/server/auth/sessions.js';
import { issueApiKey } from '../../src/server/auth/identity.js';
import { memoryReader } from '../support/memory-reader.js';
import { RULE_SET_LIMITS } from '../../src/server/rule-sets/rule-sets.js';

const now = Date.parse('2026-05-01T00:00:00Z');
const LIST = 'https://lists.example/extra.txt';
const RULES = ['||ads.example^', '||ads.example^', '! a comment', 'sub.ads.example', '@@||good.example^'];
const store = await openStore(':memory:');
for (const tier of ['free', 'admin'])
  await store.updateConfigRow('tiers', { tier_name: tier }, { rate_limit: 0 }, new Date(now).toISOString());
const SLOW = 'https://lists.example/slow.txt';
const INCLUDING = 'https://lists.example/including.txt';
/** Holds every read of SLOW until `release()`, so that two compiles of it overlap. */
let release = () => {};
let held = Promise.resolve();
const hold = () => {
  held = new Promise<void>((r) => {
    release = r;
  });
};
const app = createApp({
  store,
  version: '1',
  now: () => now,
  startedAt: now,
  makeReader: () => {
    const reader = memoryReader({
      [LIST]: RULES.join('\n'),
      'https://lists.example/other.txt': '||other.example^',
      [SLOW]: '||ads.example^\n||kept.example^',
      [INCLUDING]: `||public.example^\n!#include flc-ruleset:${id}`,
    });
    return {
      ...reader,
      read: async (location: string) => {
        if (location === SLOW) await held;
        return reader.read(location);
      },
      close: async () => undefined,
    };
  },
});
const password = { hash: 'h', salt: 's', iterations: 1 };
const alice = await store.createUser({ email: 'alice@example.org', role: 'user', tier: 'free', password });
const bob = await store.createUser({ email: 'bob@example.org', role: 'user', tier: 'free', password });
const admin = await store.createUser({ email: 'root@example.org', role: 'admin', tier: 'admin', password });
await store.assignRole(admin.id, 'viewer', 'test', new Date(now).toISOString());
// Role and tier `admin` without a live assignment granting users:read: no role, an expired one, a role without it.
const bare = await store.createUser({ email: 'bare@example.org', role: 'admin', tier: 'admin', password });
const expired = await store.createUser({ email: 'expired@example.org', role: 'admin', tier: 'admin', password });
await store.assign({
  identity_user_id: expired.id,
  role_name: 'viewer',
  assigned_by: 'test',
  assigned_at: new Date(now - 2 * 86_400_000).toISOString(),
  expires_at: new Date(now - 86_400_000).toISOString(),
});
await store.createConfigRow(
  'roles',
  { role_name: 'flagger', display_name: 'Flags', description: '', permissions: ['flags:read'] },
  new Date(now).toISOString(),
);
const flagger = await store.createUser({ email: 'flagger@example.org', role: 'admin', tier: 'admin', password });
await store.assignRole(flagger.id, 'flagger', 'test', new Date(now).toISOString());
const UNGRANTED = await Promise.all(
  [bare, expired, flagger].map(async (u) => (await startSession(store, u, now)).token),
);
const A = (await startSession(store, alice, now)).token;
const B = (await startSession(store, bob, now)).token;
const ADMIN = (await startSession(store, admin, now)).token;
const aliceKey = (await issueApiKey(store, alice, { name: 'rules', scopes: ['rules', 'compile'] }, now)).text;
const aliceCompileOnly = (await issueApiKey(store, alice, { name: 'c', scopes: ['compile'] }, now)).text;
const bobKey = (await issueApiKey(store, bob, { name: 'rules', scopes: ['rules', 'compile'] }, now)).text;

const call = (method: string, path: string, bearer: string, body?: unknown) =>
  app.request(path, {
    method,
    headers: {
      authorization: `Bearer ${bearer}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });

const created = await (
  await call('POST', '/api/rules', A, { name: 'my ads', description: 'mine', rules: RULES })
).json();
const id: string = created.ruleSet.id;

describe('saved rule sets: owner isolation', () => {
  test('creating answers 201 with the rule set, owned by the caller', () => {
    expect(created).toMatchObject({
      success: true,
      ruleSet: { ownerId: alice.id, name: 'my ads', rules: RULES, ruleCount: 5 },
    });
  });

  test.each([
    ['the owner by session', A, 200],
    ['the owner by API key', aliceKey, 200],
    ["the owner's key without the rules scope", aliceCompileOnly, 403],
    ['another user', B, 404],
    ["another user's key", bobKey, 404],
    ['an administrator with users:read', ADMIN, 200],
    ['an administrator with no role', UNGRANTED[0], 404],
    ['an administrator whose role expired', UNGRANTED[1], 404],
    ['an administrator whose role lacks users:read', UNGRANTED[2], 404],
  ])('GET /api/rules/:id by %s -> %i', async (_who, bearer, status) => {
    const res = await call('GET', `/api/rules/${id}`, bearer);
    expect(res.status).toBe(status);
    if (status === 200) expect((await res.json()).ruleSet.rules).toEqual(RULES);
  });

  test('another user gets the same 404 as for an unknown id', async () => {
    const theirs = await (await call('GET', `/api/rules/${id}`, B)).json();
    const unknown = await (await call('GET', '/api/rules/no-such-id', B)).json();
    expect(theirs.detail).toBe(unknown.detail);
  });

  test("lists show only the caller's own; all=true is for administrators", async () => {
    expect((await (await call('GET', '/api/rules', A)).json()).ruleSets.map((r: { id: string }) => r.id)).toEqual([id]);
    expect((await (await call('GET', '/api/rules', aliceKey)).json()).total).toBe(1);
    expect(await (await call('GET', '/api/rules', B)).json()).toMatchObject({ ruleSets: [], total: 0 });
    expect((await call('GET', '/api/rules?all=true', B)).status).toBe(403);
    const all = await (await call('GET', '/api/rules?all=true', ADMIN)).json();
    expect(all.ruleSets.map((r: { ownerId: string }) => r.ownerId)).toContain(alice.id);
    expect(all.ruleSets[0]).not.toHaveProperty('rules');
    for (const token of UNGRANTED) {
      const refused = await call('GET', '/api/rules?all=true', token);
      expect(refused.status).toBe(403);
      expect((await refused.json()).detail).toMatch(/needs an administrator with users:read/);
    }
  });

  test("the admin manifest names the permission that reads others' rule sets", async () => {
    const manifest = await (await call('GET', '/api/admin', ADMIN)).json();
    expect(manifest.adminReads).toContainEqual(
      expect.objectContaining({ path: '/api/rules?all=true', permission: 'users:read' }),
    );
  });

  test('only the owner changes or deletes (another user and an administrator get 404)', async () => {
    for (const bearer of [B, bobKey, ADMIN]) {
      expect((await call('PATCH', `/api/rules/${id}`, bearer, { name: 'stolen' })).status).toBe(404);
      expect((await call('DELETE', `/api/rules/${id}`, bearer)).status).toBe(404);
    }
    const patched = await call('PATCH', `/api/rules/${id}`, aliceKey, { description: null });
    expect(await patched.json()).toMatchObject({ ruleSet: { name: 'my ads', description: null } });
    const extra = await (await call('POST', '/api/rules', A, { name: 'gone', rules: ['x'] })).json();
    expect((await call('DELETE', `/api/rules/${extra.ruleSet.id}`, A)).status).toBe(200);
    expect((await call('GET', `/api/rules/${extra.ruleSet.id}`, A)).status).toBe(404);
  });

  test('anonymous callers get 401', async () => {
    expect((await app.request('/api/rules')).status).toBe(401);
    expect((await app.request(`/api/rules/${id}`)).status).toBe(401);
  });
});

describe('saved rule sets: limits', () => {
  test.each([
    ['no name', { rules: [] }],
    ['a blank name', { name: '  ', rules: [] }],
    ['a name over 100', { name: 'n'.repeat(RULE_SET_LIMITS.name + 1), rules: [] }],
    ['a rule over 4096', { name: 'x', rules: ['r'.repeat(RULE_SET_LIMITS.rule + 1)] }],
    ['a rule with a line break', { name: 'x', rules: ['a\nb'] }],
    ['rules not strings', { name: 'x', rules: [1] }],
    ['over 50,000 rules', { name: 'x', rules: Array.from({ length: RULE_SET_LIMITS.rules + 1 }, () => 'a') }],
  ])('%s -> 422 problem', async (_name, body) => {
    const res = await call('POST', '/api/rules', A, body);
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
  });

  test('an empty patch is 422, a body over 1 MiB 413', async () => {
    expect((await call('PATCH', `/api/rules/${id}`, A, {})).status).toBe(422);
    const big = await call('POST', '/api/rules', A, {
      name: 'x',
      rules: ['a'.repeat(4000)].concat(Array(300).fill('b'.repeat(4000))),
    });
    expect(big.status).toBe(413);
  });

  test(`at most ${RULE_SET_LIMITS.perUser} rule sets per user`, async () => {
    const carol = await store.createUser({ email: 'carol@example.org', role: 'user', tier: 'free', password });
    const C = (await startSession(store, carol, now)).token;
    for (let i = 0; i < RULE_SET_LIMITS.perUser; i += 1)
      expect((await call('POST', '/api/rules', C, { name: `s${i}`, rules: [] })).status).toBe(201);
    const over = await call('POST', '/api/rules', C, { name: 'one more', rules: [] });
    expect(over.status).toBe(422);
    expect((await over.json()).detail).toMatch(/At most 100/);
  });
});

describe('a configuration naming a saved rule set', () => {
  const config = (source: string) => ({
    name: 'saved',
    sources: [{ source, name: 'ads' }, { source: 'https://lists.example/other.txt' }],
    transformations: ['Deduplicate', 'RemoveComments'],
  });
  const compile = async (bearer: string, source: string) =>
    call('POST', '/api/compile', bearer, { configuration: config(source) });

  test('compiles to the same output as the configuration with the rules inline', async () => {
    const saved = await (await compile(A, `flc-ruleset:${id}`)).json();
    const inline = await (await compile(A, LIST)).json();
    expect(saved.success).toBe(true);
    expect(saved.rules.filter((l: string) => !l.startsWith('! Source:'))).toEqual(
      inline.rules.filter((l: string) => !l.startsWith('! Source:')),
    );
    expect(saved.ruleCount).toBe(inline.ruleCount);
    expect(saved.rules).toContain('||ads.example^');
  });

  test("another user's compile is refused (422), however the same configuration was cached before", async () => {
    for (const bearer of [B, bobKey]) {
      const res = await compile(bearer, `flc-ruleset:${id}`);
      expect(res.status).toBe(422);
      expect((await res.json()).error).toMatch(/flc-ruleset:.*no saved rule set of yours/);
    }
    expect((await compile(aliceKey, `flc-ruleset:${id}`)).status).toBe(200);
  });

  test("a rule set named in exclusions: another user's same compile at that moment is not shared", async () => {
    const configuration = {
      name: 'shared?',
      sources: [{ source: SLOW }],
      exclusions_sources: [`flc-ruleset:${id}`],
    };
    hold();
    const alices = call('POST', '/api/compile', A, { configuration });
    await new Promise((r) => setTimeout(r, 20));
    const bobs = call('POST', '/api/compile', B, { configuration });
    await new Promise((r) => setTimeout(r, 20));
    release();
    const [a, b] = await Promise.all([alices, bobs]);
    expect(a.status).toBe(200);
    expect((await a.json()).rules).not.toContain('||ads.example^');
    expect(b.status).toBe(422);
    expect(b.headers.get('x-request-deduplication')).toBeNull();
    expect((await b.json()).error).toMatch(/no saved rule set of yours/);
  });

  test("a list's include cannot reach a saved rule set: it leaves the list's origin", async () => {
    const res = await compile(A, INCLUDING);
    expect(res.status).toBe(422);
    expect((await res.json()).error).toMatch(/not on the same origin/);
  });
});

describe('tRPC rule-set procedures', () => {
  const client = (bearer: string) =>
    createTRPCClient<AppRouter>({
      links: [
        httpLink({
          url: 'http://flc.test/api/trpc',
          fetch: async (url, init) => app.request(String(url), init as RequestInit),
          headers: { authorization: `Bearer ${bearer}` },
        }),
      ],
    });

  test('create, get, list, update and delete with the REST access rules', async () => {
    const made = await client(A).rules.create.mutate({ name: 'via trpc', rules: ['||t.example^'] });
    expect(made).toMatchObject({ ownerId: alice.id, ruleCount: 1 });
    expect((await client(aliceKey).rules.get.mutate({ id: made.id })).rules).toEqual(['||t.example^']);
    const err = await client(B)
      .rules.get.mutate({ id: made.id })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TRPCClientError);
    expect((err as TRPCClientError<AppRouter>).data?.httpStatus).toBe(404);
    expect((await client(B).rules.list.mutate({})).total).toBe(0);
    expect((await client(A).rules.update.mutate({ id: made.id, patch: { name: 'renamed' } })).name).toBe('renamed');
    const bad = await client(A)
      .rules.create.mutate({ name: '', rules: [] })
      .catch((e: unknown) => e);
    expect((bad as TRPCClientError<AppRouter>).data?.httpStatus).toBe(400);
    expect(await client(A).rules.delete.mutate({ id: made.id })).toEqual({ id: made.id });
  });
});
