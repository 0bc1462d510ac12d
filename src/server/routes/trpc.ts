import { z, type OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { trpcServer } from '@hono/trpc-server';
import type { AppDeps } from '../deps.js';
import { type DescribedRoute, featureApp, jsonResponse, plainRoute } from '../routing/route.js';
import { problem } from '../problem.js';
import { BODY_LIMITS } from './rules.js';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import { createTrpcRouter, spliceSerialized, trpcCodeOf } from '../trpc/router.js';

/** Each procedure with its REST twin, whose access rule, endpoint overrides, body limit and challenge it takes. */
const PROCEDURES: [name: string, method: string, path: string][] = [
  ['compile', 'POST', '/api/compile'],
  ['validateRule', 'POST', '/api/validate-rule'],
  ['ast.parse', 'POST', '/api/ast/parse'],
  ['ast.walk', 'POST', '/api/ast/walk'],
  ['rules.list', 'GET', '/api/rules'],
  ['rules.get', 'GET', '/api/rules/:id'],
  ['rules.create', 'POST', '/api/rules'],
  ['rules.update', 'PATCH', '/api/rules/:id'],
  ['rules.delete', 'DELETE', '/api/rules/:id'],
];

/**
 * Refusals made before tRPC runs (the access gate's 401/403/429, a body limit's 413) are problem
 * bodies; on a procedure's route they become tRPC error envelopes with the same status, headers
 * and message, so a tRPC client reads them as errors with a code.
 */
export const trpcEnvelope: MiddlewareHandler = async (c, next) => {
  await next();
  if (!c.res.headers.get('content-type')?.startsWith('application/problem+json')) return;
  const problem = (await c.res.json()) as { status: number; detail: string };
  const code = trpcCodeOf(c.res.status);
  const headers = new Headers(c.res.headers);
  headers.set('content-type', 'application/json');
  const body = {
    error: {
      message: problem.detail,
      code: TRPC_ERROR_CODES_BY_KEY[code],
      data: { code, httpStatus: c.res.status, path: c.req.path.slice('/api/trpc/'.length) },
    },
  };
  c.res = new Response(JSON.stringify(body), { status: c.res.status, headers });
};

const envelope = (description: string) =>
  jsonResponse(description, z.object({ result: z.unknown() }).or(z.object({ error: z.unknown() })));

/**
 * `POST /api/trpc/<procedure>`: tRPC v11 over HTTP. Calls are not batched, so each procedure has
 * its own route, with its REST twin's access rule (tier, scope, rate limit), body limit and challenge.
 */
export function trpcRoutes(
  deps: AppDeps,
  log: (message: string) => void,
  rest: readonly DescribedRoute[],
): OpenAPIHono {
  const app = featureApp();
  const router = createTrpcRouter(deps, log);
  const handler = trpcServer({
    router,
    endpoint: '/api/trpc',
    allowBatching: false,
    createContext: (_opts, c) => ({ c }),
  });
  const responses = {
    200: envelope('tRPC result envelope'),
    400: envelope('Input fails the schema, or a batch call'),
    401: envelope('No credentials'),
    413: envelope('Body too large'),
  };
  for (const [name, method, path] of PROCEDURES) {
    const twin = rest.find((r) => r.method === method && r.path === path);
    if (!twin) throw new Error(`tRPC procedure ${name}: no REST route ${method} ${path}`);
    const { access, bodyLimit, challenge } = twin;
    plainRoute(app, {
      access,
      bodyLimit,
      challenge,
      twin: { method, path },
      transport: 'trpc',
      method: 'post',
      path: `/api/trpc/${name}`,
      summary: `tRPC procedure ${name}`,
      responses,
      handlers: [
        // The AST procedures' answers come serialized from the worker pool.
        name.startsWith('ast.') ? spliceSerialized(handler) : handler,
      ],
    });
  }
  // Any other name (a batch of several among them) is a tRPC NOT_FOUND, behind the same gate.
  plainRoute(app, {
    access: { tier: 'free' },
    bodyLimit: BODY_LIMITS.rule,
    transport: 'trpc',
    method: 'post',
    path: '/api/trpc/{procedure}',
    summary: 'An unknown tRPC procedure',
    responses: { 404: envelope('No such procedure') },
    handlers: [(c) => problem(c, 404, `No procedure ${c.req.param('procedure')}`)],
  });
  return app;
}
