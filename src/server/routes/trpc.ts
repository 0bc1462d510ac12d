import type { OpenAPIHono } from '@hono/zod-openapi';
import { trpcServer } from '@hono/trpc-server';
import type { AppDeps } from '../deps.js';
import { DEFAULT_BODY_LIMIT, limitedBody } from '../body-limit.js';
import { onError, problem } from '../problem.js';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import { createTrpcRouter, trpcCodeOf } from '../trpc/router.js';
import { BODY_LIMITS } from './rules.js';
import { COMPILE_LIMITS } from './compile.js';

/** Each procedure's body limit is its REST twin's; anything else gets the smallest. */
const PROCEDURE_LIMITS = new Map([
  ['compile', limitedBody(COMPILE_LIMITS.bodyBytes)],
  ['validateRule', limitedBody(BODY_LIMITS.rule)],
  ['ast.parse', limitedBody(BODY_LIMITS.list)],
  ['ast.walk', limitedBody(BODY_LIMITS.list)],
  ...['rules.list', 'rules.get', 'rules.create', 'rules.update', 'rules.delete'].map(
    (p) => [p, limitedBody(DEFAULT_BODY_LIMIT)] as const,
  ),
]);

/**
 * Refusals made before tRPC runs (the access gate's 401/403/429, a body limit's 413) are problem
 * bodies; on `/api/trpc/*` they become tRPC error envelopes with the same status, headers and
 * message, so a tRPC client reads them as errors with a code. Registered before the access gate.
 */
export function registerTrpcErrorEnvelope(app: OpenAPIHono): void {
  app.use('/api/trpc/*', async (c, next) => {
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
  });
}

/**
 * Body limits of `/api/trpc/*`; registered before anything reads a body. Only the exact procedure
 * paths go on: tRPC itself would also answer `compile/` or `ast.walk//`, paths the challenge gate and
 * the limits, which match exactly, never see.
 */
export function registerTrpcLimits(app: OpenAPIHono): void {
  app.use('/api/trpc/*', async (c, next) => {
    const procedure = c.req.path.slice('/api/trpc/'.length);
    const limit = PROCEDURE_LIMITS.get(procedure);
    if (!limit) return problem(c, 404, `No procedure ${procedure}`);
    return limit(c, next);
  });
}

/**
 * `/api/trpc/*`: tRPC v11 over HTTP. Calls are not batched, so each procedure has its own path,
 * and the access gate's per-path policies (tier, scope, rate limit) apply to it as to REST.
 */
export function registerTrpcRoutes(app: OpenAPIHono, deps: AppDeps, log: (message: string) => void): void {
  const router = createTrpcRouter(deps, onError(log));
  app.use(
    '/api/trpc/*',
    trpcServer({
      router,
      endpoint: '/api/trpc',
      allowBatching: false,
      createContext: (_opts, c) => ({ c }),
    }),
  );
  app.openAPIRegistry.registerPath({
    method: 'post',
    path: '/api/trpc/{procedure}',
    summary:
      'tRPC v11 procedures: compile, validateRule, ast.parse, ast.walk, rules.list|get|create|update|delete ' +
      '(mutations; no batching)',
    description:
      "Inputs are the REST routes' request bodies (/api/compile, /api/validate-rule, /api/ast/parse, " +
      '/api/ast/walk); answers are tRPC envelopes {result: {data}} or {error: {message, code, data}}.',
    responses: {
      200: { description: 'tRPC result envelope' },
      400: { description: 'Input fails the schema, or a batch call' },
      401: { description: 'No credentials' },
      404: { description: 'No such procedure' },
      413: { description: 'Body too large' },
    },
  });
}
