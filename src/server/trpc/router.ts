import { initTRPC, TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppDeps } from '../deps.js';
import { ConfigError } from '../../core/errors/index.js';
import { issueMessages } from '../../core/ast/issues.js';
import type { ZodError, ZodType } from 'zod';
import { validateRuleRequestSchema } from '../../core/ast/validate-rule.js';
import { astWalkRequestSchema } from '../../core/ast/walk.js';
import { parseRulesRequestSchema } from '../../core/ast/list.js';
import { compileFor, streamedCompile, compileRequest } from '../compile/service.js';
import { clientMessage, statusOf } from '../problem.js';
import { listAnswerJson, poolCall, validateRuleAnswer } from '../routes/rules.js';
import { callerOf } from '../access/gate.js';
import { ruleSetCreate, ruleSetId, ruleSetList, ruleSetPatch, ruleSetService } from '../rule-sets/rule-sets.js';

/** What every procedure sees: the request's Hono context (the access gate has already let the caller in). */
export interface TrpcContext {
  c: Context;
}

const CODE_BY_STATUS: Readonly<Record<number, TRPC_ERROR_CODE_KEY>> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  413: 'PAYLOAD_TOO_LARGE',
  422: 'UNPROCESSABLE_CONTENT',
  429: 'TOO_MANY_REQUESTS',
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
};

/** The tRPC error code of an HTTP status. */
export function trpcCodeOf(status: number): TRPC_ERROR_CODE_KEY {
  return CODE_BY_STATUS[status] ?? (status >= 500 ? 'INTERNAL_SERVER_ERROR' : 'BAD_REQUEST');
}

/**
 * The procedures of `/api/trpc`, over the REST routes' own input schemas and functions. A
 * failure gets the status every path gives it (`statusOf`) as its tRPC code, and the message a
 * client may read (`clientMessage`).
 */
export function createTrpcRouter(deps: AppDeps, log: (message: string) => void) {
  const t = initTRPC.context<TrpcContext>().create({
    isDev: false,
    errorFormatter: ({ shape, error }) => {
      // Input issues (zod's, through tRPC's Standard Schema call) as the REST routes word them.
      const cause = error.cause as { issues?: unknown } | undefined;
      const issues = error.code === 'BAD_REQUEST' && Array.isArray(cause?.issues) ? (cause as ZodError) : null;
      const { stack: _stack, ...data } = shape.data as typeof shape.data & { stack?: string };
      return {
        ...shape,
        message: issues ? issueMessages(issues).join('; ') : shape.message,
        data: { ...data, ...(error.cause instanceof ConfigError ? { errors: error.cause.issues } : {}) },
      };
    },
  });

  const procedure = t.procedure.use(async ({ ctx, next }) => {
    const result = await next();
    if (result.ok || result.error.code !== 'INTERNAL_SERVER_ERROR' || !(result.error.cause instanceof Error))
      return result;
    const cause = result.error.cause;
    const status = statusOf(cause);
    if (status === 500) log(`unhandled error on ${ctx.c.req.path}: ${cause.stack ?? cause.message}`);
    throw new TRPCError({ code: trpcCodeOf(status), message: clientMessage(cause), cause });
  });

  const ruleSets = ruleSetService(deps);
  /** A `/api/ast/*` twin: its answer comes serialized from `listAnswerJson`, as the REST route's does. */
  const listProcedure = <S extends ZodType>(op: 'parse' | 'walk', schema: S) =>
    procedure
      .input(schema)
      .mutation(async ({ input, ctx }) =>
        serializedAnswer<Record<string, unknown>>(ctx.c, await listAnswerJson(op, input, deps.pool, poolCall(ctx.c))),
      );

  // Mutations, like the REST routes' POSTs: inputs stay out of URLs, under the body limits and the bot challenge.
  return t.router({
    compile: procedure.input(compileRequest).mutation(async ({ input, ctx }) => {
      const { deps: own, ...checked } = compileFor(deps, callerOf(ctx.c), input.configuration);
      return { success: true as const, ...(await streamedCompile(own, checked, undefined, ctx.c.req.raw.signal)) };
    }),
    validateRule: procedure
      .input(validateRuleRequestSchema)
      .mutation(({ input, ctx }) => validateRuleAnswer(input, deps.pool, poolCall(ctx.c))),
    ast: t.router({
      parse: listProcedure('parse', parseRulesRequestSchema),
      walk: listProcedure('walk', astWalkRequestSchema),
    }),
    // The REST rule-set routes' schemas and access rules; answers are their bodies' values.
    rules: t.router({
      list: procedure.input(ruleSetList).mutation(({ input, ctx }) => ruleSets.list(callerOf(ctx.c), input)),
      get: procedure.input(ruleSetId).mutation(({ input, ctx }) => ruleSets.get(callerOf(ctx.c), input.id)),
      create: procedure.input(ruleSetCreate).mutation(({ input, ctx }) => ruleSets.create(callerOf(ctx.c), input)),
      update: procedure
        .input(ruleSetId.extend({ patch: ruleSetPatch }))
        .mutation(({ input, ctx }) => ruleSets.update(callerOf(ctx.c), input.id, input.patch)),
      delete: procedure.input(ruleSetId).mutation(({ input, ctx }) => ruleSets.remove(callerOf(ctx.c), input.id)),
    }),
  });
}

export type AppRouter = ReturnType<typeof createTrpcRouter>;

/**
 * A procedure's answer that a worker has already serialized (`/api/ast/*`'s twins): the procedure
 * gives tRPC a marker, and the route puts the bytes in its place in tRPC's envelope, so the main
 * thread never parses nor serializes an answer of tens of MiB.
 */
const answers = new WeakMap<Context, Uint8Array>();
const MARKER = '\u0000flc:serialized-answer';
const MARKER_JSON = JSON.stringify(MARKER);

/** What a procedure returns for `bytes` (the JSON of a `T`); `spliceSerialized` sends the bytes. */
function serializedAnswer<T>(c: Context, bytes: Uint8Array): T {
  answers.set(c, bytes);
  return MARKER as unknown as T;
}

/** `handler` (tRPC's), with a serialized answer put in place of its marker. */
export function spliceSerialized(handler: MiddlewareHandler): MiddlewareHandler {
  return async (c, next) => {
    const res = await handler(c, next);
    const bytes = answers.get(c);
    if (!bytes || !res) return res;
    answers.delete(c);
    const text = await res.text();
    const at = text.indexOf(MARKER_JSON);
    const headers = new Headers(res.headers);
    headers.delete('content-length');
    const body =
      at < 0
        ? text
        : Buffer.concat([Buffer.from(text.slice(0, at)), bytes, Buffer.from(text.slice(at + MARKER_JSON.length))]);
    return new Response(body, { status: res.status, headers });
  };
}
