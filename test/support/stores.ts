import { afterAll, beforeEach } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/server/store/open.js';
import type { Store } from '../../src/server/store/store.js';
import { freshPostgresUrl, POSTGRES_SKIP_REASON, POSTGRES_URL } from './postgres.js';

/** One engine of the store, for suites that run once per engine. */
export interface EngineUnderTest {
  engine: 'sqlite' | 'postgres';
  /** Why this engine's tests are skipped here (null: they run). */
  skip: string | null;
  /** A location for a new, empty store (a file in a temporary folder, or a fresh schema). */
  location(): Promise<string>;
  /** Removes what `location` made (the schemas go with the run's database). */
  cleanup(): void;
}

function sqlite(): EngineUnderTest {
  const dirs: string[] = [];
  return {
    engine: 'sqlite',
    skip: null,
    async location() {
      const dir = mkdtempSync(join(tmpdir(), 'flc-store-'));
      dirs.push(dir);
      return join(dir, 'nested', 'flc.db');
    },
    cleanup() {
      for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
    },
  };
}

function postgres(): EngineUnderTest {
  return {
    engine: 'postgres',
    skip: POSTGRES_URL ? null : POSTGRES_SKIP_REASON,
    location: freshPostgresUrl,
    cleanup() {},
  };
}

export const ENGINES: EngineUnderTest[] = [sqlite(), postgres()];

/** Opens a new, empty store on `engine`, closed by the returned `close`. */
export async function freshStore(engine: EngineUnderTest): Promise<Store> {
  return openStore(await engine.location());
}

/**
 * For a suite run once per engine: skips its tests where the engine is not here, closes every
 * store it made when it ends, and gives it the maker of fresh stores.
 */
export function storesFor(engine: EngineUnderTest): () => Promise<Store> {
  const open: Store[] = [];
  beforeEach((ctx) => {
    if (engine.skip) ctx.skip(engine.skip);
  });
  afterAll(async () => {
    await Promise.all(open.map((s) => s.close()));
    engine.cleanup();
  });
  return async () => {
    const store = await freshStore(engine);
    open.push(store);
    return store;
  };
}

/** The names of the migrations the store has applied, in order, as the admin storage view reads them. */
export async function applied(store: Store): Promise<string[]> {
  const page = await store.databaseAdmin().tablePage('kysely_migration', 1_000, 0);
  return (page?.rows ?? []).map((r) => String(r.name));
}
