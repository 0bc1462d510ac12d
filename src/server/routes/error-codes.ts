import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { route, jsonResponse, okBody, ok } from '../routing/route.js';
import { ERROR_CODES, errorDefinition, resolveErrorCode } from '../error-codes.js';

const codes = Object.keys(ERROR_CODES) as [keyof typeof ERROR_CODES, ...(keyof typeof ERROR_CODES)[]];

/** `GET /api/errors/codes` (the registry) and `/api/errors/codes/:code` (one code resolved, UNKNOWN if unknown). */
export function registerErrorCodeRoutes(app: OpenAPIHono): void {
  app.openapi(
    route({
      method: 'get',
      path: '/api/errors/codes',
      access: 'public',
      summary: 'The client-facing error code registry',
      responses: {
        200: jsonResponse(
          'Every code with its message, severity and call to action',
          okBody({ codes: z.record(z.enum(codes), errorDefinition) }),
        ),
      },
    }),
    (c) => ok(c, { codes: ERROR_CODES }),
  );
  app.openapi(
    route({
      method: 'get',
      path: '/api/errors/codes/{code}',
      access: 'public',
      badBody: 'envelope',
      summary: 'Resolve one error code, as a legacy `error=<CODE>` parameter is resolved',
      request: { params: z.object({ code: z.string() }) },
      responses: {
        200: jsonResponse(
          "The code's definition; UNKNOWN's for a code the registry lacks",
          okBody({ error: errorDefinition.extend({ code: z.enum(codes) }) }),
        ),
      },
    }),
    (c) => ok(c, { error: resolveErrorCode(c.req.valid('param').code) }),
  );
}
