import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { type ServeProcess, startServe } from '../../support/serve-process.js';
import { call, PASSWORD, rootAndEditor } from '../../support/serve-accounts.js';

/**
 * The threat review's "no grant above the grantor", against a real `flc serve`: an administrator
 * holding only roles:assign, only roles:write or only users:manage does not reach super-admin.
 */

const dir = mkdtempSync(join(tmpdir(), 'flc-grantor-attack-'));
const db = join(dir, 'flc.db');
let server: ServeProcess;
let root: string;
let rootId: string;
const holders: Record<string, { id: string; token: string }> = {};

beforeAll(async () => {
  server = await startServe(['--db', db]);
  ({ root, rootId } = await rootAndEditor(server, db));
  for (const perm of ['roles:assign', 'roles:write', 'users:manage']) {
    const name = perm.replace(':', '-');
    const role = await call(server.url, 'POST', '/admin/system/roles', root, {
      role_name: name,
      display_name: name,
      permissions: [perm],
    });
    expect(role.status, role.text).toBe(201);
    const email = `${name}@example.org`;
    const up = await call(server.url, 'POST', '/api/auth/sign-up/email', undefined, { email, password: PASSWORD });
    expect(up.status, up.text).toBe(200);
    const id = up.json.user.id as string;
    expect((await call(server.url, 'PATCH', `/api/admin/users/${id}`, root, { role: 'admin' })).status).toBe(200);
    const given = await call(server.url, 'POST', '/admin/system/roles/assign', root, {
      identity_user_id: id,
      role_name: name,
    });
    expect(given.status, given.text).toBe(200);
    holders[perm] = { id, token: up.json.token as string };
  }
}, 60_000);
afterAll(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

const permissionsOf = async (token: string) =>
  (await call(server.url, 'GET', '/admin/system/my-permissions', token)).json.permissions as string[];

describe('no grant above the grantor', () => {
  test('roles:assign alone cannot assign itself super-admin', async () => {
    const { id, token } = holders['roles:assign'];
    const res = await call(server.url, 'POST', '/admin/system/roles/assign', token, {
      identity_user_id: id,
      role_name: 'super-admin',
    });
    expect(res.status, res.text).toBe(403);
    expect(await permissionsOf(token)).toEqual(['roles:assign']);
  });

  test('roles:write alone cannot give its own role every permission', async () => {
    const { token } = holders['roles:write'];
    const roles = (await call(server.url, 'GET', '/admin/system/roles', root)).json.roles as {
      id: number;
      role_name: string;
      permissions: string[];
    }[];
    const mine = roles.find((r) => r.role_name === 'roles-write');
    const every = roles.find((r) => r.role_name === 'super-admin')?.permissions;
    const res = await call(server.url, 'PATCH', `/admin/system/roles/${mine?.id}`, token, { permissions: every });
    expect(res.status, res.text).toBe(403);
    expect(await permissionsOf(token)).toEqual(['roles:write']);
  });

  test('users:manage alone cannot reset the super-admin password and sign in as it', async () => {
    const { token } = holders['users:manage'];
    const res = await call(server.url, 'POST', `/admin/local-users/${rootId}/reset-password`, token, {
      password: 'attacker chosen password 9',
    });
    expect(res.status, res.text).toBe(403);
    expect(res.json.detail).toMatch(/root@example.org holds .*which the caller does not/);
    const signIn = await call(server.url, 'POST', '/api/auth/sign-in/email', undefined, {
      email: 'root@example.org',
      password: 'attacker chosen password 9',
    });
    expect(signIn.status).not.toBe(200);
    for (const [method, path] of [
      ['POST', `/api/admin/users/${rootId}/ban`],
      ['DELETE', `/api/admin/users/${rootId}`],
      ['POST', `/admin/system/users/${rootId}/data-erase`],
    ] as const)
      expect((await call(server.url, method, path, token, method === 'POST' ? {} : undefined)).status, path).toBe(403);
    expect(await permissionsOf(root)).toHaveLength(12);
  });
});
