/**
 * Who may call what: the specification's route summary (its Auth column), the local-user and
 * admin system routes, as data. The gate reads this table, then the store's endpoint overrides.
 */

/**
 * `public`: anyone; `session`: a signed-in session; a tier name: that tier or higher; `admin`: an administrator with
 * `permission`.
 */
export type Requirement = 'public' | 'session' | 'own-session' | 'free' | 'pro' | 'admin';

export interface RoutePolicy {
  /** An HTTP method or `*`. */
  method: string;
  /** `/api/keys/:id`, or a prefix ending in `/*`. */
  pattern: string;
  requirement: Requirement;
  /** For `admin` routes: the permission an assigned role must grant (none: any administrator). */
  permission?: string;
  /** Scopes an API key must carry (a session has every scope its tier allows). */
  scopes?: readonly string[];
  /** Counted against the caller's per-minute rate limit (all but the health probe). */
  rateLimited: boolean;
}

type Row = [method: string, pattern: string, requirement: Requirement, permissionOrScope?: string];

/** The summary of public routes (prefix `/api`), in the specification's order. */
const SUMMARY: Row[] = [
  ['GET', '/api', 'public'],
  ['GET', '/api/version', 'public'],
  ['GET', '/api/schemas', 'public'],
  ['GET', '/api/turnstile-config', 'public'],
  ['GET', '/api/sentry-config', 'public'],
  ['GET', '/api/openapi.json', 'public'],
  ['GET', '/api/deployments', 'public'],
  ['GET', '/api/deployments/stats', 'public'],
  ['GET', '/api/auth/providers', 'public'],
  ['POST', '/api/auth/sign-up/email', 'public'],
  ['POST', '/api/auth/sign-in/email', 'public'],
  // Ending one's own sessions: open to a banned or API-disabled account too (it only takes access away).
  ['POST', '/api/auth/sign-out', 'own-session'],
  ['POST', '/api/auth/sign-out-all', 'own-session'],
  ['POST', '/api/auth/change-password', 'session'],
  ['GET', '/api/auth/get-session', 'public'],
  ['POST', '/api/compile', 'free', 'compile'],
  ['POST', '/api/compile/stream', 'free', 'compile'],
  ['POST', '/api/compile/batch', 'free', 'compile'],
  ['POST', '/api/compile/async', 'pro', 'compile'],
  ['POST', '/api/compile/batch/async', 'pro', 'compile'],
  ['POST', '/api/compile/container', 'free', 'compile'],
  ['POST', '/api/ast/parse', 'free', 'rules'],
  ['POST', '/api/validate', 'free', 'rules'],
  ['POST', '/api/validate-rule', 'free', 'rules'],
  ['GET', '/api/ws/compile', 'free', 'compile'],
  ['GET', '/api/queue/stats', 'free', 'compile'],
  ['GET', '/api/queue/history', 'free', 'compile'],
  ['GET', '/api/queue/results/:id', 'free', 'compile'],
  ['DELETE', '/api/queue/cancel/:id', 'free', 'compile'],
  // Not in the specification's summary: a queued job's progress (docs/server.md).
  ['GET', '/api/queue/events/:id', 'free', 'compile'],
  ['GET', '/api/configuration/defaults', 'public'],
  ['POST', '/api/configuration/validate', 'free', 'compile'],
  ['POST', '/api/configuration/resolve', 'free', 'compile'],
  ['GET', '/api/rules', 'free', 'rules'],
  ['GET', '/api/rules/:id', 'free', 'rules'],
  // Saving, changing and deleting rule sets (flc's additions).
  ['POST', '/api/rules', 'free', 'rules'],
  ['PATCH', '/api/rules/:id', 'free', 'rules'],
  ['DELETE', '/api/rules/:id', 'free', 'rules'],
  ['GET', '/api/health', 'public'],
  ['GET', '/api/health/latest', 'public'],
  ['GET', '/api/health/db-smoke', 'public'],
  ['GET', '/api/metrics', 'public'],
  ['GET', '/api/metrics/prometheus', 'admin', 'metrics:read'],
  ['GET', '/api/container/status', 'public'],
  ['GET', '/api/keys', 'free'],
  ['POST', '/api/keys', 'free'],
  ['DELETE', '/api/keys/:id', 'free'],
  ['POST', '/api/workflow/compile', 'pro', 'compile'],
  ['GET', '/api/workflow/:id', 'pro', 'compile'],
  ['GET', '/api/admin/users', 'admin', 'users:read'],
  ['GET', '/api/admin/users/:id', 'admin', 'users:read'],
  ['PATCH', '/api/admin/users/:id', 'admin', 'users:manage'],
  ['DELETE', '/api/admin/users/:id', 'admin', 'users:manage'],
  ['POST', '/api/admin/users/:id/ban', 'admin', 'users:manage'],
  ['POST', '/api/admin/users/:id/unban', 'admin', 'users:manage'],
  ['GET', '/api/admin/auth/config', 'admin', 'admin:read'],
  ['GET', '/api/admin/usage/:userId', 'admin', 'users:read'],
  ['GET', '/api/admin/storage/*', 'admin', 'admin:read'],
  ['*', '/api/admin/storage/*', 'admin', 'admin:write'],
  ['GET', '/api/admin/neon/project', 'admin', 'admin:read'],
  ['GET', '/api/admin/neon/branches', 'admin', 'admin:read'],
  // Reading the whole store is every area's data at once: for a role that holds every permission.
  ['POST', '/api/admin/neon/query', 'admin', '*'],
  ['GET', '/api/admin/agents/sessions', 'admin', 'admin:read'],
  // Browser error reports (flc's addition).
  ['GET', '/api/admin/errors', 'admin', 'admin:read'],
  // Each tRPC procedure as its REST twin; calls are not batched, so one path is one procedure.
  ['*', '/api/trpc/compile', 'free', 'compile'],
  ['*', '/api/trpc/validateRule', 'free', 'rules'],
  ['*', '/api/trpc/ast.parse', 'free', 'rules'],
  ['*', '/api/trpc/ast.walk', 'free', 'rules'],
  ['*', '/api/trpc/rules.list', 'free', 'rules'],
  ['*', '/api/trpc/rules.get', 'free', 'rules'],
  ['*', '/api/trpc/rules.create', 'free', 'rules'],
  ['*', '/api/trpc/rules.update', 'free', 'rules'],
  ['*', '/api/trpc/rules.delete', 'free', 'rules'],
  ['*', '/api/trpc/*', 'free'],
  ['POST', '/api/notify', 'public'],
  ['GET', '/api/flash/:token', 'public'],
  // The legacy `error=<CODE>` parameter resolved (flc's addition).
  ['GET', '/api/flash', 'public'],
  ['POST', '/api/log/frontend-error', 'public'],
  ['POST', '/api/ast/walk', 'free', 'rules'],
  // The streaming routes also answer without the `/api` prefix.
  ['POST', '/compile/stream', 'free', 'compile'],
  ['GET', '/ws/compile', 'free', 'compile'],
];

/** Local users and usage (`/admin/local-users`), the admin system and feature flags. */
const ADMIN: Row[] = [
  ['GET', '/admin/local-users', 'admin', 'users:read'],
  ['GET', '/admin/local-users/:id', 'admin', 'users:read'],
  ['POST', '/admin/local-users', 'admin', 'users:manage'],
  ['PATCH', '/admin/local-users/:id', 'admin', 'users:manage'],
  ['DELETE', '/admin/local-users/:id', 'admin', 'users:manage'],
  ['POST', '/admin/local-users/:id/reset-password', 'admin', 'users:manage'],
  ['GET', '/admin/usage/:userId', 'admin', 'users:read'],
  ['GET', '/admin/system/roles', 'admin', 'admin:read'],
  ['POST', '/admin/system/roles', 'admin', 'roles:write'],
  ['GET', '/admin/system/roles/assignments', 'admin', 'admin:read'],
  ['POST', '/admin/system/roles/assign', 'admin', 'roles:assign'],
  ['DELETE', '/admin/system/roles/revoke', 'admin', 'roles:assign'],
  ['PATCH', '/admin/system/roles/:id', 'admin', 'roles:write'],
  ['GET', '/admin/system/my-context', 'admin'],
  ['GET', '/admin/system/my-permissions', 'admin'],
  ['GET', '/admin/system/tiers', 'admin', 'admin:read'],
  ['PUT', '/admin/system/tiers/:name', 'admin', 'config:write'],
  ['DELETE', '/admin/system/tiers/:name', 'admin', 'config:write'],
  ['GET', '/admin/system/scopes', 'admin', 'admin:read'],
  ['PUT', '/admin/system/scopes/:name', 'admin', 'config:write'],
  ['DELETE', '/admin/system/scopes/:name', 'admin', 'config:write'],
  ['GET', '/admin/system/endpoints', 'admin', 'admin:read'],
  ['POST', '/admin/system/endpoints', 'admin', 'config:write'],
  ['PUT', '/admin/system/endpoints/:id', 'admin', 'config:write'],
  ['DELETE', '/admin/system/endpoints/:id', 'admin', 'config:write'],
  ['GET', '/admin/system/audit', 'admin', 'audit:read'],
  ['GET', '/admin/system/announcements', 'admin', 'admin:read'],
  ['POST', '/admin/system/announcements', 'admin', 'config:write'],
  ['PATCH', '/admin/system/announcements/:id', 'admin', 'config:write'],
  ['DELETE', '/admin/system/announcements/:id', 'admin', 'config:write'],
  ['GET', '/admin/system/config/export', 'admin', 'config:read'],
  ['POST', '/admin/system/config/import', 'admin', 'config:write'],
  ['GET', '/admin/system/config/snapshots', 'admin', 'config:read'],
  ['GET', '/admin/system/config/snapshots/:id', 'admin', 'config:read'],
  ['POST', '/admin/system/config/snapshots/:id/revert', 'admin', 'config:write'],
  ['GET', '/admin/system/users/:userId/data-export', 'admin', 'users:read'],
  ['POST', '/admin/system/users/:userId/data-erase', 'admin', 'users:manage'],
  ['GET', '/admin/config/feature-flags', 'admin', 'admin:read'],
  ['POST', '/admin/config/feature-flags', 'admin', 'flags:write'],
  ['PATCH', '/admin/config/feature-flags/:key', 'admin', 'flags:write'],
  ['DELETE', '/admin/config/feature-flags/:key', 'admin', 'flags:write'],
  // Anything else under an admin prefix is for administrators too: nothing there is public by accident.
  ['GET', '/admin/*', 'admin', 'admin:read'],
  ['*', '/admin/*', 'admin', 'admin:write'],
  ['GET', '/api/admin/*', 'admin', 'admin:read'],
  ['*', '/api/admin/*', 'admin', 'admin:write'],
];

interface Compiled extends RoutePolicy {
  regex: RegExp;
}

function compile([method, pattern, requirement, extra]: Row): Compiled {
  const source = pattern
    .replace(/\/\*$/, '')
    .split('/')
    .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  const regex = new RegExp(`^${source}${pattern.endsWith('/*') ? '(?:/.*)?' : ''}/?$`);
  // An admin route's extra is its permission (keys need the `admin` scope); others name a scope.
  const scopes = requirement === 'admin' ? ['admin'] : extra ? [extra] : undefined;
  return {
    method,
    pattern,
    requirement,
    regex,
    rateLimited: !(method === 'GET' && pattern === '/api/health'),
    ...(requirement === 'admin' && extra ? { permission: extra } : {}),
    ...(scopes ? { scopes } : {}),
  };
}

const POLICIES: Compiled[] = [...SUMMARY, ...ADMIN].map(compile);

/** Every declared route policy (for the docs and the access-matrix test). */
export const ROUTE_POLICIES: readonly RoutePolicy[] = POLICIES;

/** The policy of a request: the first row whose method and pattern match; none for unknown paths. */
export function policyFor(method: string, path: string): RoutePolicy | undefined {
  const m = method === 'HEAD' ? 'GET' : method;
  for (const p of POLICIES) {
    if ((p.method === m || p.method === '*') && p.regex.test(path)) return p;
  }
  return undefined;
}
