import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { type ServeProcess, startServe } from '../../support/serve-process.js';
import { call, rootAndEditor } from '../../support/serve-accounts.js';

/**
 * Issue 30, point 2, against a real `flc serve`: an editor (config:write, no roles:write) who
 * exports the bundle, grants its own role every permission and imports it (or reverts to a
 * snapshot that does) is refused with the section named, and nothing is applied.
 */

const dir = mkdtempSync(join(tmpdir(), 'flc-import-attack-'));
const db = join(dir, 'flc.db');
let server: ServeProcess;
let root: string;
let rootId: string;
let editor: string;
beforeAll(async () => {
  server = await startServe(['--db', db]);
  ({ root, rootId, editor } = await rootAndEditor(server, db));
}, 60_000);
afterAll(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

const EVERY = [
  'admin:read',
  'admin:write',
  'audit:read',
  'metrics:read',
  'config:read',
  'config:write',
  'users:read',
  'users:manage',
  'flags:read',
  'flags:write',
  'roles:write',
  'roles:assign',
];

async function exported(token: string) {
  const res = await call(server.url, 'GET', '/admin/system/config/export?format=json', token);
  expect(res.status, res.text).toBe(200);
  return res.json as {
    roles: { role_name: string; permissions: string[] }[];
    tiers: { tier_name: string; rate_limit: number }[];
  };
}

const importBundle = (token: string, bundle: unknown) =>
  call(server.url, 'POST', '/admin/system/config/import?format=json&dryRun=false', token, bundle);

describe('an editor cannot raise itself through a configuration bundle', () => {
  test('import: the roles section is refused by name; nothing is applied; the editor stays an editor', async () => {
    const bundle = await exported(editor);
    const editorRole = bundle.roles.find((r) => r.role_name === 'editor');
    expect(editorRole).toBeDefined();
    (editorRole as { permissions: string[] }).permissions = EVERY;
    // A change the editor may make rides along: it must not be applied either.
    bundle.tiers = bundle.tiers.map((t) => (t.tier_name === 'free' ? { ...t, rate_limit: 999 } : t));
    const res = await importBundle(editor, bundle);
    expect(res.status, res.text).toBe(403);
    expect(res.json.detail).toMatch(/roles \(needs roles:write\)/);
    expect(res.json.detail).toMatch(/Nothing was applied/);
    const after = await exported(root);
    expect(after.roles.find((r) => r.role_name === 'editor')?.permissions).not.toContain('roles:assign');
    expect(after.tiers.find((t) => t.tier_name === 'free')?.rate_limit).not.toBe(999);
    // Still an editor: the escalations of the attack stay refused.
    expect((await call(server.url, 'POST', `/api/admin/users/${rootId}/ban`, editor, { reason: 'x' })).status).toBe(
      403,
    );
    expect(
      (
        await call(server.url, 'POST', '/admin/system/roles/assign', editor, {
          identity_user_id: rootId,
          role_name: 'super-admin',
        })
      ).status,
    ).toBe(403);
  });

  test('import of what an editor may change still works', async () => {
    const bundle = await exported(editor);
    bundle.tiers = bundle.tiers.map((t) => (t.tier_name === 'pro' ? { ...t, rate_limit: 301 } : t));
    const res = await importBundle(editor, bundle);
    expect(res.status, res.text).toBe(200);
    expect((await exported(root)).tiers.find((t) => t.tier_name === 'pro')?.rate_limit).toBe(301);
  });

  test('revert: a snapshot whose roles differ is refused to the editor, allowed to the super-admin', async () => {
    // The super-admin changes the editor role's description by import: the snapshot taken before holds the old one.
    const bundle = await exported(root);
    const role = bundle.roles.find((r) => r.role_name === 'editor') as { description?: string };
    role.description = 'changed by root';
    const done = await importBundle(root, bundle);
    expect(done.status, done.text).toBe(200);
    const snapshotId = done.json.snapshotId as number;
    const refused = await call(server.url, 'POST', `/admin/system/config/snapshots/${snapshotId}/revert`, editor);
    expect(refused.status, refused.text).toBe(403);
    expect(refused.json.detail).toMatch(/roles \(needs roles:write\)/);
    const still = (await exported(root)).roles.find((r) => r.role_name === 'editor') as { description?: string };
    expect(still.description).toBe('changed by root');
    const reverted = await call(server.url, 'POST', `/admin/system/config/snapshots/${snapshotId}/revert`, root);
    expect(reverted.status, reverted.text).toBe(200);
  });
});
