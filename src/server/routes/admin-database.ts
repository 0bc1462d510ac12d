import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { route, jsonBody, jsonResponse, okBody, ok } from '../routing/route.js';
import type { AppDeps } from '../deps.js';
import { problemResponse, refuse } from '../problem.js';
import { formatDuration } from '../../core/ast/validate-rule.js';
import { LOG_BOUNDS } from '../store/log-bounds.js';
import { pageOf, pageQuery } from './paging.js';
import { liveSession } from '../live-sessions.js';

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
const get = (path: string, summary: string, answer: string, schema: z.ZodType) =>
  route({
    method: 'get',
    path,
    access: { admin: 'admin:read' },
    summary,
    responses: { 200: jsonResponse(answer, schema) },
  });

/** The read-only query's limits: its text, its time, its rows and the bytes of its answer. */
export const QUERY_LIMITS = {
  bodyBytes: 64 * 1024,
  timeoutDefaultMs: 5_000,
  timeoutMaxMs: 30_000,
  rowsDefault: 100,
  rowsMax: 1_000,
  answerBytesDefault: 1024 * 1024,
  answerBytesMax: 8 * 1024 * 1024,
} as const;

const Q = QUERY_LIMITS;
const queryRequest = z.object({
  query: z.string().min(1).max(Q.bodyBytes),
  timeoutMs: z.number().int().min(100).max(Q.timeoutMaxMs).default(Q.timeoutDefaultMs),
  maxRows: z.number().int().min(1).max(Q.rowsMax).default(Q.rowsDefault),
  maxBytes: z.number().int().min(1024).max(Q.answerBytesMax).default(Q.answerBytesDefault),
});

/**
 * The admin views of the local store: `/api/admin/storage/*` (its tables, a paged read of one, and
 * maintenance); the specification's hosted-database views, answered for flc's own store:
 * `/api/admin/neon/project`, `/branches` and `POST /query`; and `/api/admin/agents/sessions`, the
 * open WebSocket connections.
 */
export function registerAdminDatabaseRoutes(app: OpenAPIHono, deps: AppDeps): void {
  const admin = () => deps.store.databaseAdmin();
  app.openapi(
    get(
      '/api/admin/storage/tables',
      "The store's tables with their row counts (admin:read)",
      'Every table',
      okBody({
        engine,
        tables: z.array(z.object({ name: z.string(), rows: z.number().int() })),
      }),
    ),
    async (c) => ok(c, { engine: deps.store.engine, tables: await admin().tables() }),
  );
  app.openapi(
    route({
      method: 'get',
      path: '/api/admin/storage/tables/{name}',
      // Every row of any table (users, their rule sets, the audit log): what each narrower
      // permission guards, so every permission, as a query of the store needs.
      access: { admin: '*' },
      summary: "A page of one table's rows, secrets redacted (every permission)",
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
      return ok(c, { ...page, limit, offset });
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
      return ok(c, { engine: deps.store.engine, actions, durationMs });
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
    async (c) => ok(c, { engine: deps.store.engine, ...(await admin().checkpoint()) }),
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
      return ok(c, { pruned });
    },
  );
  app.openapi(
    get(
      '/api/admin/neon/project',
      'The local database: engine, version, location (no password), size (admin:read)',
      'The database',
      okBody({
        project: z.object({
          engine,
          version: z.string(),
          location: z.string(),
          sizeBytes: z.number(),
          schema: z.string().optional(),
          schemaSizeBytes: z.number().optional(),
          tables: z.number().int(),
          migrations: z.number().int(),
        }),
      }),
    ),
    async (c) => ok(c, { project: await admin().info() }),
  );
  app.openapi(
    get(
      '/api/admin/neon/branches',
      'The database as the primary branch, configuration snapshots as its branches (admin:read)',
      'The branches, the database first',
      okBody({
        branches: z.array(
          z.object({
            id: z.string(),
            name: z.string(),
            kind: z.enum(['database', 'snapshot']),
            primary: z.boolean(),
            current: z.boolean(),
            parentId: z.string().nullable(),
            createdAt: z.string().nullable(),
            createdBy: z.string().optional(),
          }),
        ),
      }),
    ),
    async (c) => ok(c, { branches: await admin().branches() }),
  );
  app.openapi(
    route({
      method: 'post',
      path: '/api/admin/neon/query',
      access: { admin: '*' },
      bodyLimit: Q.bodyBytes,
      gateway: false, // reads only
      summary:
        'One SELECT over the store without its secret columns, limited in time, rows and bytes (every permission)',
      request: { body: jsonBody(queryRequest) },
      responses: {
        200: jsonResponse(
          'The rows',
          okBody({
            columns: z.array(z.string()),
            rows: z.array(z.array(z.unknown())),
            rowCount: z.number().int(),
            truncated: z.boolean(),
            duration: z.string(),
          }),
        ),
        408: problemResponse('The query ran past its time and was ended'),
        422: problemResponse('Not one read-only statement, or refused by the database'),
        503: problemResponse('No low-privilege connection to run queries on (PostgreSQL)'),
      },
    }),
    async (c) => {
      const { query, ...limits } = c.req.valid('json');
      const started = performance.now();
      // A refused query (QueryRefusedError) is answered by the app's error handler with its status.
      const answer = await admin().readOnlyQuery(query, limits);
      return ok(c, { ...answer, duration: formatDuration(performance.now() - started) });
    },
  );
  app.openapi(
    route({
      method: 'get',
      path: '/api/admin/agents/sessions',
      // Who is connected names users (their email, their key): what users:read guards.
      access: { admin: 'users:read' },
      summary: "This server's open WebSocket connections: who, since when, running compiles (users:read)",
      responses: {
        200: jsonResponse(
          'The connections, oldest first',
          okBody({ sessions: z.array(liveSession), total: z.number().int() }),
        ),
      },
    }),
    (c) => {
      const sessions = deps.liveSessions?.list() ?? [];
      return ok(c, { sessions, total: sessions.length });
    },
  );
}
