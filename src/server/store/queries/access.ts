import type { EndpointOverride, Role, Scope, Tier, TierPatch } from '../accounts.js';
import { toOverride, toTier } from '../rows.js';
import type { Db } from './db.js';

/** Tiers, scopes, endpoint overrides, roles and their assignments. */

const TIER_COLUMNS = ['tier_name', 'order_rank', 'rate_limit', 'features'] as const;

export async function tiers(db: Db): Promise<Tier[]> {
  const rows = await db
    .selectFrom('tiers')
    .select(TIER_COLUMNS)
    .where('is_active', '=', 1)
    .orderBy('order_rank')
    .execute();
  return rows.map(toTier);
}

/** Changes a tier (in the caller's transaction); null when there is none by that name. */
export async function updateTier(db: Db, name: string, patch: TierPatch, at: string): Promise<Tier | null> {
  const res = await db
    .updateTable('tiers')
    .set((e) => ({
      rate_limit: patch.rateLimit ?? e.ref('rate_limit'),
      features: patch.features ? JSON.stringify(patch.features) : e.ref('features'),
      is_active: patch.isActive === undefined ? e.ref('is_active') : patch.isActive ? 1 : 0,
      updated_at: at,
    }))
    .where('tier_name', '=', name)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) === 0) return null;
  return toTier(
    await db.selectFrom('tiers').select(TIER_COLUMNS).where('tier_name', '=', name).executeTakeFirstOrThrow(),
  );
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

export async function createEndpointOverride(db: Db, o: Omit<EndpointOverride, 'id'>): Promise<EndpointOverride> {
  const row = await db
    .insertInto('endpoint_overrides')
    .values({
      path_pattern: o.pathPattern,
      method: o.method,
      required_tier: o.requiredTier,
      required_scopes: o.requiredScopes === null ? null : JSON.stringify(o.requiredScopes),
      is_public: o.isPublic ? 1 : 0,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id: Number(row.id), ...o };
}

export async function roles(db: Db): Promise<Role[]> {
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
