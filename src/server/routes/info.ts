import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { route, routeEntry, jsonResponse } from '../routing/route.js';
import type { AppDeps } from '../deps.js';
import { checkHealth, health } from '../health.js';

/** A healthy answer is reused 30 s, as the specification says; another one 5 s, to see a recovery soon. */
const HEALTH_TTL_MS = 30_000;
const UNHEALTHY_TTL_MS = 5_000;

type Health = z.infer<typeof health>;

/** `/api`, `/api/version`, `/api/health`. */
export function registerInfoRoutes(app: OpenAPIHono, deps: AppDeps): void {
  app.openapi(
    route({
      method: 'get',
      path: '/api',
      access: 'public',
      summary: 'Service description and every endpoint (`METHOD /path`), from the route descriptors',
      responses: {
        200: jsonResponse(
          'Service information',
          z.object({ name: z.string(), version: z.string(), endpoints: z.array(z.string()) }),
        ),
      },
    }),
    (c) =>
      c.json(
        {
          name: 'flc',
          version: deps.version,
          endpoints: c.var.guards.routes().map((d) => `${d.method} ${routeEntry(d).path}`),
        },
        200,
      ),
  );
  app.openapi(
    route({
      method: 'get',
      path: '/api/version',
      access: 'public',
      summary: 'Server version',
      responses: {
        200: jsonResponse('Version', z.object({ version: z.string(), node: z.string() })),
      },
    }),
    (c) => c.json({ version: deps.version, node: process.version }, 200),
  );

  // Computed at most once per 30 s per app (5 s when not healthy), and again when the store's
  // writes start or stop failing; requests meanwhile share it.
  let cached: { at: number; ttl: number; writesOk: boolean; body: Promise<Health> } | null = null;
  const compute = async (now: number): Promise<Health> => {
    const report = await checkHealth(deps.store, deps.pool);
    const body: Health = {
      status: report.status,
      version: deps.version,
      timestamp: new Date(now).toISOString(),
      uptimeSeconds: Math.round((now - deps.startedAt) / 1000),
      checks: report.checks,
    };
    // Not awaited, and a failure is not the probe's; the next check records again.
    deps.store.recordHealth({ status: body.status, version: deps.version, checkedAt: body.timestamp }).catch(() => {});
    return body;
  };
  app.openapi(
    route({
      method: 'get',
      path: '/api/health',
      access: 'public-unmetered',
      summary: 'Health of the store and the worker pool (cached 30 s)',
      responses: {
        200: jsonResponse('Serving (`ok`, or `degraded`)', health),
        503: jsonResponse('Unavailable', health),
      },
    }),
    async (c) => {
      const now = deps.now();
      const writesOk = deps.store.writesOk();
      if (!cached || now - cached.at >= cached.ttl || cached.writesOk !== writesOk)
        cached = { at: now, ttl: HEALTH_TTL_MS, writesOk, body: compute(now) };
      const entry = cached;
      const body = await entry.body;
      if (body.status !== 'ok') entry.ttl = UNHEALTHY_TTL_MS;
      c.header('cache-control', `public, max-age=${Math.max(0, Math.ceil((entry.ttl - (now - entry.at)) / 1000))}`);
      return body.status === 'unavailable' ? c.json(body, 503) : c.json(body, 200);
    },
  );
}
