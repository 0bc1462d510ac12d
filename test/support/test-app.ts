import { createApp } from '../../src/server/app.js';
import type { AppDeps } from '../../src/server/deps.js';
import { openStore } from '../../src/server/store/open.js';
import { startSession } from '../../src/server/auth/sessions.js';

/**
 * An in-process app with a signed-in caller whose tier has no rate limit, for tests of what
 * the routes do (the access tests check who may call them). `request` sends the caller's
 * token unless the headers carry another `authorization` (`anonymous` sends none); it waits for the store to be ready
 * (`ready` gives the app, store, user and token).
 */
export function testApp(deps: Partial<AppDeps> = {}, log?: (message: string) => void) {
  const ready = (async () => {
    const store = deps.store ?? (await openStore(':memory:'));
    const now = deps.now ?? (() => Date.parse('2026-01-01T00:00:00Z'));
    const app = createApp(
      {
        version: '1',
        startedAt: now(),
        makeReader: () => {
          throw new Error('no reader in this test');
        },
        ...deps,
        store,
        now,
      },
      log,
    );
    const user = await store.createUser({
      email: 'tester@example.org',
      role: 'user',
      tier: 'admin',
      password: { hash: 'x', salt: 'x', iterations: 1 },
    });
    const token = (await startSession(store, user, now())).token;
    return { app, store, user, token };
  })();
  const request = async (path: string, init: RequestInit = {}) => {
    const { app, token } = await ready;
    return app.request(path, {
      ...init,
      headers: { authorization: `Bearer ${token}`, ...(init.headers as Record<string, string> | undefined) },
    });
  };
  /** The same app, called without credentials. */
  const anonymous = async (path: string, init?: RequestInit) => (await ready).app.request(path, init);
  return { request, anonymous, ready };
}
