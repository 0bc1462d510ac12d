import { overrideRefusal } from '../../access/override-scope.js';
import { type OpenAPIHono, z } from '@hono/zod-openapi';
import type { AppDeps } from '../../deps.js';
import { refuse } from '../../problem.js';
import { jsonText } from './json-columns.js';
import { registerSectionRoutes } from './section-routes.js';
import { overrideMethod, overridePath } from '../../config-bundle/validate.js';

/** The tiers the gate itself goes by (anonymous callers, signed-in users, administrators): never deleted. */
const BUILT_IN_TIERS = new Set(['anonymous', 'free', 'pro', 'admin']);
/**
 * The scopes API keys are made with (`compile`, `rules` by default; `admin` for admin routes):
 * never deleted, since a scope cannot be made again through a route (`PUT` changes one that exists).
 */
const BUILT_IN_SCOPES = new Set(['compile', 'rules', 'admin']);
const tierName = z.string().min(1);
const scopes = jsonText(z.array(z.string().min(1)).nullable());
const override = z.object({
  required_tier: tierName.nullable().optional(),
  required_scopes: scopes.optional(),
  is_public: z.boolean().optional(),
});

/** Tiers, scopes and endpoint overrides (`/admin/system/tiers|scopes|endpoints`). */
export function registerAccessConfigRoutes(app: OpenAPIHono, deps: AppDeps): void {
  const knownTier = async (_c: unknown, body: { required_tier?: string | null }) => {
    if (body.required_tier && (await deps.store.configRows('tiers', { tier_name: body.required_tier })).length === 0)
      refuse(422, `No tier ${body.required_tier}`);
  };
  const write = 'config:write';

  registerSectionRoutes(app, deps, {
    section: 'tiers',
    nameColumn: 'tier_name',
    resource: 'tier_config',
    write,
    listSummary: 'Tiers',
    update: {
      method: 'put',
      summary: 'Change a tier',
      body: z.object({
        rate_limit: z.number().int().min(0).optional(),
        display_name: z.string().min(1).optional(),
        description: z.string().optional(),
        features: jsonText(z.record(z.string(), z.unknown())).optional(),
        is_active: z.boolean().optional(),
      }),
      failures: { 404: 'No such tier' },
    },
    remove: {
      summary: 'Delete a tier no scope or override names',
      failures: { 404: 'No such tier', 409: 'A built-in tier, or one still named by a scope or override' },
      check: async (_c, _body, name) => {
        if (BUILT_IN_TIERS.has(name)) refuse(409, `The ${name} tier is built in`);
        const named = [
          ...(await deps.store.configRows('scopes', { required_tier: name })),
          ...(await deps.store.configRows('endpoints', { required_tier: name })),
        ];
        if (named.length > 0) refuse(409, `The ${name} tier is still required by a scope or override`);
      },
    },
  });

  registerSectionRoutes(app, deps, {
    section: 'scopes',
    nameColumn: 'scope_name',
    resource: 'scope_config',
    write,
    listSummary: 'Scopes',
    update: {
      method: 'put',
      summary: 'Change a scope',
      body: z.object({
        display_name: z.string().min(1).optional(),
        description: z.string().optional(),
        required_tier: tierName.optional(),
        is_active: z.boolean().optional(),
      }),
      failures: { 404: 'No such scope', 422: 'Unknown tier' },
      check: knownTier,
    },
    remove: {
      summary: 'Delete a scope',
      failures: { 404: 'No such scope', 409: 'A built-in scope' },
      check: async (_c, _body, name) => {
        if (BUILT_IN_SCOPES.has(name))
          refuse(409, `The ${name} scope is built in: deactivate it instead (is_active: false)`);
      },
    },
  });

  registerSectionRoutes(app, deps, {
    section: 'endpoints',
    noun: 'endpoint override',
    resource: 'endpoint_override',
    write,
    listSummary: 'Endpoint overrides',
    create: {
      summary: 'Create an endpoint override',
      body: override.extend({ path_pattern: overridePath, method: overrideMethod }),
      failures: {
        409: 'An override of that path and method exists',
        422: 'Unknown tier, or a path and method reaching no route or only administrators’ routes',
      },
      check: async (c, body) => {
        const pointless = overrideRefusal(c.var.guards.routes(), body.path_pattern, body.method);
        if (pointless) refuse(422, pointless);
        await knownTier(c, body);
      },
    },
    update: {
      method: 'put',
      summary: 'Change an endpoint override',
      body: override.extend({ is_active: z.boolean().optional() }),
      failures: { 404: 'No such override', 422: 'Unknown tier' },
      check: knownTier,
    },
    remove: { summary: 'Delete an endpoint override', failures: { 404: 'No such override' } },
  });
}
