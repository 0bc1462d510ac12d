import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppDeps } from '../../deps.js';
import { recordAudit } from '../../audit/trail.js';
import { adminRoute, audited, pathParam } from './route.js';
import { callerOf } from '../../access/gate.js';
import { actOnRefusal } from '../../access/privilege.js';
import { refuse } from '../../problem.js';

/** At most this many audit rows go into one export (newest first); `audit_log_truncated` says when more exist. */
export const DATA_EXPORT_AUDIT_CAP = 1_000;

const STORE = 'flc';
const NOTES =
  'Covers the admin system only (role assignments, group memberships, audit log). The account itself, ' +
  'its sessions, API keys and usage records are served by /admin/local-users and /api/admin/usage.';

/** Data-subject export and erasure of the admin system's records of a user. */
export function registerDataSubjectRoutes(app: OpenAPIHono, deps: AppDeps): void {
  const params = pathParam('userId');
  adminRoute(app, {
    method: 'get',
    path: '/admin/system/users/{userId}/data-export',
    ...audited('users:read', 'user.data_export', 'user'),
    summary: 'Everything the admin system holds about a user (read-only; audited)',
    params,
    handler: async (c, { params: { userId } }) => {
      const [assignments, groups, audit] = await Promise.all([
        deps.store.assignments({ identity_user_id: userId }),
        deps.store.groupMemberships(userId),
        deps.store.auditOfUser(userId, DATA_EXPORT_AUDIT_CAP),
      ]);
      const location = (table: string, record_count: number, description: string) => ({
        store: STORE,
        table,
        record_count,
        description,
      });
      const exported = {
        user_id: userId,
        exported_at: new Date(deps.now()).toISOString(),
        data_locations: [
          location('role_assignments', assignments.length, 'Admin roles given to the user'),
          location('user_group_members', groups.length, 'Groups the user belongs to'),
          location('audit_log', audit.total, 'Admin actions by or about the user'),
        ],
        role_assignments: assignments,
        group_memberships: groups,
        audit_log_entries: audit.logs,
        audit_log_truncated: audit.total > audit.logs.length,
        notes: NOTES,
      };
      await recordAudit(c, deps, { metadata: { audit_log_entries: audit.logs.length } });
      return c.json({ success: true, export: exported });
    },
  });
  adminRoute(app, {
    method: 'post',
    path: '/admin/system/users/{userId}/data-erase',
    ...audited('users:manage', 'user.data_erase', 'user'),
    summary: "Erase a user's role assignments and group memberships (the audit log is kept)",
    params,
    handler: async (c, { params: { userId } }) => {
      // Erasing removes role assignments: the caller's own, or those of an account above them, are not theirs to take.
      const caller = callerOf(c);
      if (caller.user?.id === userId) refuse(403, "No one erases their own account's admin records");
      const refusal = await actOnRefusal(
        deps.store,
        await caller.permissions(),
        (await deps.store.userById(userId)) ?? { id: userId, email: userId },
        new Date(deps.now()).toISOString(),
      );
      if (refusal) refuse(403, refusal);
      const deleted = await deps.store.eraseAdminData(userId);
      const audit = await deps.store.auditOfUser(userId, 0);
      const erasure = {
        user_id: userId,
        erased_at: new Date(deps.now()).toISOString(),
        deleted,
        retained: [
          {
            store: STORE,
            table: 'audit_log',
            record_count: audit.total,
            reason: 'The audit log is append-only: it records who changed what, and is kept whole',
          },
        ],
        notes: NOTES,
      };
      await recordAudit(c, deps, { oldValues: deleted });
      return c.json({ success: true, erasure });
    },
  });
}
