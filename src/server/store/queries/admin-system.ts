import { AUDIT_FIELD_CHARS, cut, cutJson } from '../log-bounds.js';
import type { Assignment, AuditEntry, AuditFilter, StoredFlag } from '../admin.js';
import { countOf, type Db } from './db.js';

/** Role assignments, the audit log, feature flags and group memberships. */

export async function assignments(db: Db, f: { identity_user_id?: string; role_name?: string }) {
  let q = db.selectFrom('role_assignments').selectAll();
  if (f.identity_user_id) q = q.where('identity_user_id', '=', f.identity_user_id);
  if (f.role_name) q = q.where('role_name', '=', f.role_name);
  return q.orderBy('id').execute();
}

export async function assign(db: Db, a: Omit<Assignment, 'id'>) {
  const [before] = await assignments(db, a);
  await db
    .insertInto('role_assignments')
    .values(a)
    .onConflict((oc) =>
      oc
        .columns(['identity_user_id', 'role_name'])
        .doUpdateSet({ assigned_by: a.assigned_by, assigned_at: a.assigned_at, expires_at: a.expires_at }),
    )
    .execute();
  const [after] = await assignments(db, a);
  return { before: before ?? null, after: after as Assignment };
}

export async function revoke(db: Db, userId: string, role: string) {
  const [before] = await assignments(db, { identity_user_id: userId, role_name: role });
  if (!before) return null;
  await db.deleteFrom('role_assignments').where('id', '=', before.id).execute();
  return before;
}

export async function appendAudit(db: Db, entry: AuditEntry): Promise<void> {
  const F = AUDIT_FIELD_CHARS;
  await db
    .insertInto('audit_log')
    .values({
      ...entry,
      actor_email: cut(entry.actor_email, F.actor_email),
      action: cut(entry.action, F.action) ?? '',
      resource_type: cut(entry.resource_type, F.resource_type) ?? '',
      resource_id: cut(entry.resource_id, F.resource_id),
      ip_address: cut(entry.ip_address, F.ip_address),
      user_agent: cut(entry.user_agent, F.user_agent),
      old_values: cutJson(entry.old_values),
      new_values: cutJson(entry.new_values),
      metadata: cutJson(entry.metadata),
    })
    .execute();
}

/** The audit log's two classes, bounded apart (log-bounds.ts): successful actions, and the rest. */
export type AuditClass = 'success' | 'refusal';

/** Deletes audit rows of `kind` made before `before`, and all of that class but the newest `keep`. */
export async function pruneAudit(db: Db, kind: AuditClass, before: string, keep: number): Promise<void> {
  const op = kind === 'success' ? '=' : '<>';
  await db.deleteFrom('audit_log').where('status', op, 'success').where('created_at', '<', before).execute();
  const last = await db
    .selectFrom('audit_log')
    .select('id')
    .where('status', op, 'success')
    .orderBy('id', 'desc')
    .offset(keep)
    .limit(1)
    .executeTakeFirst();
  if (last) await db.deleteFrom('audit_log').where('status', op, 'success').where('id', '<=', last.id).execute();
}

export async function audit(db: Db, f: AuditFilter, limit: number, offset: number) {
  let q = db.selectFrom('audit_log');
  for (const k of ['actor_id', 'action', 'resource_type', 'resource_id', 'status'] as const) {
    const v = f[k];
    if (v !== undefined) q = q.where(k, '=', v);
  }
  if (f.since) q = q.where('created_at', '>=', f.since);
  if (f.until) q = q.where('created_at', '<=', f.until);
  const logs = await q.selectAll().orderBy('id', 'desc').limit(limit).offset(offset).execute();
  return { logs, total: await countOf(q) };
}

export async function auditOfUser(db: Db, userId: string, limit: number) {
  const q = db.selectFrom('audit_log').where((e) => e.or([e('actor_id', '=', userId), e('resource_id', '=', userId)]));
  const logs = await q.selectAll().orderBy('id', 'desc').limit(limit).execute();
  return { logs, total: await countOf(q) };
}

const toFlag = (r: { flag_key: string; definition: string; updated_at: string; updated_by: string }): StoredFlag => ({
  ...(JSON.parse(r.definition) as Record<string, unknown>),
  key: r.flag_key,
  updated_at: r.updated_at,
  updated_by: r.updated_by,
});

export async function flags(db: Db): Promise<StoredFlag[]> {
  return (await db.selectFrom('feature_flags').selectAll().orderBy('flag_key').execute()).map(toFlag);
}

export async function flag(db: Db, key: string): Promise<StoredFlag | null> {
  const row = await db.selectFrom('feature_flags').selectAll().where('flag_key', '=', key).executeTakeFirst();
  return row ? toFlag(row) : null;
}

export async function putFlag(db: Db, f: StoredFlag): Promise<void> {
  const { key, updated_at, updated_by, ...definition } = f;
  const row = { flag_key: key, definition: JSON.stringify(definition), updated_at, updated_by };
  await db
    .insertInto('feature_flags')
    .values(row)
    .onConflict((oc) => oc.column('flag_key').doUpdateSet({ definition: row.definition, updated_at, updated_by }))
    .execute();
}

export async function deleteFlag(db: Db, key: string): Promise<boolean> {
  const res = await db.deleteFrom('feature_flags').where('flag_key', '=', key).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

export async function groupMemberships(db: Db, userId: string) {
  return db
    .selectFrom('user_group_members')
    .select(['group_name', 'added_at'])
    .where('identity_user_id', '=', userId)
    .orderBy('group_name')
    .execute();
}

export async function addGroupMember(db: Db, group: string, userId: string, at: string) {
  await db
    .insertInto('user_group_members')
    .values({ group_name: group, identity_user_id: userId, added_at: at })
    .onConflict((oc) => oc.columns(['group_name', 'identity_user_id']).doNothing())
    .execute();
}

export async function eraseAdminData(db: Db, userId: string) {
  const roles = await db.deleteFrom('role_assignments').where('identity_user_id', '=', userId).executeTakeFirst();
  const groups = await db.deleteFrom('user_group_members').where('identity_user_id', '=', userId).executeTakeFirst();
  return { role_assignments: Number(roles.numDeletedRows), group_memberships: Number(groups.numDeletedRows) };
}
