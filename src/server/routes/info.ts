import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { route, routeEntry } from '../routing/route.js';
import type { AppDeps } from '../deps.js';

const HEALTH_TTL_MS = 30_000;

const health = z.object({
  status: z.literal('ok'),
  version: z.string(),
  timestamp: z.string(),
  uptimeSeconds: z.number(),
});

/** `/api`, `/api/version`, `/api/health`. */
export function registerInfoRoutes(app: OpenAPIHono, deps: AppDeps): void {
  app.openapi(
    route({
      method: 'get',
      path: '/api',
      access: 'public',
      summary: 'Service description and every endpoint (`METHOD /path`), from the route descriptors',
      responses: {
        200: {
          description: 'Service information',
          content: {
            'application/json': {
              schema: z.object({ name: z.string(), version: z.string(), endpoints: z.array(z.string()) }),
            },
          },
        },
      },
    }),
    (c) =>
      c.json(
        {
          name: 'flc',
          version: deps.version,
          endpoints: c.var.guards.routes().map((d) => {
            const { method, path } = routeEntry(d);
            return `${method} ${path}`;
          }),
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
        200: {
          description: 'Version',
          content: { 'application/json': { schema: z.object({ version: z.string(), node: z.string() }) } },
        },
      },
    }),
    (c) => c.json({ version: deps.version, node: process.version }, 200),
  );

  // Computed at most once per 30 s per app, as the specification says.
  let cached: { at: number; body: z.infer<typeof health> } | null = null;
  app.openapi(
    route({
      method: 'get',
      path: '/api/health',
      access: 'public-unmetered',
      summary: 'Health (cached 30 s)',
      responses: { 200: { description: 'Healthy', content: { 'application/json': { schema: health } } } },
    }),
    (c) => {
      const now = deps.now();
      if (!cached || now - cached.at >= HEALTH_TTL_MS) {
        cached = {
          at: now,
          body: {
            status: 'ok',
            version: deps.version,
            timestamp: new Date(now).toISOString(),
            uptimeSeconds: Math.round((now - deps.startedAt) / 1000),
          },
        };
        // Not awaited, and a failure is not the probe's: it answers even while the store is busy
        // or away (`/api/health/db-smoke` is the store's own check); the next check records again.
        deps.store
          .recordHealth({ status: cached.body.status, version: deps.version, checkedAt: cached.body.timestamp })
          .catch(() => undefined);
      }
      c.header('cache-control', `public, max-age=${Math.ceil((HEALTH_TTL_MS - (now - cached.at)) / 1000)}`);
      return c.json(cached.body, 200);
    },
  );
}
