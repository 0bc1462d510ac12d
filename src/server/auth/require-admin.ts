import type { Context, MiddlewareHandler } from 'hono';
import type { AppDeps } from '../deps.js';
import { problem } from '../problem.js';
import { bearerToken } from './sessions.js';
import { resolveIdentity } from './identity.js';

/**
 * Admin routes: an administrator (role and tier `admin`) whose admin roles grant
 * `permission`. An API key reaches them only with the `admin` scope.
 */
export function requireAdmin(deps: AppDeps, permission: string): MiddlewareHandler {
  return async (c: Context, next) => {
    const now = deps.now();
    const identity = resolveIdentity(deps.store, bearerToken(c.req.header('authorization')), now);
    if (identity.kind === 'anonymous') return problem(c, 401, 'Authentication required');
    const { user } = identity;
    if (user.apiDisabled) return problem(c, 403, 'API access is disabled for this account');
    if (identity.kind === 'key' && !identity.key.scopes.includes('admin')) return problem(c, 403, 'API key missing required scope: admin');
    if (user.role !== 'admin' || user.tier !== 'admin') return problem(c, 403, 'Administrators only');
    const assigned = new Set(deps.store.rolesOf(user.id, new Date(now).toISOString()));
    const granted = deps.store.roles().some((r) => assigned.has(r.name) && r.permissions.includes(permission));
    if (!granted) return problem(c, 403, `Missing permission: ${permission}`);
    await next();
  };
}
