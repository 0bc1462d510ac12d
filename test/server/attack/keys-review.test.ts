import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import pg from 'pg';
import { openStore } from '../../../src/server/store/open.js';
import { issueApiKey } from '../../../src/server/auth/identity.js';
import { ForbiddenError } from '../../../src/core/errors/index.js';
import { freshPostgresUrl, POSTGRES_SKIP_REASON, POSTGRES_URL } from '../../support/postgres.js';
import { type ServeProcess, startServe } from '../../support/serve-process.js';
import { call, PASSWORD, rootAndEditor } from '../../support/serve-accounts.js';

/**
 * Keys made with a key cannot outlive it, even when the mint and the revocation race (one
 * transaction, the parent's row locked on PostgreSQL); an administrator's password reset ends
 * the user's sessions and revokes their keys.
 */

const dir = mkdtempSync(join(tmpdir(), 'flc-keys-review-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const password = { hash: 'h', salt: 's', iterations: 600_000 };

describe.each(['sqlite', 'postgres'])('%s: minting a key with a revoked key', (engine) => {
  test('is refused, and a revoked parent makes no child', async (ctx) => {
    if (engine === 'postgres' && !POSTGRES_URL) return ctx.skip(POSTGRES_SKIP_REASON);
    const location = engine === 'sqlite' ? join(dir, 'mint.db') : await freshPostgresUrl();
    const store = await openStore(location);
    try {
      const user = await store.createUser({ email: 'm@example.org', role: 'user', tier: 'free', password });
      const parent = await issueApiKey(store, user, { name: 'parent', scopes: ['keys', 'rules'] }, Date.now());
      expect(await store.revokeApiKey(user.id, parent.key.id, new Date().toISOString())).toBe(true);
      const minted = issueApiKey(
        store,
        user,
        { name: 'child', scopes: ['rules'], parentId: parent.key.id },
        Date.now(),
      );
      await expect(minted).rejects.toBeInstanceOf(ForbiddenError);
      expect((await store.apiKeys(user.id)).map((k) => k.name)).toEqual(['parent']);
    } finally {
      await store.close();
    }
  });
});

describe('PostgreSQL: a mint racing the revocation of its parent', () => {
  test('waits for the revocation and is refused; nothing unrevoked is left', async (ctx) => {
    if (!POSTGRES_URL) return ctx.skip(POSTGRES_SKIP_REASON);
    const url = await freshPostgresUrl();
    const store = await openStore(url);
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    try {
      const user = await store.createUser({ email: 'r@example.org', role: 'user', tier: 'free', password });
      const parent = await issueApiKey(store, user, { name: 'parent', scopes: ['keys', 'rules'] }, Date.now());
      // The revocation, as the store runs it, held open half-way: the parent and what it made so
      // far are revoked, not yet committed.
      await other.query('begin');
      await other.query('update api_keys set revoked_at = now()::text where id = $1', [parent.key.id]);
      await other.query(
        `with recursive made(id) as (select id from api_keys where parent_id = $1
          union select k.id from api_keys k join made on k.parent_id = made.id)
        update api_keys set revoked_at = now()::text where id in (select id from made) and revoked_at is null`,
        [parent.key.id],
      );
      let settled = false;
      const minted = issueApiKey(
        store,
        user,
        { name: 'child', scopes: ['rules'], parentId: parent.key.id },
        Date.now(),
      ).finally(() => {
        settled = true;
      });
      minted.catch(() => undefined);
      await new Promise((r) => setTimeout(r, 300));
      expect(settled).toBe(false);
      await other.query('commit');
      await expect(minted).rejects.toBeInstanceOf(ForbiddenError);
      const live = await other.query('select name from api_keys where revoked_at is null');
      expect(live.rows).toEqual([]);
    } finally {
      await other.end();
      await store.close();
    }
  });
});

describe("an administrator's password reset", () => {
  let server: ServeProcess;
  const db = join(dir, 'reset.db');
  beforeAll(async () => {
    server = await startServe(['--db', db]);
  }, 60_000);
  afterAll(() => server.stop());

  test("ends the user's sessions and revokes every key of theirs", async () => {
    const { root } = await rootAndEditor(server, db);
    const up = await call(server.url, 'POST', '/api/auth/sign-up/email', undefined, {
      email: 'victim@example.org',
      password: PASSWORD,
    });
    expect(up.status, up.text).toBe(200);
    const key = await call(server.url, 'POST', '/api/keys', up.json.token, { name: 'k', scopes: ['keys', 'rules'] });
    expect(key.status, key.text).toBe(201);
    const child = await call(server.url, 'POST', '/api/keys', key.json.key, { name: 'c', scopes: ['rules'] });
    expect(child.status, child.text).toBe(201);
    const me = (token: string) => call(server.url, 'GET', '/api/keys', token);
    expect((await me(key.json.key)).status).toBe(200);
    const reset = await call(server.url, 'POST', `/admin/local-users/${up.json.user.id}/reset-password`, root, {
      password: 'a new long password 2',
    });
    expect(reset.status, reset.text).toBe(200);
    for (const token of [up.json.token, key.json.key, child.json.key]) expect((await me(token)).status).toBe(401);
    const again = await call(server.url, 'POST', '/api/auth/sign-in/email', undefined, {
      email: 'victim@example.org',
      password: 'a new long password 2',
    });
    expect(again.status).toBe(200);
    const listed = await me(again.json.token);
    expect(listed.json.keys.map((k: { revokedAt: string | null }) => k.revokedAt !== null)).toEqual([true, true]);
  }, 60_000);
});
