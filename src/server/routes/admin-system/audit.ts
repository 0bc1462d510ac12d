import { type OpenAPIHono, z } from '@hono/zod-openapi';
import type { AppDeps } from '../../deps.js';
import { adminRoute, audited } from './route.js';
import { pageQuery } from '../paging.js';

/** The audit list: 50 rows unless asked, never more than 100. */
export const AUDIT_LIMITS = { pageDefault: 50, pageMax: 100 } as const;

const text = z.string().min(1).optional();
const when = z.iso.datetime({ offset: true }).optional();

/** The audit log (`GET /admin/system/audit`), newest first; nothing can change or delete its rows. */
export function registerAuditRoutes(app: OpenAPIHono, deps: AppDeps): void {
  adminRoute(app, {
    method: 'get',
    path: '/admin/system/audit',
    ...audited('audit:read', 'audit.read', 'audit_log'),
    summary: 'The audit log, newest first',
    query: pageQuery(AUDIT_LIMITS.pageMax, AUDIT_LIMITS.pageDefault).extend({
      actor_id: text,
      action: text,
      resource_type: text,
      resource_id: text,
      status: z.enum(['success', 'failure', 'denied']).optional(),
      since: when,
      until: when,
    }),
    handler: async (c, { query }) => {
      const { limit, offset, since, until, ...filter } = query;
      const iso = (v: string | undefined) => (v === undefined ? undefined : new Date(v).toISOString());
      const page = await deps.store.audit({ ...filter, since: iso(since), until: iso(until) }, limit, offset);
      return c.json({ success: true, logs: page.logs, total: page.total, limit, offset });
    },
  });
}
