import { afterAll, describe, expect, test } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'libsql';
import { openStore } from '../../src/server/store/open.js';
import { MIGRATION_NAMES } from '../../src/server/store/migrations/index.js';
import { createApp } from '../../src/server/app.js';
import { hashPassword } from '../../src/server/auth/password.js';
import { sha256 } from '../../src/server/hash.js';
import { applied } from '../support/stores.js';

const root = mkdtempSync(join(tmpdir(), 'flc-sqlite-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const LEGACY = join(import.meta.dirname, '../fixtures/legacy-store');

describe('the SQLite store file', () => {
  test('is created 0600 in folders created 0700, in WAL mode', async () => {
    const file = join(root, 'a', 'b', 'flc.db');
    const store = await openStore(file);
    await store.recordDeployment({ version: '1', nodeVersion: 'v20', startedAt: 'x' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(root, 'a')).mode & 0o777).toBe(0o700);
    expect(statSync(join(root, 'a', 'b')).mode & 0o777).toBe(0o700);
    expect(existsSync(`${file}-wal`)).toBe(true);
    expect(statSync(`${file}-wal`).mode & 0o077).toBe(0);
    await store.close();
  });
});

describe('a store made by the previous release', () => {
  /**
   * Builds the store file as the previous release did: its five SQL migrations (kept verbatim in
   * test/fixtures/legacy-store), each in a transaction, recorded in `schema_migrations`; then an
   * administrator with a role, a session, an API key and usage, written as that release wrote them.
   */
  async function legacyStore(file: string, passwordHash: Awaited<ReturnType<typeof hashPassword>>) {
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE schema_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
    for (const name of readdirSync(LEGACY).sort()) {
      db.transaction(() => {
        db.exec(readFileSync(join(LEGACY, name), 'utf8'));
        db.prepare('INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)').run(
          Number(name.slice(0, 3)),
          name,
          '2026-01-01T00:00:00.000Z',
        );
      })();
    }
    const at = '2026-01-01T00:00:00.000Z';
    db.prepare(
      `INSERT INTO users (id, email, identifier_type, name, password_hash, password_salt, password_iterations,
         role, tier, created_at, updated_at) VALUES (?, ?, 'email', ?, ?, ?, ?, 'admin', 'admin', ?, ?)`,
    ).run('u1', 'old@example.org', 'Old', passwordHash.hash, passwordHash.salt, passwordHash.iterations, at, at);
    db.prepare(
      'INSERT INTO role_assignments (identity_user_id, role_name, assigned_by, assigned_at) ' +
        "VALUES ('u1', 'super-admin', 'flc user add', ?)",
    ).run(at);
    db.prepare('INSERT INTO sessions (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)').run(
      sha256('flcs_old-session'),
      'u1',
      at,
      '2099-01-01T00:00:00.000Z',
    );
    db.prepare(
      'INSERT INTO api_keys (id, user_id, name, prefix, key_hash, scopes, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ).run('k1', 'u1', 'ci', 'flc_old-key-', sha256('flc_old-key-text'), '["compile","rules","admin"]', at);
    db.prepare(
      'INSERT INTO usage_daily (user_id, day, route, count, first_seen, last_seen) ' +
        "VALUES ('u1', '2026-01-01', 'GET /api/keys', 7, ?, ?)",
    ).run(at, at);
    db.close();
  }

  test('upgrades in place: every user, key, session, role and count keeps working', async () => {
    const file = join(root, 'legacy', 'flc.db');
    mkdirSync(join(root, 'legacy'));
    // Few iterations keep the test fast; the stored count is what verification uses.
    const hashed = await hashPassword('old password', 1_000);
    await legacyStore(file, hashed);

    const store = await openStore(file);
    expect(await applied(store)).toEqual(MIGRATION_NAMES);
    const app = createApp({
      store,
      version: '1',
      now: () => Date.parse('2026-06-01T00:00:00Z'),
      startedAt: 0,
      makeReader: () => {
        throw new Error('unused');
      },
    });
    const call = async (method: string, path: string, token?: string, body?: unknown) => {
      const res = await app.request(path, {
        method,
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, json: await res.json() };
    };
    const signIn = await call('POST', '/api/auth/sign-in/email', undefined, {
      email: 'old@example.org',
      password: 'old password',
    });
    expect(signIn.status).toBe(200);
    expect(signIn.json.user).toMatchObject({ id: 'u1', name: 'Old', role: 'admin' });
    expect((await call('GET', '/api/auth/get-session', 'flcs_old-session')).json.user).toMatchObject({ id: 'u1' });
    expect((await call('GET', '/api/keys', 'flc_old-key-text')).json.keys).toMatchObject([{ id: 'k1' }]);
    // The role still grants its permissions: an admin route that needs users:manage answers.
    expect((await call('GET', '/api/admin/users/u1', 'flc_old-key-text')).status).toBe(200);
    expect((await store.usage('u1', '2026-01-01'))[0]).toMatchObject({ route: 'GET /api/keys', count: 7 });
    await store.close();

    // Opening it again applies nothing more and keeps everything.
    const again = await openStore(file);
    expect(await applied(again)).toEqual(MIGRATION_NAMES);
    expect((await again.userByEmail('old@example.org'))?.id).toBe('u1');
    await again.close();
  });
});
