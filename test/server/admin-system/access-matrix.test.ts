import { afterAll, describe, expect, test } from 'vitest';
import { adminFixture } from './fixture.js';

const f = await adminFixture();
afterAll(() => f.store.close());

const READ = ['admin:read', 'audit:read', 'metrics:read', 'config:read', 'users:read', 'flags:read'];
const GRANTS: Record<string, readonly string[] | 'all' | 'none'> = {
  anonymous: 'none',
  free: 'none',
  pro: 'none',
  'admin with no role': [],
  viewer: READ,
  editor: [...READ, 'admin:write', 'config:write', 'flags:write'],
  'super-admin': 'all',
  'key without admin scope': 'none',
  'key with admin scope': 'all',
};

let n = 0;
const unique = () => `m${++n}`;
const target = f.users.free.id;

/** Every new route: method, path, body, the permission it needs (null: any administrator), its success status. */
const ROUTES: [method: string, path: () => string, body: (() => unknown) | null, perm: string | null, ok: number][] = [
  ['GET', () => '/admin/system/roles', null, 'admin:read', 200],
  [
    'POST',
    () => '/admin/system/roles',
    () => ({ role_name: unique(), display_name: 'X', permissions: ['admin:read'] }),
    'roles:write',
    201,
  ],
  ['PATCH', () => '/admin/system/roles/1', () => ({ description: 'Reads the admin system' }), 'roles:write', 200],
  ['GET', () => '/admin/system/roles/assignments', null, 'admin:read', 200],
  [
    'POST',
    () => '/admin/system/roles/assign',
    () => ({ identity_user_id: target, role_name: 'viewer' }),
    'roles:assign',
    200,
  ],
  [
    'DELETE',
    () => '/admin/system/roles/revoke',
    () => ({ identity_user_id: target, role_name: 'editor' }),
    'roles:assign',
    404,
  ],
  ['GET', () => '/admin/system/my-context', null, null, 200],
  ['GET', () => '/admin/system/my-permissions', null, null, 200],
  ['GET', () => '/admin/system/tiers', null, 'admin:read', 200],
  ['PUT', () => '/admin/system/tiers/pro', () => ({ description: 'Paying users' }), 'config:write', 200],
  ['DELETE', () => '/admin/system/tiers/nosuch', null, 'config:write', 404],
  ['GET', () => '/admin/system/scopes', null, 'admin:read', 200],
  ['PUT', () => '/admin/system/scopes/rules', () => ({ display_name: 'Rules' }), 'config:write', 200],
  ['DELETE', () => '/admin/system/scopes/nosuch', null, 'config:write', 404],
  ['GET', () => '/admin/system/endpoints', null, 'admin:read', 200],
  ['POST', () => '/admin/system/endpoints', () => ({ path_pattern: `/api/rules/${unique()}` }), 'config:write', 201],
  ['PUT', () => '/admin/system/endpoints/999', () => ({ is_public: false }), 'config:write', 404],
  ['DELETE', () => '/admin/system/endpoints/999', null, 'config:write', 404],
  ['GET', () => '/admin/system/audit', null, 'audit:read', 200],
  ['GET', () => '/admin/system/announcements', null, 'admin:read', 200],
  ['POST', () => '/admin/system/announcements', () => ({ title: unique() }), 'config:write', 201],
  ['PATCH', () => '/admin/system/announcements/999', () => ({ title: 'x' }), 'config:write', 404],
  ['DELETE', () => '/admin/system/announcements/999', null, 'config:write', 404],
  ['GET', () => '/admin/system/config/export', null, 'config:read', 200],
  ['POST', () => '/admin/system/config/import', () => ({}), 'config:write', 200],
  ['GET', () => '/admin/system/config/snapshots', null, 'config:read', 200],
  ['GET', () => '/admin/system/config/snapshots/999', null, 'config:read', 404],
  ['POST', () => '/admin/system/config/snapshots/999/revert', null, 'config:write', 404],
  ['GET', () => `/admin/system/users/${target}/data-export`, null, 'users:read', 200],
  ['POST', () => '/admin/system/users/nobody/data-erase', null, 'users:manage', 200],
  ['GET', () => '/admin/config/feature-flags', null, 'admin:read', 200],
  [
    'POST',
    () => '/admin/config/feature-flags',
    () => ({ key: unique(), default_variation: 'off', variations: { off: false, on: true } }),
    'flags:write',
    201,
  ],
  ['PATCH', () => '/admin/config/feature-flags/nosuch', () => ({ enabled: true }), 'flags:write', 404],
  ['DELETE', () => '/admin/config/feature-flags/nosuch', null, 'flags:write', 404],
];

/** The status a caller gets: the route's own answer when its permission is granted, else the gate's refusal. */
function expected(who: string, perm: string | null, ok: number): number {
  const grants = GRANTS[who];
  if (who === 'anonymous') return 401;
  if (grants === 'none') return 403;
  if (grants === 'all' || perm === null || grants.includes(perm)) return ok;
  return 403;
}

const CASES = ROUTES.flatMap(([method, path, body, perm, ok]) =>
  Object.keys(GRANTS).map((who) => [method, path, body, perm, ok, who] as const),
);

describe('access to every admin-system route', () => {
  test.each(CASES)('%s %s with %s', async (method, path, body, perm, ok, who) => {
    const before = await f.store.audit({ status: 'denied' }, 1, 0);
    const res = await f.call(method, path(), f.tokens[who], body ? body() : undefined);
    const want = expected(who, perm, ok);
    expect(res.status, `${method} ${path()} as ${who}`).toBe(want);
    const after = await f.store.audit({ status: 'denied' }, 1, 0);
    if (want === 401 || want === 403) {
      // Each refusal leaves exactly one `denied` row naming the route's action and the caller.
      expect(after.total).toBe(before.total + 1);
      expect(after.logs[0]?.action).toMatch(/^[a-z_]+\.[a-z_]+$/);
      if (who !== 'anonymous') expect(after.logs[0]?.actor_id).not.toBeNull();
    } else {
      expect(after.total).toBe(before.total);
    }
  });
});
