import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { startServer, type RunningServer } from '../../src/server/start.js';
import { openStore } from '../../src/server/store/open.js';
import { startSession } from '../../src/server/auth/sessions.js';
import type { Store } from '../../src/server/store/store.js';

type ServeOptions = Parameters<typeof startServer>[0];

/** A real `flc serve` (its worker pool, a SQLite store in a folder of its own) started in this process. */
export interface InProcessFlc {
  url: string;
  /** The same database, opened beside the server's connection (for setup the API does not offer). */
  store: Store;
  /** A session token of a new user of `tier` (`free` by default). */
  signIn(email: string, tier?: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * Starts `flc serve` on a free loopback port with `options` over the defaults (private sources
 * refused, nothing logged). `unmetered`: the free tier's rate limit lifted, so that a test's own
 * page loads and calls count for nothing.
 */
export async function startInProcessFlc(
  options: Partial<ServeOptions> & { unmetered?: boolean } = {},
): Promise<InProcessFlc> {
  const { unmetered, ...serve } = options;
  const dir = mkdtempSync(join(tmpdir(), 'flc-in-process-'));
  const location = { engine: 'sqlite' as const, file: join(dir, 'flc.db') };
  const store = await openStore(location.file);
  if (unmetered)
    await store.updateConfigRow('tiers', { tier_name: 'free' }, { rate_limit: 0 }, new Date().toISOString());
  let server: RunningServer;
  try {
    server = await startServer({
      host: '127.0.0.1',
      port: 0,
      version: '0.0.1',
      allowPrivateSources: false,
      store: location,
      log: () => undefined,
      ...serve,
    });
  } catch (e) {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const password = { hash: 'h', salt: 's', iterations: 1 };
  return {
    url: server.url,
    store,
    async signIn(email, tier = 'free') {
      const user = await store.createUser({ email, role: 'user', tier, password });
      return (await startSession(store, user, Date.now())).token;
    },
    async close() {
      await server.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
