import { createApp } from '../../src/server/app.js';
import type { AppDeps } from '../../src/server/deps.js';
import { SqliteStore } from '../../src/server/store/sqlite-store.js';
import { startSession } from '../../src/server/auth/sessions.js';

/**
 * An in-process app with a signed-in caller whose tier has no rate limit, for tests of what
 * the routes do (the access tests check who may call them). `request` sends the caller's
 * token unless the headers carry another `authorization`.
 */
export function testApp(deps: Partial<AppDeps> = {}, log?: (message: string) => void) {
  const store = deps.store ?? new SqliteStore(':memory:');
  const now = deps.now ?? (() => Date.parse('2026-01-01T00:00:00Z'));
  const app = createApp(
    { version: '1', startedAt: now(), makeReader: () => { throw new Error('no reader in this test'); }, ...deps, store, now },
    log,
  );
  const user = store.createUser({ email: 'tester@example.org', role: 'user', tier: 'admin', password: { hash: 'x', salt: 'x', iterations: 1 } });
  const token = startSession(store, user, now()).token;
  const request = (path: string, init: RequestInit = {}) =>
    app.request(path, { ...init, headers: { authorization: `Bearer ${token}`, ...(init.headers as Record<string, string> | undefined) } });
  return { app, store, user, token, request };
}
