import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { route, jsonResponse, ok } from '../routing/route.js';
import type { Context } from 'hono';
import type { AppDeps } from '../deps.js';
import { errorDefinition, resolveErrorCode, resolveErrorPayload } from '../error-codes.js';
import { takeFlash } from '../flash/flash-messages.js';
import { problemResponse } from '../problem.js';

const resolved = errorDefinition.extend({ code: z.string() });
const flashBody = resolved.extend({ success: z.literal(true), type: z.string(), createdAt: z.string() });

const NOT_FOUND = {
  type: 'about:blank',
  title: 'Not Found',
  status: 404,
  detail: 'No such flash message: the token is unknown, already read or expired',
  instance: '/api/flash',
};

/** The one 404 of the route: byte for byte the same for unknown, consumed, expired and malformed tokens. */
const notFound = (c: Context) => c.json(NOT_FOUND, 404, { 'content-type': 'application/problem+json' });

/** `GET /api/flash/:token` (read once) and `GET /api/flash?error=<CODE>` (the legacy parameter). */
export function registerFlashRoutes(app: OpenAPIHono, deps: AppDeps): void {
  app.openapi(
    route({
      method: 'get',
      path: '/api/flash/{token}',
      access: 'public',
      summary: 'Read a one-time flash message (deleted by the read)',
      request: { params: z.object({ token: z.string() }) },
      responses: {
        200: jsonResponse('The message, resolved through the error-code registry', flashBody),
        404: problemResponse('Unknown, consumed or expired token (one body)'),
      },
    }),
    async (c) => {
      const entry = await takeFlash(deps.store, c.req.valid('param').token, deps.now());
      if (!entry) return notFound(c);
      const payload = resolveErrorPayload({ code: entry.code, message: entry.message });
      return ok(c, { ...payload, type: entry.type, createdAt: entry.createdAt });
    },
  );
  app.openapi(
    route({
      method: 'get',
      path: '/api/flash',
      access: 'public',
      summary: 'Resolve a legacy `error=<CODE>` parameter through the error-code registry',
      request: { query: z.object({ error: z.string().max(128).optional() }) },
      responses: {
        200: jsonResponse(
          "The code's definition; UNKNOWN's for an absent or unknown code",
          resolved.extend({ success: z.literal(true) }),
        ),
      },
    }),
    (c) => ok(c, { ...resolveErrorCode(c.req.valid('query').error) }),
  );
}
