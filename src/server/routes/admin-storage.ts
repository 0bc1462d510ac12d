import { LOG_BOUNDS } from '../store/log-bounds.js';
import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { route, jsonResponse, okBody } from '../routing/route.js';
import type { AppDeps } from '../deps.js';
import { problemResponse, refuse } from '../problem.js';
import { pageOf, pageQuery } from './paging.js';

/** How long finished queue jobs (their results) are kept before a prune removes them: the queue's default. */
export const RESULT_RETENTION_MS = 86_400_000;
/** How long browser error reports are kept before a prune removes them. */
export const ERROR_EVENT_RETENTION_MS = LOG_BOUNDS.errorEvents.retentionDays * 86_400_000;

const engine = z.enum(['sqlite', 'postgres']);
const post = (path: string, summary: string, schema: z.ZodType) =>
  route({
    method: 'post',
    path,
    access: { admin: 'admin:write' },
    summary,
    responses: { 200: jsonResponse('Done', schema) },
  });

/** `/api/admin/storage/*`: the local store's tables, a paged read of one, and maintenance. */
export function registerAdminStorageRoutes(app: OpenAPIHono, deps: AppDeps): void {
  const admin = () => deps.store.databaseAdmin();
  app.openapi(
    route({
      method: 'get',
      path: '/api/admin/storage/tables',
      access: { admin: 'admin:read' },
      summary: "The store's tables with their row counts (admin:read)",
      responses: {
        200: jsonResponse(
          'Every table',
          okBody({
            engine,
            tables: z.array(z.object({ name: z.string(), rows: z.number().int() })),
          }),
        ),
      },
    }),
    async (c) => c.json({ success: true as const, engine: deps.store.engine, tables: await admin().tables() }, 200),
  );
  app.openapi(
    route({
      method: 'get',
      path: '/api/admin/storage/tables/{name}',
      access: { admin: 'admin:read' },
      summary: "A page of one table's rows, secrets redacted (admin:read)",
      request: {
        params: z.object({
          name: z.string().max(128),
        }),
        query: pageQuery(500, 50),
      },
      responses: {
        200: jsonResponse(
          'The rows, in the order of the first column',
          pageOf('rows', z.record(z.string(), z.unknown())).extend({ table: z.string(), columns: z.array(z.string()) }),
        ),
        404: problemResponse('No such table'),
        422: problemResponse('A bad limit or offset'),
      },
    }),
    async (c) => {
      const { limit, offset } = c.req.valid('query');
      const name = c.req.valid('param').name;
      const page = await admin().tablePage(name, limit, offset);
      if (!page) refuse(404, `No table ${name}`);
      return c.json({ success: true as const, ...page, limit, offset }, 200);
    },
  );
  app.openapi(
    post(
      '/api/admin/storage/vacuum',
      'Reclaim space and refresh statistics: VACUUM and ANALYZE (admin:write)',
      okBody({ engine, actions: z.array(z.string()), durationMs: z.number() }),
    ),
    async (c) => {
      const started = performance.now();
      const actions = await admin().vacuum();
      const durationMs = Math.round(performance.now() - started);
      return c.json({ success: true as const, engine: deps.store.engine, actions, durationMs }, 200);
    },
  );
  app.openapi(
    post(
      '/api/admin/storage/checkpoint',
      "Copy SQLite's write-ahead log into the database and truncate it (admin:write)",
      okBody({
        engine,
        performed: z.boolean(),
        detail: z.record(z.string(), z.unknown()),
      }),
    ),
    async (c) => c.json({ success: true as const, engine: deps.store.engine, ...(await admin().checkpoint()) }, 200),
  );
  app.openapi(
    post(
      '/api/admin/storage/prune',
      'Delete expired sessions, flash entries, and queue jobs and error reports past their retention (admin:write)',
      okBody({
        pruned: z.object({
          sessions: z.number().int(),
          flash: z.number().int(),
          results: z.number().int().nullable(),
          errorEvents: z.number().int(),
        }),
      }),
    ),
    async (c) => {
      const now = deps.now();
      const iso = (t: number) => new Date(t).toISOString();
      const pruned = await admin().prune(iso(now), iso(now - RESULT_RETENTION_MS), iso(now - ERROR_EVENT_RETENTION_MS));
      return c.json({ success: true as const, pruned }, 200);
    },
  );
}
