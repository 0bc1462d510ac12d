import { overrideRefusal } from '../../access/override-scope.js';
import { type OpenAPIHono, z } from '@hono/zod-openapi';
import type { AppDeps } from '../../deps.js';
import { problem } from '../../problem.js';
import { recordAudit } from '../../audit/trail.js';
import { adminRoute, audited, idParam, pathParam } from './route.js';
import { asSpecRow, jsonText } from './json-columns.js';

/** The tiers the gate itself goes by (anonymous callers, signed-in users, administrators): never deleted. */
const BUILT_IN_TIERS = new Set(['anonymous', 'free', 'pro', 'admin']);
/**
 * The scopes API keys are made with (`compile`, `rules` by default; `admin` for admin routes):
 * never deleted, since a scope cannot be made again through a route (`PUT` changes one that exists).
 */
const BUILT_IN_SCOPES = new Set(['compile', 'rules', 'admin']);
const tierName = z.string().min(1);
const scopes = jsonText(z.array(z.string().min(1)).nullable());

/** Tiers, scopes and endpoint overrides (`/admin/system/tiers|scopes|endpoints`). */
export function registerAccessConfigRoutes(app: OpenAPIHono, deps: AppDeps): void {
  const at = () => new Date(deps.now()).toISOString();
  const tierExists = async (name: string) => (await deps.store.configRows('tiers', { tier_name: name })).length > 0;

  adminRoute(
    app,
    {
      method: 'get',
      path: '/admin/system/tiers',
      ...audited('admin:read', 'tier.list', 'tier_config'),
      summary: 'Tiers',
    },
    async (c) =>
      c.json({ success: true, tiers: (await deps.store.configRows('tiers')).map((row) => asSpecRow('tiers', row)) }),
  );
  adminRoute(
    app,
    {
      method: 'put',
      path: '/admin/system/tiers/{name}',
      ...audited('config:write', 'tier.update', 'tier_config'),
      summary: 'Change a tier',
      params: pathParam('name'),
      body: z.object({
        rate_limit: z.number().int().min(0).optional(),
        display_name: z.string().min(1).optional(),
        description: z.string().optional(),
        features: jsonText(z.record(z.string(), z.unknown())).optional(),
        is_active: z.boolean().optional(),
      }),
      failures: { 404: 'No such tier' },
    },
    async (c, { params, body }) => {
      const changed = await deps.store.updateConfigRow('tiers', { tier_name: params.name }, body, at());
      if (!changed) return problem(c, 404, `No tier ${params.name}`);
      await recordAudit(c, deps, { oldValues: changed.before, newValues: changed.after });
      return c.json({ success: true, tier: asSpecRow('tiers', changed.after) });
    },
  );
  adminRoute(
    app,
    {
      method: 'delete',
      path: '/admin/system/tiers/{name}',
      ...audited('config:write', 'tier.delete', 'tier_config'),
      summary: 'Delete a tier no scope or override names',
      params: pathParam('name'),
      failures: { 404: 'No such tier', 409: 'A built-in tier, or one still named by a scope or override' },
    },
    async (c, { params }) => {
      if (BUILT_IN_TIERS.has(params.name)) return problem(c, 409, `The ${params.name} tier is built in`);
      const named = [
        ...(await deps.store.configRows('scopes', { required_tier: params.name })),
        ...(await deps.store.configRows('endpoints', { required_tier: params.name })),
      ];
      if (named.length > 0) return problem(c, 409, `The ${params.name} tier is still required by a scope or override`);
      const gone = await deps.store.deleteConfigRow('tiers', { tier_name: params.name });
      if (!gone) return problem(c, 404, `No tier ${params.name}`);
      await recordAudit(c, deps, { oldValues: gone });
      return c.json({ success: true, message: `Deleted the tier ${params.name}` });
    },
  );

  adminRoute(
    app,
    {
      method: 'get',
      path: '/admin/system/scopes',
      ...audited('admin:read', 'scope.list', 'scope_config'),
      summary: 'Scopes',
    },
    async (c) => c.json({ success: true, scopes: await deps.store.configRows('scopes') }),
  );
  adminRoute(
    app,
    {
      method: 'put',
      path: '/admin/system/scopes/{name}',
      ...audited('config:write', 'scope.update', 'scope_config'),
      summary: 'Change a scope',
      params: pathParam('name'),
      body: z.object({
        display_name: z.string().min(1).optional(),
        description: z.string().optional(),
        required_tier: tierName.optional(),
        is_active: z.boolean().optional(),
      }),
      failures: { 404: 'No such scope', 422: 'Unknown tier' },
    },
    async (c, { params, body }) => {
      if (body.required_tier && !(await tierExists(body.required_tier)))
        return problem(c, 422, `No tier ${body.required_tier}`);
      const changed = await deps.store.updateConfigRow('scopes', { scope_name: params.name }, body, at());
      if (!changed) return problem(c, 404, `No scope ${params.name}`);
      await recordAudit(c, deps, { oldValues: changed.before, newValues: changed.after });
      return c.json({ success: true, scope: changed.after });
    },
  );
  adminRoute(
    app,
    {
      method: 'delete',
      path: '/admin/system/scopes/{name}',
      ...audited('config:write', 'scope.delete', 'scope_config'),
      summary: 'Delete a scope',
      params: pathParam('name'),
      failures: { 404: 'No such scope', 409: 'A built-in scope' },
    },
    async (c, { params }) => {
      if (BUILT_IN_SCOPES.has(params.name))
        return problem(c, 409, `The ${params.name} scope is built in: deactivate it instead (is_active: false)`);
      const gone = await deps.store.deleteConfigRow('scopes', { scope_name: params.name });
      if (!gone) return problem(c, 404, `No scope ${params.name}`);
      await recordAudit(c, deps, { oldValues: gone });
      return c.json({ success: true, message: `Deleted the scope ${params.name}` });
    },
  );

  adminRoute(
    app,
    {
      method: 'get',
      path: '/admin/system/endpoints',
      ...audited('admin:read', 'endpoint.list', 'endpoint_override'),
      summary: 'Endpoint overrides',
    },
    async (c) =>
      c.json({
        success: true,
        endpoints: (await deps.store.configRows('endpoints')).map((row) => asSpecRow('endpoints', row)),
      }),
  );
  const override = z.object({
    required_tier: tierName.nullable().optional(),
    required_scopes: scopes.optional(),
    is_public: z.boolean().optional(),
  });
  adminRoute(
    app,
    {
      method: 'post',
      path: '/admin/system/endpoints',
      ...audited('config:write', 'endpoint.create', 'endpoint_override'),
      summary: 'Create an endpoint override',
      status: 201,
      body: override.extend({
        path_pattern: z.string().regex(/^\/\S*$/, 'a path starting with /, optionally ending in /*'),
        method: z
          .string()
          .regex(/^(\*|[A-Za-z]+)$/)
          .transform((m) => m.toUpperCase())
          .default('*'),
      }),
      failures: {
        409: 'An override of that path and method exists',
        422: 'Unknown tier, or a path and method reaching no route or only administrators’ routes',
      },
    },
    async (c, { body }) => {
      const pointless = overrideRefusal(c.var.guards.routes(), body.path_pattern, body.method);
      if (pointless) return problem(c, 422, pointless);
      if (body.required_tier && !(await tierExists(body.required_tier)))
        return problem(c, 422, `No tier ${body.required_tier}`);
      const endpoint = await deps.store.createConfigRow('endpoints', body, at());
      await recordAudit(c, deps, { resourceId: String(endpoint.id), newValues: endpoint });
      return c.json({ success: true, endpoint: asSpecRow('endpoints', endpoint) }, 201);
    },
  );
  adminRoute(
    app,
    {
      method: 'put',
      path: '/admin/system/endpoints/{id}',
      ...audited('config:write', 'endpoint.update', 'endpoint_override'),
      summary: 'Change an endpoint override',
      params: idParam,
      body: override.extend({ is_active: z.boolean().optional() }),
      failures: { 404: 'No such override', 422: 'Unknown tier' },
    },
    async (c, { params, body }) => {
      if (body.required_tier && !(await tierExists(body.required_tier)))
        return problem(c, 422, `No tier ${body.required_tier}`);
      const changed = await deps.store.updateConfigRow('endpoints', { id: Number(params.id) }, body, at());
      if (!changed) return problem(c, 404, `No endpoint override ${params.id}`);
      await recordAudit(c, deps, { oldValues: changed.before, newValues: changed.after });
      return c.json({ success: true, endpoint: asSpecRow('endpoints', changed.after) });
    },
  );
  adminRoute(
    app,
    {
      method: 'delete',
      path: '/admin/system/endpoints/{id}',
      ...audited('config:write', 'endpoint.delete', 'endpoint_override'),
      summary: 'Delete an endpoint override',
      params: idParam,
      failures: { 404: 'No such override' },
    },
    async (c, { params }) => {
      const gone = await deps.store.deleteConfigRow('endpoints', { id: Number(params.id) });
      if (!gone) return problem(c, 404, `No endpoint override ${params.id}`);
      await recordAudit(c, deps, { oldValues: gone });
      return c.json({ success: true, message: `Deleted the endpoint override ${params.id}` });
    },
  );
}
