import { afterAll, describe, expect, test } from 'vitest';
import { adminFixture } from './fixture.js';

/**
 * No grant above the grantor: each permission that grants permissions (roles:assign, roles:write,
 * users:manage, and config:write through an import) stays within the caller's own permissions.
 */

const f = await adminFixture();
afterAll(() => f.store.close());

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

async function holderOf(name: string, permissions: string[]) {
  await f.store.createConfigRow('roles', { role_name: name, display_name: name, description: '', permissions }, f.at());
  const user = await f.make(`${name}@example.org`, 'admin', 'admin', [name]);
  return { user, token: await f.session(user) };
}

const assigner = await holderOf('assigner', ['roles:assign', 'admin:read']);
const writer = await holderOf('writer', ['roles:write', 'admin:read']);
const manager = await holderOf('manager', ['users:manage', 'users:read']);
const permissionsOf = async (token: string) =>
  ((await (await f.call('GET', '/admin/system/my-context', token)).json()) as { context: { permissions: string[] } })
    .context.permissions;

describe('roles:assign', () => {
  test('cannot assign super-admin to itself, nor any role to itself', async () => {
    const res = await f.call('POST', '/admin/system/roles/assign', assigner.token, {
      identity_user_id: assigner.user.id,
      role_name: 'super-admin',
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/own roles/);
    expect(await permissionsOf(assigner.token)).toEqual(['admin:read', 'roles:assign']);
  });

  test('cannot assign a role above its own permissions to someone else', async () => {
    const res = await f.call('POST', '/admin/system/roles/assign', assigner.token, {
      identity_user_id: f.users.bare.id,
      role_name: 'editor',
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { detail: string }).detail).toMatch(
      /carries .*config:write.*which the caller does not hold/,
    );
    expect(await f.store.rolesOf(f.users.bare.id, f.at())).toEqual([]);
  });

  test('cannot revoke a role from an account above it; may assign and revoke within its own', async () => {
    const revoke = await f.call('DELETE', '/admin/system/roles/revoke', assigner.token, {
      identity_user_id: f.users.superAdmin.id,
      role_name: 'super-admin',
    });
    expect(revoke.status).toBe(403);
    expect(await f.store.rolesOf(f.users.superAdmin.id, f.at())).toEqual(['super-admin']);
    await f.store.createConfigRow(
      'roles',
      { role_name: 'reader', display_name: 'r', description: '', permissions: ['admin:read'] },
      f.at(),
    );
    const ok = await f.call('POST', '/admin/system/roles/assign', assigner.token, {
      identity_user_id: f.users.bare.id,
      role_name: 'reader',
    });
    expect(ok.status, await ok.text()).toBe(200);
    const back = await f.call('DELETE', '/admin/system/roles/revoke', assigner.token, {
      identity_user_id: f.users.bare.id,
      role_name: 'reader',
    });
    expect(back.status).toBe(200);
  });

  test('the super-admin assigns any role to others, not to itself', async () => {
    const own = await f.asSuper('POST', '/admin/system/roles/assign', {
      identity_user_id: f.users.superAdmin.id,
      role_name: 'viewer',
    });
    expect(own.status).toBe(403);
    const other = await f.asSuper('POST', '/admin/system/roles/assign', {
      identity_user_id: f.users.bare.id,
      role_name: 'editor',
    });
    expect(other.status).toBe(200);
    await f.asSuper('DELETE', '/admin/system/roles/revoke', { identity_user_id: f.users.bare.id, role_name: 'editor' });
  });
});

describe('roles:write', () => {
  test('cannot give a role it holds every permission', async () => {
    const [row] = await f.store.configRows('roles', { role_name: 'writer' });
    const res = await f.call('PATCH', `/admin/system/roles/${row.id}`, writer.token, { permissions: EVERY });
    expect(res.status).toBe(403);
    expect(await permissionsOf(writer.token)).toEqual(['admin:read', 'roles:write']);
  });

  test('cannot create a role above itself, nor change or deactivate one above it', async () => {
    const created = await f.call('POST', '/admin/system/roles', writer.token, {
      role_name: 'mine',
      display_name: 'Mine',
      permissions: ['users:manage'],
    });
    expect(created.status).toBe(403);
    const [sup] = await f.store.configRows('roles', { role_name: 'super-admin' });
    const off = await f.call('PATCH', `/admin/system/roles/${sup.id}`, writer.token, { is_active: false });
    expect(off.status).toBe(403);
    const within = await f.call('POST', '/admin/system/roles', writer.token, {
      role_name: 'within',
      display_name: 'Within',
      permissions: ['admin:read'],
    });
    expect(within.status).toBe(201);
  });

  test('cannot raise a role through a configuration import either', async () => {
    const both = await holderOf('bundler', ['roles:write', 'config:write', 'config:read', 'admin:read']);
    const bundle = (await (await f.call('GET', '/admin/system/config/export?format=json', both.token)).json()) as {
      roles: { role_name: string; permissions: string[] }[];
    };
    for (const r of bundle.roles) if (r.role_name === 'bundler') r.permissions = EVERY;
    const res = await f.call('POST', '/admin/system/config/import?format=json&dryRun=false', both.token, bundle);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/Nothing was applied: Role bundler carries/);
    expect(await permissionsOf(both.token)).toEqual(['admin:read', 'config:read', 'config:write', 'roles:write']);
  });
});

describe('snapshot revert', () => {
  test('does not delete, nor bring back, a role above the reverting caller', async () => {
    const reverter = await holderOf('reverter', ['roles:write', 'config:write', 'config:read', 'admin:read']);
    const done = await f.asSuper('POST', '/admin/system/config/import?format=json&dryRun=false', {
      roles: [{ role_name: 'top', display_name: 'Top', permissions: ['users:manage'] }],
    });
    expect(done.status).toBe(200);
    const { snapshotId } = (await done.json()) as { snapshotId: number };
    // Reverting to the snapshot before `top` existed deletes it: a role carrying users:manage.
    const res = await f.call('POST', `/admin/system/config/snapshots/${snapshotId}/revert`, reverter.token);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/Role top carries users:manage/);
    expect(await f.store.configRows('roles', { role_name: 'top' })).toHaveLength(1);
  });
});

describe('users:manage', () => {
  const actions: [string, (id: string) => [string, string, unknown?]][] = [
    [
      'reset password',
      (id) => ['POST', `/admin/local-users/${id}/reset-password`, { password: 'Another-long-pass-9' }],
    ],
    ['patch', (id) => ['PATCH', `/admin/local-users/${id}`, { role: 'user' }]],
    ['patch (api)', (id) => ['PATCH', `/api/admin/users/${id}`, { tier: 'free' }]],
    ['ban', (id) => ['POST', `/api/admin/users/${id}/ban`, {}]],
    ['delete', (id) => ['DELETE', `/api/admin/users/${id}`]],
    ['data-erase', (id) => ['POST', `/admin/system/users/${id}/data-erase`]],
  ];
  for (const [name, make] of actions)
    test(`${name} of the super-admin is refused, naming the reason`, async () => {
      const [method, path, body] = make(f.users.superAdmin.id);
      const res = await f.call(method, path, manager.token, body);
      expect(res.status, name).toBe(403);
      expect(((await res.json()) as { detail: string }).detail).toMatch(/holds .*which the caller does not/);
      const still = await f.store.userById(f.users.superAdmin.id);
      expect(still?.banned).toBe(false);
      expect(still?.role).toBe('admin');
      expect(await f.store.rolesOf(f.users.superAdmin.id, f.at())).toEqual(['super-admin']);
    });

  test('an account whose powerful role is switched off is still protected by that role', async () => {
    const oncall = await holderOf('oncall', [...EVERY]);
    const [role] = await f.store.configRows('roles', { role_name: 'oncall' });
    const off = await f.asSuper('PATCH', `/admin/system/roles/${role.id}`, { is_active: false });
    expect(off.status).toBe(200);
    const res = await f.call('POST', `/admin/local-users/${oncall.user.id}/reset-password`, manager.token, {
      password: 'Another-long-pass-9',
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/holds .*which the caller does not/);
  });

  test('a demoted administrator keeping a super-admin assignment is not promoted back by a lesser one', async () => {
    const dormant = await f.make('dormant@example.org', 'user', 'free', ['super-admin']);
    const res = await f.call('PATCH', `/admin/local-users/${dormant.id}`, manager.token, { role: 'admin' });
    expect(res.status).toBe(403);
  });

  test('acting on an account within its own permissions still works', async () => {
    const res = await f.call('POST', `/api/admin/users/${f.users.free.id}/ban`, manager.token, {});
    expect(res.status).toBe(200);
    expect((await f.call('POST', `/api/admin/users/${f.users.free.id}/unban`, manager.token)).status).toBe(200);
  });

  test('the super-admin may act on a lesser administrator', async () => {
    const res = await f.asSuper('POST', `/api/admin/users/${f.users.editor.id}/ban`, {});
    expect(res.status).toBe(200);
    await f.asSuper('POST', `/api/admin/users/${f.users.editor.id}/unban`);
  });
});

describe('endpoint overrides: one check for the route and the import', () => {
  const importBundle = (endpoints: unknown[], dryRun = false) =>
    f.asSuper('POST', `/admin/system/config/import?format=json&dryRun=${dryRun}`, { endpoints });

  test.each([
    ['an administrators’ route', '/admin/system/roles/*'],
    ['a session-only route', '/api/auth/change-password'],
    ['no route at all', '/nowhere'],
  ])('an override of %s is refused by the route and by the import, applied or dry', async (_what, path) => {
    const direct = await f.asSuper('POST', '/admin/system/endpoints', { path_pattern: path, is_public: true });
    expect(direct.status).toBe(422);
    const detail = ((await direct.json()) as { detail: string }).detail;
    for (const dry of [true, false]) {
      const res = await importBundle([{ path_pattern: path, method: '*', is_public: true }], dry);
      expect(res.status).toBe(422);
      const body = (await res.json()) as { errors: { path: string; message: string }[] };
      expect(body.errors[0]).toMatchObject({ path: 'endpoints[0]' });
      expect(body.errors[0].message).toBe(detail);
    }
    const rows = await f.store.configRows('endpoints');
    expect(rows.some((r) => r.path_pattern === path)).toBe(false);
  });

  test('an override the route accepts is imported', async () => {
    const res = await importBundle([{ path_pattern: '/api/validate-rule', method: 'POST', required_tier: 'pro' }]);
    expect(res.status, await res.text()).toBe(200);
  });
});
