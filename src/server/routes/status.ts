import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { ok, route, jsonResponse, okBody } from '../routing/route.js';
import type { AppDeps } from '../deps.js';
import { clientMessage, problemResponse, refuse } from '../problem.js';

const requestCounts = z.object({
  total: z.number(),
  byRoute: z.record(z.string(), z.number()),
  byStatus: z.record(z.string(), z.number()),
});
/** Counts of requests by route and status since this process started. */
export type RequestMetrics = z.infer<typeof requestCounts>;

/** Counts every request (by matched route pattern, so IDs do not explode the map). */
export function registerMetricsMiddleware(app: OpenAPIHono, metrics: RequestMetrics): void {
  app.use('*', async (c, next) => {
    await next();
    metrics.total += 1;
    const route = `${c.req.method} ${c.req.routePath}`;
    metrics.byRoute[route] = (metrics.byRoute[route] ?? 0) + 1;
    metrics.byStatus[c.res.status] = (metrics.byStatus[c.res.status] ?? 0) + 1;
  });
}

const deployment = z.object({
  id: z.number().int(),
  version: z.string(),
  nodeVersion: z.string(),
  startedAt: z.string(),
});

/** `/api/deployments`, `/api/deployments/stats`, `/api/health/latest`, `/api/health/db-smoke`, `/api/metrics`. */
export function registerStatusRoutes(app: OpenAPIHono, deps: AppDeps, metrics: RequestMetrics): void {
  app.openapi(
    route({
      method: 'get',
      path: '/api/deployments',
      access: 'public',
      badBody: 'envelope',
      summary: 'Recent starts of the server, newest first',
      request: { query: z.object({ limit: z.coerce.number().int().min(1).max(100).optional() }) },
      responses: {
        200: jsonResponse('Deployments', okBody({ deployments: z.array(deployment) })),
      },
    }),
    async (c) => ok(c, { deployments: await deps.store.deployments(c.req.valid('query').limit ?? 50) }),
  );
  app.openapi(
    route({
      method: 'get',
      path: '/api/deployments/stats',
      access: 'public',
      summary: 'Starts per version',
      responses: {
        200: jsonResponse(
          'Counts',
          okBody({
            currentVersion: z.string(),
            total: z.number(),
            versions: z.array(
              z.object({
                version: z.string(),
                count: z.number(),
                firstStartedAt: z.string(),
                lastStartedAt: z.string(),
              }),
            ),
          }),
        ),
      },
    }),
    async (c) => ok(c, { currentVersion: deps.version, ...(await deps.store.deploymentStats()) }),
  );
  app.openapi(
    route({
      method: 'get',
      path: '/api/health/latest',
      access: 'public',
      summary: 'The last recorded health check',
      responses: {
        200: jsonResponse(
          'The check, or null before the first',
          okBody({
            check: z.object({ status: z.string(), version: z.string(), checkedAt: z.string() }).nullable(),
          }),
        ),
      },
    }),
    async (c) => ok(c, { check: await deps.store.latestHealth() }),
  );
  app.openapi(
    route({
      method: 'get',
      path: '/api/health/db-smoke',
      access: 'public',
      summary: 'Write, read back and delete a row in the store',
      responses: {
        200: jsonResponse('The store works', okBody({ ok: z.literal(true), latencyMs: z.number() })),
        503: problemResponse('The store does not work'),
      },
    }),
    async (c) => {
      const started = performance.now();
      try {
        await deps.store.smoke(new Date(deps.now()).toISOString());
      } catch (e) {
        refuse(503, `Store check failed: ${clientMessage(e)}`);
      }
      return ok(c, { ok: true as const, latencyMs: Math.round((performance.now() - started) * 100) / 100 });
    },
  );
  app.openapi(
    route({
      method: 'get',
      path: '/api/metrics',
      access: 'public',
      summary: 'Request counts since this process started',
      responses: {
        200: jsonResponse('Counters', okBody({ uptimeSeconds: z.number(), requests: requestCounts })),
      },
    }),
    (c) => ok(c, { uptimeSeconds: Math.round((deps.now() - deps.startedAt) / 1000), requests: metrics }),
  );
}
