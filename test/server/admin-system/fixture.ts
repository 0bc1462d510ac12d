import { createApp } from '../../../src/server/app.js';
import { openStore } from '../../../src/server/store/open.js';
import { startSession } from '../../../src/server/auth/sessions.js';
import { issueApiKey } from '../../../src/server/auth/identity.js';
import type { User } from '../../../src/server/store/accounts.js';
import type { Store } from '../../../src/server/store/store.js';

const password = { hash: 'h', salt: 's', iterations: 1 };

/** An app on a fresh in-memory store with one caller of each kind the admin routes tell apart. */
export async function adminFixture(
  store?: Store,
  extra: Partial<Parameters<typeof createApp>[0]> = {},
  log?: (message: string) => void,
) {
  const s = store ?? (await openStore(':memory:'));
  const clock = { now: Date.parse('2026-07-01T00:00:00Z') };
  const app = createApp(
    {
      store: s,
      version: '1',
      now: () => clock.now,
      startedAt: clock.now,
      makeReader: () => {
        throw new Error('unused');
      },
      ...extra,
    },
    log,
  );
  const at = () => new Date(clock.now).toISOString();
  // Anonymous refusals count against the address, and every in-process request has the same one
  // ('unknown'): the matrix asks hundreds of refused questions, so the address limit is lifted here.
  await s.updateConfigRow('tiers', { tier_name: 'anonymous' }, { rate_limit: 0 }, at());
  const make = async (email: string, role: 'admin' | 'user', tier: string, roles: string[] = []) => {
    const user = await s.createUser({ email, role, tier, password });
    for (const r of roles) await s.assignRole(user.id, r, 'test', at());
    return user;
  };
  const session = async (u: User) => (await startSession(s, u, clock.now)).token;
  const key = async (u: User, scopes: string[]) => (await issueApiKey(s, u, { name: 'k', scopes }, clock.now)).text;
  const users = {
    free: await make('free@example.org', 'user', 'free'),
    pro: await make('pro@example.org', 'user', 'pro'),
    bare: await make('bare@example.org', 'admin', 'admin'),
    viewer: await make('viewer@example.org', 'admin', 'admin', ['viewer']),
    editor: await make('editor@example.org', 'admin', 'admin', ['editor']),
    superAdmin: await make('super@example.org', 'admin', 'admin', ['super-admin']),
  };
  const tokens: Record<string, string | undefined> = {
    anonymous: undefined,
    free: await session(users.free),
    pro: await session(users.pro),
    'admin with no role': await session(users.bare),
    viewer: await session(users.viewer),
    editor: await session(users.editor),
    'super-admin': await session(users.superAdmin),
    'key without admin scope': await key(users.superAdmin, ['compile']),
    'key with admin scope': await key(users.superAdmin, ['admin']),
  };
  const call = (method: string, path: string, bearer?: string, body?: unknown, headers: Record<string, string> = {}) =>
    app.request(path, {
      method,
      headers: {
        ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
  const asSuper = (method: string, path: string, body?: unknown) => call(method, path, tokens['super-admin'], body);
  return { store: s, app, clock, users, tokens, call, asSuper, make, session, key, at };
}
