import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { jsonBody, jsonResponse, route, okBody, ok } from '../routing/route.js';
import type { AppDeps } from '../deps.js';
import { callerOf } from '../access/gate.js';
import { problemResponse } from '../problem.js';
import {
  ruleSetCreate,
  ruleSetId,
  ruleSetPatch,
  ruleSetSchema,
  ruleSetService,
  ruleSetSummarySchema,
} from '../rule-sets/rule-sets.js';
import { pageOf, pageQuery } from './paging.js';

const refusals = {
  403: problemResponse('Tier, scope or (for all=true) administrator missing'),
  404: problemResponse("No such rule set (or another user's)"),
  422: problemResponse('The body or a parameter fails the schema, or the per-user limit is reached'),
};
const one = okBody({ ruleSet: ruleSetSchema });

/** `/api/rules` and `/api/rules/:id`: saved rule sets, each its creator's. */
export function registerRuleSetRoutes(app: OpenAPIHono, deps: AppDeps): void {
  const service = ruleSetService(deps);
  const listQuery = pageQuery().extend({
    all: z.enum(['true', 'false']).default('false').openapi({ description: "administrators: every user's rule sets" }),
  });
  app.openapi(
    route({
      method: 'get',
      path: '/api/rules',
      access: { tier: 'free', scope: 'rules' },
      summary: "The caller's saved rule sets (without their rules); all=true: everyone's, for administrators",
      request: { query: listQuery },
      responses: {
        200: jsonResponse('A page of rule sets, oldest first', pageOf('ruleSets', ruleSetSummarySchema)),
        ...refusals,
      },
    }),
    async (c) => {
      const q = c.req.valid('query');
      const page = await service.list(callerOf(c), { ...q, all: q.all === 'true' });
      return ok(c, { ...page, limit: q.limit, offset: q.offset });
    },
  );
  app.openapi(
    route({
      method: 'post',
      path: '/api/rules',
      access: { tier: 'free', scope: 'rules' },
      summary: 'Save a rule set (owned by the caller)',
      request: { body: jsonBody(ruleSetCreate) },
      responses: { 201: jsonResponse('The saved rule set', one), ...refusals },
    }),
    async (c) =>
      c.json({ success: true as const, ruleSet: await service.create(callerOf(c), c.req.valid('json')) }, 201),
  );
  app.openapi(
    route({
      method: 'get',
      path: '/api/rules/{id}',
      access: { tier: 'free', scope: 'rules' },
      summary: 'One saved rule set with its rules (its owner, or an administrator)',
      request: { params: ruleSetId },
      responses: { 200: jsonResponse('The rule set', one), ...refusals },
    }),
    async (c) => ok(c, { ruleSet: await service.get(callerOf(c), c.req.valid('param').id) }),
  );
  app.openapi(
    route({
      method: 'patch',
      path: '/api/rules/{id}',
      access: { tier: 'free', scope: 'rules' },
      summary: 'Change the name, description or rules of one of your rule sets',
      request: { params: ruleSetId, body: jsonBody(ruleSetPatch) },
      responses: { 200: jsonResponse('The rule set as changed', one), ...refusals },
    }),
    async (c) =>
      ok(c, {
        ruleSet: await service.update(callerOf(c), c.req.valid('param').id, c.req.valid('json')),
      }),
  );
  app.openapi(
    route({
      method: 'delete',
      path: '/api/rules/{id}',
      access: { tier: 'free', scope: 'rules' },
      summary: 'Delete one of your rule sets',
      request: { params: ruleSetId },
      responses: {
        200: jsonResponse('Deleted', okBody({ deleted: z.object({ id: z.string() }) })),
        ...refusals,
      },
    }),
    async (c) => ok(c, { deleted: await service.remove(callerOf(c), c.req.valid('param').id) }),
  );
}
