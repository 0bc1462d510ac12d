import { type OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppDeps } from '../../deps.js';
import { refuse } from '../../problem.js';
import { callerOf } from '../../access/gate.js';
import { recordAudit } from '../../audit/trail.js';
import { adminRoute, audited } from './route.js';
import { PERMISSIONS } from './permissions.js';
import { jsonText } from './json-columns.js';
import { registerSectionRoutes } from './section-routes.js';
import { actOnRefusal, grantRefusal, rolePermissions } from '../../access/privilege.js';

const permissions = jsonText(z.array(z.enum(PERMISSIONS)).min(1, 'a role needs at least one permission'));
const roleName = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'lowercase letters, digits, - and _ (at most 64)');
const who = z.object({ identity_user_id: z.string().min(1), role_name: roleName });
/** What `mayAssign` refuses with 403, as the assign and revoke routes document it. */
const notAssignable = "Not within the caller's own permissions, or the caller's own account";

/** Roles and role assignments (`/admin/system/roles…`). */
export function registerRoleRoutes(app: OpenAPIHono, deps: AppDeps): void {
  const at = () => new Date(deps.now()).toISOString();

  /**
   * Refuses assigning or revoking `role_name` for `identity_user_id`: 404 for a missing user or
   * role; 403 for the caller's own assignments, a role carrying a permission the caller lacks, or
   * an account holding one.
   */
  async function mayAssign(c: Context, body: z.infer<typeof who>, revoking = false): Promise<void> {
    const target = await deps.store.userById(body.identity_user_id);
    if (!target) refuse(404, `No user ${body.identity_user_id}`);
    const [role] = await deps.store.configRows('roles', { role_name: body.role_name });
    // An assignment of a role since removed can still be revoked: the role grants nothing.
    if (!role && !revoking) refuse(404, `No role ${body.role_name}`);
    const caller = callerOf(c);
    if (caller.user?.id === target.id)
      refuse(403, 'No one assigns or revokes their own roles: another administrator must');
    const held = await caller.permissions();
    const refusal =
      grantRefusal(held, `Role ${body.role_name}`, rolePermissions(role ?? {})) ??
      (await actOnRefusal(deps.store, held, target, at()));
    if (refusal) refuse(403, refusal);
  }
  registerSectionRoutes(app, deps, {
    section: 'roles',
    resource: 'admin_role',
    write: 'roles:write',
    listSummary: 'Admin roles',
    create: {
      summary: 'Create a role',
      body: z.object({
        role_name: roleName,
        display_name: z.string().min(1),
        description: z.string().default(''),
        permissions,
      }),
      failures: { 403: 'The role carries a permission the caller does not hold', 409: 'A role of that name exists' },
      check: async (c, body) => {
        const refusal = grantRefusal(await callerOf(c).permissions(), `Role ${body.role_name}`, body.permissions);
        if (refusal) refuse(403, refusal);
      },
      auditId: 'role_name',
    },
    update: {
      method: 'patch',
      summary: 'Change a role (permissions are replaced)',
      body: z.object({
        display_name: z.string().min(1).optional(),
        description: z.string().optional(),
        permissions: permissions.optional(),
        is_active: z.boolean().optional(),
      }),
      failures: { 403: 'The role carries, or would carry, a permission the caller does not hold', 404: 'No such role' },
      check: async (c, body, id) => {
        const [row] = await deps.store.configRows('roles', { id: Number(id) });
        if (!row) refuse(404, `No role ${id}`);
        // Both what the role carries now (changing or deactivating a role above the caller) and what it would carry.
        const refusal = grantRefusal(await callerOf(c).permissions(), `Role ${String(row.role_name)}`, [
          ...rolePermissions(row),
          ...(body.permissions ?? []),
        ]);
        if (refusal) refuse(403, refusal);
      },
    },
  });
  adminRoute(app, {
    method: 'get',
    path: '/admin/system/roles/assignments',
    ...audited('admin:read', 'role.list_assignments', 'role_assignment'),
    summary: 'Role assignments',
    query: z.object({ identity_user_id: z.string().optional(), role_name: z.string().optional() }),
    handler: async (c, { query }) => c.json({ success: true, assignments: await deps.store.assignments(query) }),
  });
  adminRoute(app, {
    method: 'post',
    path: '/admin/system/roles/assign',
    ...audited('roles:assign', 'role.assign', 'role_assignment'),
    summary: 'Assign a role (again: updates the assignment)',
    body: who.extend({ expires_at: z.iso.datetime({ offset: true }).nullable().default(null) }),
    failures: { 403: notAssignable, 404: 'No such user or role' },
    handler: async (c, { body }) => {
      await mayAssign(c, body);
      const caller = callerOf(c).user;
      const expires = body.expires_at === null ? null : new Date(body.expires_at).toISOString();
      const { before, after } = await deps.store.assign({
        identity_user_id: body.identity_user_id,
        role_name: body.role_name,
        assigned_by: caller?.email ?? 'unknown',
        assigned_at: at(),
        expires_at: expires,
      });
      await recordAudit(c, deps, { resourceId: body.identity_user_id, oldValues: before, newValues: after });
      return c.json({ success: true, assignment: after });
    },
  });
  adminRoute(app, {
    method: 'delete',
    path: '/admin/system/roles/revoke',
    ...audited('roles:assign', 'role.revoke', 'role_assignment'),
    summary: 'Revoke a role (DELETE with a body)',
    body: who,
    failures: { 403: notAssignable, 404: 'No such assignment' },
    handler: async (c, { body }) => {
      await mayAssign(c, body, true);
      const gone = await deps.store.revoke(body.identity_user_id, body.role_name);
      if (!gone) refuse(404, `${body.identity_user_id} has no role ${body.role_name}`);
      await recordAudit(c, deps, { resourceId: body.identity_user_id, oldValues: gone });
      return c.json({ success: true, message: `Revoked ${body.role_name} from ${body.identity_user_id}` });
    },
  });
}
