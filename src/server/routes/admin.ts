import { KEYS_SCOPE } from './keys.js';
import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { route, routeEntry, jsonResponse, okBody, ok } from '../routing/route.js';
import type { AppDeps } from '../deps.js';
import type { RequestMetrics } from './status.js';
import { callerOf } from '../access/gate.js';
import { RULE_SET_ADMIN_READS } from '../rule-sets/rule-sets.js';
import { PASSWORD_ITERATIONS } from '../auth/password.js';
import { SESSION_TTL_MS } from '../auth/sessions.js';
import { API_KEY_PREFIX } from '../auth/identity.js';

/** Prometheus label values: backslash, quote and newline escaped. */
const label = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

/**
 * `/api/metrics/prometheus`, `/api/admin/auth/config`, `/admin/system/my-permissions` (the access gate checks the
 * caller).
 */
export function registerAdminRoutes(app: OpenAPIHono, deps: AppDeps, metrics: RequestMetrics): void {
  const entry = z.object({
    method: z.string(),
    path: z.string(),
    summary: z.string(),
    access: z.literal('admin'),
    permission: z.string().nullable(),
    auditAction: z.string().optional(),
  });
  app.openapi(
    route({
      method: 'get',
      path: '/api/admin',
      access: { admin: 'admin:read' },
      summary: 'The admin routes: method, path, permission and audit action of each, from the route descriptors',
      responses: {
        200: jsonResponse(
          'The manifest',
          okBody({
            routes: z.array(entry),
            /** Non-admin routes where an admin permission reaches other users' data. */
            adminReads: z.array(
              z.object({ method: z.string(), path: z.string(), permission: z.string(), summary: z.string() }),
            ),
          }),
        ),
      },
    }),
    (c) => {
      const admin = c.var.guards.routes().filter((d) => typeof d.access === 'object' && 'admin' in d.access);
      return ok(c, {
        routes: admin.map(routeEntry) as z.infer<typeof entry>[],
        adminReads: RULE_SET_ADMIN_READS.map((r) => ({ ...r })),
      });
    },
  );

  app.openapi(
    route({
      method: 'get',
      path: '/admin/system/my-permissions',
      access: { admin: null },
      audit: { action: 'context.read_permissions', resource: 'admin_context' },
      summary: "The caller's permissions, resolved from their assigned roles (any administrator)",
      responses: {
        200: jsonResponse('Permissions', okBody({ permissions: z.array(z.string()) })),
      },
    }),
    async (c) => ok(c, { permissions: [...(await callerOf(c).permissions())].sort() }),
  );

  app.openapi(
    route({
      method: 'get',
      path: '/api/metrics/prometheus',
      access: { admin: 'metrics:read' },
      summary: 'Request counters in the Prometheus text format (admin, metrics:read)',
      responses: {
        200: { description: 'Prometheus exposition text', content: { 'text/plain': { schema: z.string() } } },
      },
    }),
    async (c) => {
      const deployments = (await deps.store.deploymentStats()).total;
      const lines = [
        '# HELP flc_requests_total HTTP requests handled, by route pattern.',
        '# TYPE flc_requests_total counter',
        ...Object.entries(metrics.byRoute).map(([route, n]) => `flc_requests_total{route="${label(route)}"} ${n}`),
        '# HELP flc_responses_total HTTP responses, by status code.',
        '# TYPE flc_responses_total counter',
        ...Object.entries(metrics.byStatus).map(([status, n]) => `flc_responses_total{status="${label(status)}"} ${n}`),
        '# HELP flc_uptime_seconds Seconds since this server started.',
        '# TYPE flc_uptime_seconds gauge',
        `flc_uptime_seconds ${Math.round((deps.now() - deps.startedAt) / 1000)}`,
        '# HELP flc_deployments_total Recorded starts of the server.',
        '# TYPE flc_deployments_total counter',
        `flc_deployments_total ${deployments}`,
        '',
      ];
      return c.text(lines.join('\n'), 200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
    },
  );

  app.openapi(
    route({
      method: 'get',
      path: '/api/admin/auth/config',
      access: { admin: 'admin:read' },
      summary: 'How authentication is configured (admin, admin:read)',
      responses: {
        200: jsonResponse(
          'Authentication settings',
          okBody({
            providers: z.array(z.string()),
            signUpEnabled: z.boolean(),
            password: z.object({ algorithm: z.string(), iterations: z.number() }),
            sessionTtlSeconds: z.number(),
            apiKeys: z.object({ prefix: z.string(), scopes: z.array(z.string()) }),
            tiers: z.array(z.object({ name: z.string(), rateLimit: z.number() })),
            roles: z.array(z.object({ name: z.string(), permissions: z.array(z.string()) })),
            store: z.object({ engine: z.enum(['sqlite', 'postgres']), location: z.string() }),
          }),
        ),
      },
    }),
    async (c) => {
      const [scopes, tiers, roles] = await Promise.all([deps.store.scopes(), deps.store.tiers(), deps.store.roles()]);
      return ok(c, {
        providers: ['email'],
        signUpEnabled: true,
        password: { algorithm: 'PBKDF2-SHA256', iterations: PASSWORD_ITERATIONS },
        sessionTtlSeconds: SESSION_TTL_MS / 1000,
        apiKeys: { prefix: API_KEY_PREFIX, scopes: [...scopes.map((s) => s.name), KEYS_SCOPE] },
        tiers: tiers.map((t) => ({ name: t.name, rateLimit: t.rateLimit })),
        roles,
        // The engine and where (a URL without its password): which store these users live in.
        store: { engine: deps.store.engine, location: deps.store.description },
      });
    },
  );
}
