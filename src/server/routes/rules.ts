import { z, type OpenAPIHono, type RouteConfig } from '@hono/zod-openapi';
import { jsonBody, jsonResponse, route, okBody, serializedJson } from '../routing/route.js';
import { validateRule, validateRuleRequestSchema, validateRuleWithoutRegex } from '../../core/ast/validate-rule.js';
import { astWalkRequestSchema } from '../../core/ast/walk.js';
import { parseRulesRequestSchema, validateListRequestSchema } from '../../core/ast/list.js';
import { DEFAULT_ANSWER_LIMIT_BYTES, listAnswerBytes, type ListOperation } from '../../core/ast/answers.js';
import { NODE_TYPES } from '../../core/ast/node-types.js';
import { VALIDATOR_OPTIONS, type ValidatorName } from '../../core/rules/validator-verdicts.js';
import { problemResponse } from '../problem.js';
import type { CompilePool, PoolCall } from '../../node/compile-pool.js';
import type { Context } from 'hono';
import { callerOf } from '../access/gate.js';
import { poolShare } from '../compile/service.js';

const failure = z.object({ success: z.literal(false), error: z.string() });

const validateRuleResponse = okBody({
  valid: z.boolean(),
  rule: z.string(),
  ruleType: z.string(),
  category: z.string().optional(),
  syntax: z.string().optional(),
  ast: z.record(z.string(), z.unknown()).optional(),
  error: z.string().optional(),
  duration: z.string(),
  testUrl: z.string().optional(),
  matchResult: z.boolean().optional(),
  exception: z.boolean().optional(),
  dependsOn: z.array(z.string()).optional(),
  validators: z
    .record(
      z.enum(Object.keys(VALIDATOR_OPTIONS) as [ValidatorName, ...ValidatorName[]]),
      z.object({
        kept: z.boolean(),
        reason: z.string().optional().describe('why the transformation drops the rule'),
        rule: z.string().optional().describe('the rule as the IP variants rewrite it before checking'),
      }),
    )
    .describe("whether each Validate transformation of a compile keeps the rule (compile's verdict, not AGTree's)"),
});

const walkResponse = okBody({
  nodes: z.array(
    z.object({
      type: z.enum(NODE_TYPES),
      depth: z.number().int(),
      key: z.string().nullable().optional(),
      index: z.number().int().nullable().optional(),
      node: z.record(z.string(), z.unknown()),
    }),
  ),
  summary: z.record(z.string(), z.number()),
  duration: z.string(),
});

/**
 * The 200 body of `/api/validate-rule` (and the tRPC `validateRule` procedure). A match may run the
 * rule's regular expression, which can backtrack for ever: with a pool, such a request runs there,
 * with a budget, and only what needs no regular expression is answered on this thread.
 */
export async function validateRuleAnswer(
  input: z.infer<typeof validateRuleRequestSchema>,
  pool?: CompilePool,
  call: PoolCall = {},
): Promise<z.infer<typeof validateRuleResponse>> {
  const result = pool
    ? (validateRuleWithoutRegex(input) ?? (await pool.validateRule(input, call)))
    : validateRule(input);
  return result as z.infer<typeof validateRuleResponse>;
}

/**
 * The 200 body of `/api/ast/walk`, `/api/ast/parse` or `/api/validate` as JSON bytes. With a pool
 * (the server's), it is built in a worker, with a deadline and the pool's answer limit, and this
 * thread only sends the bytes; without one, here, with the default limit.
 */
export function listAnswerJson(
  op: ListOperation,
  input: unknown,
  pool?: CompilePool,
  call: PoolCall = {},
): Promise<Uint8Array> {
  return pool
    ? pool.listAnswer(op, input, call)
    : Promise.resolve(listAnswerBytes(op, input, DEFAULT_ANSWER_LIMIT_BYTES));
}

/**
 * A request's pool task: counted in its caller's share, and cancelled (out of the queue, or its
 * worker stopped) when the client goes away.
 */
export const poolCall = (c: Context): PoolCall => ({ share: poolShare(callerOf(c)), signal: c.req.raw.signal });

/** Body-size limits, enforced before the body is parsed (413 beyond). */
export const BODY_LIMITS = { rule: 64 * 1024, list: 3 * 1024 * 1024 } as const;

/** What the rule routes share: a POST of the `rules` scope, a schema failure answered as `{success, error}`. */
const ruleRoute = { method: 'post', access: { tier: 'free', scope: 'rules' }, badBody: 'envelope' } as const;

/** What a list route (`/api/ast/walk`, `/api/ast/parse`, `/api/validate`) declares itself. */
interface ListRoute extends Pick<RouteConfig, 'path' | 'summary' | 'responses'> {
  challenge?: boolean;
  body: z.ZodType;
}

/** `/api/validate-rule`, `/api/validate`, `/api/ast/parse`, `/api/ast/walk`. */
export function registerRuleRoutes(app: OpenAPIHono, pool?: CompilePool): void {
  app.openapi(
    route({
      ...ruleRoute,
      path: '/api/validate-rule',
      bodyLimit: BODY_LIMITS.rule,
      summary: 'Parse one filter rule and report its validity',
      request: { body: jsonBody(validateRuleRequestSchema) },
      responses: {
        200: jsonResponse('The rule is valid or invalid (both 200)', validateRuleResponse),
        422: jsonResponse('Schema failure; messages joined by "; "', failure),
      },
    }),
    async (c) => c.json(await validateRuleAnswer(c.req.valid('json'), pool, poolCall(c)), 200),
  );

  /** A list route: its 200 body comes as JSON bytes from `listAnswerJson`. */
  const listRoute = (op: ListOperation, { body, ...config }: ListRoute) =>
    app.openapi(
      route({ ...ruleRoute, bodyLimit: BODY_LIMITS.list, ...config, request: { body: jsonBody(body) } }),
      async (c) => serializedJson(c, await listAnswerJson(op, c.req.valid('json'), pool, poolCall(c))),
    );
  const pastLimits = jsonResponse('Schema failure; past the deadline or the answer limit', failure);

  listRoute('walk', {
    path: '/api/ast/walk',
    challenge: true,
    summary: 'Parse rules or a list and walk the syntax tree',
    body: astWalkRequestSchema,
    responses: {
      200: jsonResponse('Pre-order node list and counts', walkResponse),
      422: jsonResponse(
        'Missing or both of rules/text, out-of-range values, unknown node types; ' +
          'a walk past its deadline or an answer past the answer limit',
        failure,
      ),
      500: problemResponse('Unexpected walker failure'),
    },
  });
  listRoute('parse', {
    path: '/api/ast/parse',
    summary: 'Parse rules: type, category, dialect, validity and tree per rule',
    body: parseRulesRequestSchema,
    responses: {
      200: jsonResponse(
        'Per-rule results',
        okBody({
          results: z.array(z.record(z.string(), z.unknown())),
          duration: z.string(),
        }),
      ),
      422: pastLimits,
    },
  });
  listRoute('validate', {
    path: '/api/validate',
    summary: 'Validate every line of a list',
    body: validateListRequestSchema,
    responses: {
      200: jsonResponse(
        'Per-line errors and totals',
        okBody({
          valid: z.boolean(),
          totals: z.record(z.string(), z.number()),
          errors: z.array(z.object({ line: z.number().int(), rule: z.string(), error: z.string() })),
          duration: z.string(),
        }),
      ),
      422: pastLimits,
    },
  });
}
