import { type OpenAPIHono, z } from '@hono/zod-openapi';
import type { AppDeps } from '../deps.js';
import { refuse } from '../problem.js';
import { callerOf } from '../access/gate.js';
import { recordAudit } from '../audit/trail.js';
import { adminRoute, audited, pathParam } from './admin-system/route.js';
import { checkFlag, FLAG_KEY, type FlagDefinition, flagFields } from '../flags/flag-schema.js';
import type { StoredFlag } from '../store/admin.js';

const partial = z.object(flagFields).partial();

/** Feature flags kept in flc's own store (`/admin/config/feature-flags`): no outside service. */
export function registerFeatureFlagRoutes(app: OpenAPIHono, deps: AppDeps): void {
  const save = async (
    c: Parameters<typeof callerOf>[0],
    f: Omit<FlagDefinition, 'type'> & { type?: FlagDefinition['type'] },
  ) => {
    const { problems, type } = checkFlag(f);
    if (problems.length > 0) refuse(422, problems.join('; '));
    const stored: StoredFlag = {
      ...f,
      type,
      updated_at: new Date(deps.now()).toISOString(),
      updated_by: callerOf(c).user?.email ?? 'unknown',
    };
    await deps.store.putFlag(stored);
    return stored;
  };

  adminRoute(app, {
    method: 'get',
    path: '/admin/config/feature-flags',
    ...audited('admin:read', 'flag.list', 'feature_flag'),
    summary: 'Feature flags',
    handler: async (c) => {
      const items = await deps.store.flags();
      return c.json({ success: true, total: items.length, items });
    },
  });
  adminRoute(app, {
    method: 'post',
    path: '/admin/config/feature-flags',
    ...audited('flags:write', 'flag.create', 'feature_flag'),
    summary: 'Create a feature flag',
    status: 201,
    body: partial.extend({
      key: z.string().regex(FLAG_KEY, 'letters, digits, hyphens and underscores'),
      enabled: flagFields.enabled.default(false),
      default_variation: flagFields.default_variation,
      variations: flagFields.variations,
      rules: flagFields.rules.default([]),
      description: flagFields.description.default(''),
    }),
    failures: { 409: 'A flag with that key exists', 422: 'Invalid flag' },
    handler: async (c, { body }) => {
      if (await deps.store.flag(body.key)) refuse(409, `A flag ${body.key} already exists`);
      const flag = await save(c, body);
      await recordAudit(c, deps, { resourceId: body.key, newValues: flag });
      return c.json({ success: true, flag }, 201);
    },
  });
  adminRoute(app, {
    method: 'patch',
    path: '/admin/config/feature-flags/{key}',
    ...audited('flags:write', 'flag.update', 'feature_flag'),
    summary: 'Change a feature flag (merged over the current definition)',
    params: pathParam('key'),
    body: partial,
    failures: { 404: 'No such flag', 422: 'Invalid flag' },
    handler: async (c, { params, body }) => {
      const current = await deps.store.flag(params.key);
      if (!current) refuse(404, `No flag ${params.key}`);
      const { updated_at: _a, updated_by: _b, ...definition } = current;
      // A new set of variations without a type re-infers it; otherwise the stored type stays.
      const type = body.type ?? (body.variations ? undefined : (definition.type as FlagDefinition['type']));
      const merged = { ...(definition as unknown as FlagDefinition), ...body, key: params.key, type };
      const flag = await save(c, merged);
      await recordAudit(c, deps, { oldValues: current, newValues: flag });
      return c.json({ success: true, flag });
    },
  });
  adminRoute(app, {
    method: 'delete',
    path: '/admin/config/feature-flags/{key}',
    ...audited('flags:write', 'flag.delete', 'feature_flag'),
    summary: 'Delete a feature flag',
    params: pathParam('key'),
    failures: { 404: 'No such flag' },
    handler: async (c, { params }) => {
      const current = await deps.store.flag(params.key);
      if (!current || !(await deps.store.deleteFlag(params.key))) refuse(404, `No flag ${params.key}`);
      await recordAudit(c, deps, { oldValues: current });
      return c.json({ success: true, message: `Deleted the flag ${params.key}` });
    },
  });
}
