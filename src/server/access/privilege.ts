import { PERMISSIONS } from '../routes/admin-system/permissions.js';
import type { Store } from '../store/store.js';
import type { User } from '../store/accounts.js';

/**
 * No grant above the grantor: the one check behind every route (and the configuration import and
 * snapshot revert) that grants permissions or acts on an account that holds them. A caller holding
 * every permission (super-admin, what `*` routes need) passes; anyone else may grant, take away
 * and act only within the permissions they hold themselves.
 */

/** Who grants: the caller's effective permissions, or `all` for the local store's operator (`flc config`). */
export type Grantor = ReadonlySet<string> | 'all';

export const holdsEvery = (g: Grantor): boolean => g === 'all' || PERMISSIONS.every((p) => g.has(p));

/** The permissions in `wanted` the grantor lacks (none when they hold every permission). */
export function lacking(g: Grantor, wanted: Iterable<string>): string[] {
  if (holdsEvery(g)) return [];
  const held = g as ReadonlySet<string>;
  return [...new Set(wanted)].filter((p) => !held.has(p)).sort();
}

/** A role row's permissions (the store and bundles keep them decoded; none when the row has no role). */
export const rolePermissions = (row: { permissions?: unknown }): string[] =>
  Array.isArray(row.permissions) ? row.permissions.map(String) : [];

/**
 * Why the grantor may not create, change, activate, remove, assign or revoke a role carrying
 * `permissions`, or null when they may.
 */
export function grantRefusal(g: Grantor, what: string, permissions: Iterable<string>): string | null {
  const missing = lacking(g, permissions);
  if (missing.length === 0) return null;
  return (
    `${what} carries ${missing.join(', ')}, which the caller does not hold: ` +
    'no one grants or takes away permissions above their own'
  );
}

/**
 * Every permission an account's live role assignments carry, whether or not the account is an
 * administrator now: a demoted administrator's assignments come back with the role `admin`, so
 * acting on the account (promoting it among others) acts on them too. A role switched off counts
 * as well: switched on again, it grants its permissions back to the account.
 */
export async function assignedPermissions(store: Store, userId: string, at: string): Promise<Set<string>> {
  const [roles, held] = await Promise.all([store.configRows('roles'), store.rolesOf(userId, at)]);
  const byName = new Map(roles.map((r) => [String(r.role_name), rolePermissions(r)]));
  const out = new Set<string>();
  for (const name of held) for (const p of byName.get(name) ?? []) out.add(p);
  return out;
}

/**
 * Why the caller may not act on account `target` (change its role, tier or API access, ban,
 * delete, reset its password, erase or change its role assignments), or null when they may: the
 * target must hold no permission the caller lacks.
 */
export async function actOnRefusal(
  store: Store,
  caller: Grantor,
  target: Pick<User, 'id' | 'email'>,
  at: string,
): Promise<string | null> {
  if (holdsEvery(caller)) return null;
  const missing = lacking(caller, await assignedPermissions(store, target.id, at));
  if (missing.length === 0) return null;
  return (
    `${target.email} holds ${missing.join(', ')}, which the caller does not: ` +
    'only an administrator holding every permission they hold may act on this account'
  );
}
