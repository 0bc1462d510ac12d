import { describe, expect, test } from 'vitest';
import { ENGINES, storesFor } from '../support/stores.js';

const password = { hash: 'h', salt: 's', iterations: 1 };
const at = '2026-01-01T00:00:00.000Z';

/** The admin system's store methods, once per engine (the same suite style as store.test.ts). */
describe.each(ENGINES)('$engine admin store', (engine) => {
  const fresh = storesFor(engine);

  test('configuration rows: create, update, delete; a deleted role takes its assignments along', async () => {
    const store = await fresh();
    const generation = store.accessGeneration();
    const role = await store.createConfigRow(
      'roles',
      { role_name: 'ops', display_name: 'Ops', description: '', permissions: ['admin:read'] },
      at,
    );
    expect(role).toMatchObject({ role_name: 'ops', permissions: ['admin:read'], is_active: 1, created_at: at });
    expect(store.accessGeneration()).toBeGreaterThan(generation);
    const user = await store.createUser({ email: 'a@example.org', role: 'admin', tier: 'admin', password });
    await store.assign({
      identity_user_id: user.id,
      role_name: 'ops',
      assigned_by: 't',
      assigned_at: at,
      expires_at: null,
    });
    const changed = await store.updateConfigRow('roles', { id: role.id }, { permissions: ['audit:read'] }, at);
    expect(changed?.before.permissions).toEqual(['admin:read']);
    expect(changed?.after.permissions).toEqual(['audit:read']);
    expect(await store.updateConfigRow('roles', { id: 9999 }, { description: 'x' }, at)).toBeNull();
    expect(await store.deleteConfigRow('roles', { id: role.id })).toMatchObject({ role_name: 'ops' });
    expect(await store.assignments({ identity_user_id: user.id })).toEqual([]);
    const tier = await store.updateConfigRow('tiers', { tier_name: 'pro' }, { features: { b: 1, a: 2 } }, at);
    expect(tier?.after.features).toEqual({ a: 2, b: 1 });
  });

  test('assignments: re-assign updates, expiry is honoured at once, revoke', async () => {
    const store = await fresh();
    const user = await store.createUser({ email: 'b@example.org', role: 'admin', tier: 'admin', password });
    const a = { identity_user_id: user.id, role_name: 'viewer', assigned_by: 'x', assigned_at: at, expires_at: null };
    expect((await store.assign(a)).before).toBeNull();
    const again = await store.assign({ ...a, assigned_by: 'y', expires_at: '2026-01-02T00:00:00.000Z' });
    expect(again.before?.assigned_by).toBe('x');
    expect(again.after).toMatchObject({ assigned_by: 'y', expires_at: '2026-01-02T00:00:00.000Z' });
    expect(await store.rolesOf(user.id, '2026-01-01T23:59:59.999Z')).toEqual(['viewer']);
    expect(await store.rolesOf(user.id, '2026-01-02T00:00:00.000Z')).toEqual([]);
    expect(await store.revoke(user.id, 'viewer')).toMatchObject({ role_name: 'viewer' });
    expect(await store.revoke(user.id, 'viewer')).toBeNull();
  });

  test('the audit log: filters, newest first, pages with a total', async () => {
    const store = await fresh();
    for (let i = 0; i < 5; i++)
      await store.appendAudit({
        actor_id: i % 2 ? 'u1' : 'u2',
        actor_email: null,
        action: 'tier.update',
        resource_type: 'tier_config',
        resource_id: 'pro',
        old_values: null,
        new_values: JSON.stringify({ i }),
        ip_address: '127.0.0.1',
        user_agent: null,
        status: i === 4 ? 'denied' : 'success',
        metadata: null,
        created_at: `2026-01-0${i + 1}T00:00:00.000Z`,
      });
    const page = await store.audit({ actor_id: 'u2' }, 2, 0);
    expect(page.total).toBe(3);
    expect(page.logs.map((l) => l.new_values)).toEqual(['{"i":4}', '{"i":2}']);
    expect((await store.audit({ status: 'denied' }, 10, 0)).total).toBe(1);
    expect(
      (await store.audit({ since: '2026-01-02T00:00:00.000Z', until: '2026-01-03T00:00:00.000Z' }, 10, 0)).total,
    ).toBe(2);
    expect((await store.auditOfUser('u1', 1)).total).toBe(2);
  });

  test('feature flags: put, replace, delete', async () => {
    const store = await fresh();
    const flag = { key: 'f', enabled: false, variations: { on: true }, updated_at: at, updated_by: 'x' };
    await store.putFlag(flag);
    await store.putFlag({ ...flag, enabled: true });
    expect(await store.flag('f')).toEqual({ ...flag, enabled: true });
    expect(await store.flags()).toHaveLength(1);
    expect(await store.deleteFlag('f')).toBe(true);
    expect(await store.flag('f')).toBeNull();
  });

  test('a bundle applies after a snapshot; replace restores exactly; announcement ids are kept', async () => {
    const store = await fresh();
    const original = await store.configBundle();
    const edited = structuredClone(original);
    edited.tiers[0].rate_limit = 5;
    edited.announcements.push({
      id: 40,
      title: 'Hi',
      body: '',
      severity: 'info',
      active_from: null,
      active_until: null,
      is_active: 1,
      created_by: '',
    });
    edited.user_groups.push({ group_name: 'ops', display_name: 'Ops', description: '', is_active: 1 });
    const done = await store.applyBundle(edited, { by: 't', reason: 'import', replace: false, at });
    expect(done.applied.announcements).toMatchObject({ created: 1 });
    expect(done.applied.tiers).toMatchObject({ updated: 1 });
    expect(await store.configBundle()).toEqual(edited);
    // The next announcement made by a route gets a fresh id past the imported one.
    const next = await store.createConfigRow('announcements', { title: 'Next' }, at);
    expect(Number(next.id)).toBeGreaterThan(40);
    const back = await store.applyBundle((await store.snapshot(done.snapshotId))!.bundle, {
      by: 't',
      reason: `pre-revert:${done.snapshotId}`,
      replace: true,
      at,
    });
    expect(back.applied.announcements.deleted).toBe(2);
    expect(await store.configBundle()).toEqual(original);
    expect((await store.snapshots()).map((s) => s.reason)).toEqual([`pre-revert:${done.snapshotId}`, 'import']);
  });

  test('a bundle that fails half way writes nothing, not even its snapshot', async () => {
    const store = await fresh();
    const original = await store.configBundle();
    const broken = structuredClone(original);
    broken.tiers[0].rate_limit = 7;
    broken.scopes.push({ scope_name: 'x', display_name: 'X', description: '', required_tier: 'missing', is_active: 1 });
    await expect(store.applyBundle(broken, { by: 't', reason: 'import', replace: false, at })).rejects.toThrow();
    expect(await store.configBundle()).toEqual(original);
    expect(await store.snapshots()).toEqual([]);
  });

  test('erasure removes assignments and memberships in one go', async () => {
    const store = await fresh();
    const user = await store.createUser({ email: 'c@example.org', role: 'admin', tier: 'admin', password });
    await store.assignRole(user.id, 'viewer', 't', at);
    await store.createConfigRow('user_groups', { group_name: 'g', display_name: 'G' }, at);
    await store.addGroupMember('g', user.id, at);
    expect(await store.groupMemberships(user.id)).toEqual([{ group_name: 'g', added_at: at }]);
    expect(await store.eraseAdminData(user.id)).toEqual({ role_assignments: 1, group_memberships: 1 });
    expect(await store.eraseAdminData(user.id)).toEqual({ role_assignments: 0, group_memberships: 0 });
  });
});
