import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { route, jsonBody, jsonResponse, ok } from '../routing/route.js';
import type { AppDeps } from '../deps.js';
import { problemResponse } from '../problem.js';
import { ErrorEventWriter, FRONTEND_SOURCE } from '../error-events.js';
import { pageOf, pageQuery } from './paging.js';
import { clientLimitKey } from '../client-address.js';

/** The specification's Limits: the body and the text fields of a frontend error report. */
export const FRONTEND_ERROR_LIMITS = {
  bodyBytes: 64 * 1024,
  message: 2048,
  stack: 8192,
  userAgent: 512,
  sessionId: 128,
  url: 2048,
} as const;

const severity = z.enum(['low', 'medium', 'high', 'critical']);
const L = FRONTEND_ERROR_LIMITS;

const report = z.object({
  source: z.enum(['angular', 'worker', 'browser']).describe("checked, then replaced by the server's own value"),
  severity,
  message: z.string().min(1).max(L.message),
  stack: z.string().max(L.stack).optional(),
  context: z.record(z.string(), z.unknown()).optional(),
  url: z
    .url({ protocol: /^https?$/ })
    .max(L.url)
    .optional(),
  userAgent: z.string().max(L.userAgent).optional(),
  sessionId: z.string().max(L.sessionId).optional(),
});

const event = z.object({
  id: z.string(),
  source: z.string(),
  severity,
  message: z.string(),
  stack: z.string().nullable(),
  context: z.string().nullable().describe('the reported context object as JSON text'),
  url: z.string().nullable(),
  userAgent: z.string().nullable(),
  sessionId: z.string().nullable(),
  createdAt: z.string(),
});

/** `POST /api/log/frontend-error` (anyone; 204, stored after the answer) and `GET /api/admin/errors`. */
export function registerFrontendErrorRoutes(app: OpenAPIHono, deps: AppDeps, log: (message: string) => void): void {
  const writer = deps.errorEvents ?? new ErrorEventWriter(deps.store, log);
  app.openapi(
    route({
      method: 'post',
      path: '/api/log/frontend-error',
      access: 'public',
      bodyLimit: FRONTEND_ERROR_LIMITS.bodyBytes,
      summary: "Report a browser's error (stored after the answer)",
      request: { body: jsonBody(report) },
      responses: {
        204: { description: 'Accepted; nothing in the body' },
        415: problemResponse('Not JSON'),
        422: problemResponse('A field fails its limit'),
      },
    }),
    (c) => {
      const r = c.req.valid('json');
      writer.schedule(clientLimitKey(c), {
        id: ErrorEventWriter.newId(),
        source: FRONTEND_SOURCE,
        severity: r.severity,
        message: r.message,
        stack: r.stack ?? null,
        context: r.context === undefined ? null : JSON.stringify(r.context),
        url: r.url ?? null,
        userAgent: r.userAgent ?? c.req.header('user-agent')?.slice(0, L.userAgent) ?? null,
        sessionId: r.sessionId ?? null,
        createdAt: new Date(deps.now()).toISOString(),
      });
      return c.body(null, 204);
    },
  );
  app.openapi(
    route({
      method: 'get',
      path: '/api/admin/errors',
      access: { admin: 'admin:read' },
      summary: 'Recent browser error reports, newest first (admin:read)',
      request: { query: pageQuery() },
      responses: {
        200: jsonResponse('A page of events', pageOf('events', event)),
        422: problemResponse('A bad limit or offset'),
      },
    }),
    async (c) => {
      const { limit, offset } = c.req.valid('query');
      const { events, total } = await deps.store.errorEvents(limit, offset);
      return ok(c, { events, total, limit, offset });
    },
  );
}
