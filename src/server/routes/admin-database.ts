import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { route, jsonBody, jsonResponse, okBody } from '../routing/route.js';
import type { AppDeps } from '../deps.js';
import { problemResponse, refuse } from '../problem.js';
import { QueryRefusedError } from '../admin/query-result.js';
import { formatDuration } from '../../core/ast/validate-rule.js';

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
 * The specification's hosted-database views, answered for flc's own store: `/api/admin/neon/project`,
 * `/branches` and `POST /query`; and `/api/admin/agents/sessions`, the open WebSocket connections.
 */
export function registerAdminDatabaseRoutes(app: OpenAPIHono, deps: AppDeps): void {
  const admin = () => deps.store.databaseAdmin();
  app.openapi(
    route({
      method: 'get',
      path: '/api/admin/neon/project',
      access: { admin: 'admin:read' },
      summary: 'The local database: engine, version, location (no password), size (admin:read)',
      responses: {
        200: jsonResponse(
          'The database',
          okBody({
            project: z.object({
              engine: z.enum(['sqlite', 'postgres']),
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
      },
    }),
    async (c) => c.json({ success: true as const, project: await admin().info() }, 200),
  );
  app.openapi(
    route({
      method: 'get',
      path: '/api/admin/neon/branches',
      access: { admin: 'admin:read' },
      summary: 'The database as the primary branch, configuration snapshots as its branches (admin:read)',
      responses: {
        200: jsonResponse(
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
      },
    }),
    async (c) => c.json({ success: true as const, branches: await admin().branches() }, 200),
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
      try {
        const answer = await admin().readOnlyQuery(query, limits);
        return c.json(
          { success: true as const, ...answer, duration: formatDuration(performance.now() - started) },
          200,
        );
      } catch (err) {
        if (err instanceof QueryRefusedError) refuse(err.status, err.message);
        throw err;
      }
    },
  );
  app.openapi(
    route({
      method: 'get',
      path: '/api/admin/agents/sessions',
      access: { admin: 'admin:read' },
      summary: "This server's open WebSocket connections: who, since when, running compiles (admin:read)",
      responses: {
        200: jsonResponse(
          'The connections, oldest first',
          okBody({
            sessions: z.array(
              z.object({
                id: z.string(),
                userId: z.string().nullable(),
                email: z.string().nullable(),
                via: z.enum(['session', 'key', 'anonymous']),
                keyId: z.string().nullable(),
                address: z.string(),
                connectedAt: z.string(),
                compiles: z.array(
                  z.object({ sessionId: z.string(), configurationName: z.string().nullable(), startedAt: z.string() }),
                ),
              }),
            ),
            total: z.number().int(),
          }),
        ),
      },
    }),
    (c) => {
      const sessions = deps.liveSessions?.list() ?? [];
      return c.json({ success: true as const, sessions, total: sessions.length }, 200);
    },
  );
}
