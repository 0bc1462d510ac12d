/**
 * The audit action and resource type of each audited route (the specification's Audit events:
 * `tier.update`, `user.data_export`, …), as data; keyed by method and route pattern.
 */
const ROWS: [method: string, pattern: string, action: string, resourceType: string][] = [
  ['GET', '/admin/system/roles', 'role.list', 'admin_role'],
  ['POST', '/admin/system/roles', 'role.create', 'admin_role'],
  ['PATCH', '/admin/system/roles/:id', 'role.update', 'admin_role'],
  ['GET', '/admin/system/roles/assignments', 'role.list_assignments', 'role_assignment'],
  ['POST', '/admin/system/roles/assign', 'role.assign', 'role_assignment'],
  ['DELETE', '/admin/system/roles/revoke', 'role.revoke', 'role_assignment'],
  ['GET', '/admin/system/my-context', 'context.read', 'admin_context'],
  ['GET', '/admin/system/my-permissions', 'context.read_permissions', 'admin_context'],
  ['GET', '/admin/system/tiers', 'tier.list', 'tier_config'],
  ['PUT', '/admin/system/tiers/:name', 'tier.update', 'tier_config'],
  ['DELETE', '/admin/system/tiers/:name', 'tier.delete', 'tier_config'],
  ['GET', '/admin/system/scopes', 'scope.list', 'scope_config'],
  ['PUT', '/admin/system/scopes/:name', 'scope.update', 'scope_config'],
  ['DELETE', '/admin/system/scopes/:name', 'scope.delete', 'scope_config'],
  ['GET', '/admin/system/endpoints', 'endpoint.list', 'endpoint_override'],
  ['POST', '/admin/system/endpoints', 'endpoint.create', 'endpoint_override'],
  ['PUT', '/admin/system/endpoints/:id', 'endpoint.update', 'endpoint_override'],
  ['DELETE', '/admin/system/endpoints/:id', 'endpoint.delete', 'endpoint_override'],
  ['GET', '/admin/system/audit', 'audit.read', 'audit_log'],
  ['GET', '/admin/system/announcements', 'announcement.list', 'announcement'],
  ['POST', '/admin/system/announcements', 'announcement.create', 'announcement'],
  ['PATCH', '/admin/system/announcements/:id', 'announcement.update', 'announcement'],
  ['DELETE', '/admin/system/announcements/:id', 'announcement.delete', 'announcement'],
  ['GET', '/admin/system/config/export', 'config.export', 'config_bundle'],
  ['POST', '/admin/system/config/import', 'config.import', 'config_bundle'],
  ['GET', '/admin/system/config/snapshots', 'config.snapshot_list', 'config_snapshot'],
  ['GET', '/admin/system/config/snapshots/:id', 'config.snapshot_read', 'config_snapshot'],
  ['POST', '/admin/system/config/snapshots/:id/revert', 'config.revert', 'config_snapshot'],
  ['GET', '/admin/system/users/:userId/data-export', 'user.data_export', 'user'],
  ['POST', '/admin/system/users/:userId/data-erase', 'user.data_erase', 'user'],
  ['GET', '/admin/config/feature-flags', 'flag.list', 'feature_flag'],
  ['POST', '/admin/config/feature-flags', 'flag.create', 'feature_flag'],
  ['PATCH', '/admin/config/feature-flags/:key', 'flag.update', 'feature_flag'],
  ['DELETE', '/admin/config/feature-flags/:key', 'flag.delete', 'feature_flag'],
  ['GET', '/admin/local-users', 'local_user.list', 'local_user'],
  ['GET', '/admin/local-users/:id', 'local_user.read', 'local_user'],
  ['POST', '/admin/local-users', 'local_user.create', 'local_user'],
  ['PATCH', '/admin/local-users/:id', 'local_user.update', 'local_user'],
  ['DELETE', '/admin/local-users/:id', 'local_user.delete', 'local_user'],
  ['POST', '/admin/local-users/:id/reset-password', 'local_user.reset_password', 'local_user'],
  ['GET', '/admin/usage/:userId', 'usage.read', 'usage'],
  ['GET', '/api/admin/users', 'user.list', 'user'],
  ['GET', '/api/admin/users/:id', 'user.read', 'user'],
  ['PATCH', '/api/admin/users/:id', 'user.update', 'user'],
  ['DELETE', '/api/admin/users/:id', 'user.delete', 'user'],
  ['POST', '/api/admin/users/:id/ban', 'user.ban', 'user'],
  ['POST', '/api/admin/users/:id/unban', 'user.unban', 'user'],
  ['GET', '/api/admin/usage/:userId', 'usage.read', 'usage'],
];

export interface AuditedRoute {
  action: string;
  resourceType: string;
  /** The value of the pattern's last `:param` in the path, if any. */
  resourceId: string | null;
}

const COMPILED = ROWS.map(([method, pattern, action, resourceType]) => {
  const parts = pattern.split('/');
  const source = parts.map((p) => (p.startsWith(':') ? '([^/]+)' : p)).join('/');
  return { method, regex: new RegExp(`^${source}/?$`), action, resourceType };
});

/** The audited route a request is on, or undefined for routes the audit log does not cover. */
export function auditedRoute(method: string, path: string): AuditedRoute | undefined {
  for (const r of COMPILED) {
    if (r.method !== method) continue;
    const m = r.regex.exec(path);
    if (m) {
      const id = m.length > 1 ? m[m.length - 1] : undefined;
      return { action: r.action, resourceType: r.resourceType, resourceId: id ? decodeURIComponent(id) : null };
    }
  }
  return undefined;
}
