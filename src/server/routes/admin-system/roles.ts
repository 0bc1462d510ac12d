import { type OpenAPIHono, z } from '@hono/zod-openapi';
import type { AppDeps } from '../../deps.js';
import { problem } from '../../problem.js';
import { callerOf } from '../../access/gate.js';
import { recordAudit } from '../../audit/trail.js';
import { adminRoute, audited, idParam } from './route.js';
import { PERMISSIONS } from './permissions.js';
import { asSpecRow, jsonText } from './json-columns.js';

const permissions = jsonText(z.array(z.enum(PERMISSIONS)).min(1, 'a role needs at least one permission'));
const roleName = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'lowercase letters, digits, - and _ (at most 64)');
const who = z.object({ identity_user_id: z.string().min(1), role_name: roleName });

/** Roles and role assignments (`/admin/system/roles…`). */
export function registerRoleRoutes(app: OpenAPIHono, deps: AppDeps): void {
  const at = () => new Date(deps.now()).toISOString();
  adminRoute(
    app,
    {
      method: 'get',
      path: '/admin/system/roles',
      ...audited('admin:read', 'role.list', 'admin_role'),
      summary: 'Admin roles',
    },
    async (c) =>
      c.json({ success: true, roles: (await deps.store.configRows('roles')).map((row) => asSpecRow('roles', row)) }),
  );
  adminRoute(
    app,
    {
      method: 'post',
      path: '/admin/system/roles',
      ...audited('roles:write', 'role.create', 'admin_role'),
      summary: 'Create a role',
      status: 201,
      body: z.object({
        role_name: roleName,
        display_name: z.string().min(1),
        description: z.string().default(''),
        permissions,
      }),
      failures: { 409: 'A role of that name exists' },
    },
    async (c, { body }) => {
      const role = await deps.store.createConfigRow('roles', body, at());
      await recordAudit(c, deps, { resourceId: String(role.role_name), newValues: role });
      return c.json({ success: true, role: asSpecRow('roles', role) }, 201);
    },
  );
  adminRoute(
    app,
    {
      method: 'patch',
      path: '/admin/system/roles/{id}',
      ...audited('roles:write', 'role.update', 'admin_role'),
      summary: 'Change a role (permissions are replaced)',
      params: idParam,
      body: z.object({
        display_name: z.string().min(1).optional(),
        description: z.string().optional(),
        permissions: permissions.optional(),
        is_active: z.boolean().optional(),
      }),
      failures: { 404: 'No such role' },
    },
    async (c, { params, body }) => {
      const changed = await deps.store.updateConfigRow('roles', { id: Number(params.id) }, body, at());
      if (!changed) return problem(c, 404, `No role ${params.id}`);
      await recordAudit(c, deps, { oldValues: changed.before, newValues: changed.after });
      return c.json({ success: true, role: asSpecRow('roles', changed.after) });
    },
  );
  adminRoute(
    app,
    {
      method: 'get',
      path: '/admin/system/roles/assignments',
      ...audited('admin:read', 'role.list_assignments', 'role_assignment'),
      summary: 'Role assignments',
      query: z.object({ identity_user_id: z.string().optional(), role_name: z.string().optional() }),
    },
    async (c, { query }) => c.json({ success: true, assignments: await deps.store.assignments(query) }),
  );
  adminRoute(
    app,
    {
      method: 'post',
      path: '/admin/system/roles/assign',
      ...audited('roles:assign', 'role.assign', 'role_assignment'),
      summary: 'Assign a role (again: updates the assignment)',
      body: who.extend({ expires_at: z.iso.datetime({ offset: true }).nullable().default(null) }),
      failures: { 404: 'No such user or role' },
    },
    async (c, { body }) => {
      if (!(await deps.store.userById(body.identity_user_id)))
        return problem(c, 404, `No user ${body.identity_user_id}`);
      if ((await deps.store.configRows('roles', { role_name: body.role_name })).length === 0)
        return problem(c, 404, `No role ${body.role_name}`);
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
  );
  adminRoute(
    app,
    {
      method: 'delete',
      path: '/admin/system/roles/revoke',
      ...audited('roles:assign', 'role.revoke', 'role_assignment'),
      summary: 'Revoke a role (DELETE with a body)',
      body: who,
      failures: { 404: 'No such assignment' },
    },
    async (c, { body }) => {
      const gone = await deps.store.revoke(body.identity_user_id, body.role_name);
      if (!gone) return problem(c, 404, `${body.identity_user_id} has no role ${body.role_name}`);
      await recordAudit(c, deps, { resourceId: body.identity_user_id, oldValues: gone });
      return c.json({ success: true, message: `Revoked ${body.role_name} from ${body.identity_user_id}` });
    },
  );
}
