import type { EndpointOverride, Scope, Tier } from '../accounts.js';
import { toOverride, toTier } from '../rows.js';
import type { Db } from './db.js';

/** Tiers, scopes, endpoint overrides, roles and their assignments. */

export async function tiers(db: Db): Promise<Tier[]> {
  const rows = await db
    .selectFrom('tiers')
    .select(['tier_name', 'order_rank', 'rate_limit', 'features'])
    .where('is_active', '=', 1)
    .orderBy('order_rank')
    .execute();
  return rows.map(toTier);
}

export async function scopes(db: Db): Promise<Scope[]> {
  const rows = await db
    .selectFrom('scopes')
    .select(['scope_name', 'required_tier'])
    .where('is_active', '=', 1)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ name: r.scope_name, requiredTier: r.required_tier }));
}

export async function endpointOverrides(db: Db): Promise<EndpointOverride[]> {
  const rows = await db.selectFrom('endpoint_overrides').selectAll().where('is_active', '=', 1).orderBy('id').execute();
  return rows.map(toOverride);
}

/** The active roles, each with the permissions it carries. */
export async function roles(db: Db) {
  const rows = await db
    .selectFrom('roles')
    .select(['role_name', 'permissions'])
    .where('is_active', '=', 1)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ name: r.role_name, permissions: JSON.parse(r.permissions) as string[] }));
}

/** Assigns an admin role; assigning it again changes nothing. */
export async function assignRole(db: Db, userId: string, role: string, assignedBy: string, at: string): Promise<void> {
  await db
    .insertInto('role_assignments')
    .values({ identity_user_id: userId, role_name: role, assigned_by: assignedBy, assigned_at: at })
    .onConflict((oc) => oc.columns(['identity_user_id', 'role_name']).doNothing())
    .execute();
}

export async function rolesOf(db: Db, userId: string, at: string): Promise<string[]> {
  const rows = await db
    .selectFrom('role_assignments')
    .select('role_name')
    .where('identity_user_id', '=', userId)
    .where((e) => e.or([e('expires_at', 'is', null), e('expires_at', '>', at)]))
    .orderBy('id')
    .execute();
  return rows.map((r) => r.role_name);
}
