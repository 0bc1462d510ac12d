import { z, type OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { trpcServer } from '@hono/trpc-server';
import type { AppDeps } from '../deps.js';
import { featureApp, jsonResponse, plainRoute, type RouteFacts } from '../routing/route.js';
import { problem } from '../problem.js';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import { createTrpcRouter, spliceSerialized, trpcCodeOf } from '../trpc/router.js';
import { BODY_LIMITS } from './rules.js';
import { COMPILE_LIMITS } from '../compile/service.js';

const twin = (method: string, path: string) => ({ method, path });
/** Each procedure with its REST twin, whose access rule, endpoint overrides, body limit and challenge it takes. */
const PROCEDURES: [name: string, facts: Omit<RouteFacts, 'transport'>][] = [
  [
    'compile',
    {
      access: { tier: 'free', scope: 'compile' },
      bodyLimit: COMPILE_LIMITS.bodyBytes,
      challenge: true,
      twin: twin('POST', '/api/compile'),
    },
  ],
  [
    'validateRule',
    { access: { tier: 'free', scope: 'rules' }, bodyLimit: BODY_LIMITS.rule, twin: twin('POST', '/api/validate-rule') },
  ],
  [
    'ast.parse',
    { access: { tier: 'free', scope: 'rules' }, bodyLimit: BODY_LIMITS.list, twin: twin('POST', '/api/ast/parse') },
  ],
  [
    'ast.walk',
    {
      access: { tier: 'free', scope: 'rules' },
      bodyLimit: BODY_LIMITS.list,
      challenge: true,
      twin: twin('POST', '/api/ast/walk'),
    },
  ],
  ...(
    [
      ['list', twin('GET', '/api/rules')],
      ['get', twin('GET', '/api/rules/:id')],
      ['create', twin('POST', '/api/rules')],
      ['update', twin('PATCH', '/api/rules/:id')],
      ['delete', twin('DELETE', '/api/rules/:id')],
    ] as const
  ).map(
    ([p, rest]) => [`rules.${p}`, { access: { tier: 'free', scope: 'rules' }, twin: rest }] as [string, RouteFacts],
  ),
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
export function trpcRoutes(deps: AppDeps, log: (message: string) => void): OpenAPIHono {
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
  for (const [name, facts] of PROCEDURES)
    plainRoute(
      app,
      {
        ...facts,
        transport: 'trpc',
        method: 'post',
        path: `/api/trpc/${name}`,
        summary: `tRPC procedure ${name}`,
        responses,
      },
      // The AST procedures' answers come serialized from the worker pool.
      name.startsWith('ast.') ? spliceSerialized(handler) : handler,
    );
  // Any other name (a batch of several among them) is a tRPC NOT_FOUND, behind the same gate.
  plainRoute(
    app,
    {
      access: { tier: 'free' },
      transport: 'trpc',
      method: 'post',
      path: '/api/trpc/{procedure}',
      summary: 'An unknown tRPC procedure',
      responses: { 404: envelope('No such procedure') },
    },
    (c) => problem(c, 404, `No procedure ${c.req.param('procedure')}`),
  );
  return app;
}
