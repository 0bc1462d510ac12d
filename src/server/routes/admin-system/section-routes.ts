import type { OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppDeps } from '../../deps.js';
import type { ConfigRecord } from '../../store/config-sections.js';
import { refuse } from '../../problem.js';
import { recordAudit } from '../../audit/trail.js';
import { adminRoute, audited, idParam, pathParam } from './route.js';
import { asSpecRow } from './json-columns.js';

/**
 * A write route of a section. Its `check` runs before the write, with the body and the row's name
 * (`{name}` or `{id}`; none for a create), and refuses (throws) what it must.
 */
interface SectionWrite {
  summary: string;
  body: z.ZodType;
  failures?: Record<number, string>;
  // biome-ignore lint/suspicious/noExplicitAny: each section's check reads the fields its own schema validated
  check?: (c: Context, body: any, name: string) => Promise<void>;
}

/**
 * The list, create, change and delete routes of one configuration section (tiers, scopes,
 * endpoint overrides, announcements, roles), which differ only in their schemas and checks.
 */
export interface SectionRoutes {
  /**
   * Also the path (`/admin/system/tiers`) and the list's answer key; without its `s`, one row's
   * answer key and the audit action's prefix (`tier.update`).
   */
  section: 'tiers' | 'scopes' | 'endpoints' | 'announcements' | 'roles';
  /** A row's name in messages (`No tier free`, `Deleted the tier free`); the singular of `section` unless said. */
  noun?: string;
  /** The audit resource type. */
  resource: string;
  /** The permission the writes need (the list needs `admin:read`). */
  write: string;
  /** The natural-key column a `{name}` path parameter names; without it, rows go by their integer `{id}`. */
  nameColumn?: string;
  listSummary: string;
  /** A listed row as answered (JSON columns as JSON text unless said). */
  listed?: (row: ConfigRecord, now: number) => ConfigRecord;
  // biome-ignore lint/suspicious/noExplicitAny: as in SectionWrite
  create?: SectionWrite & { values?: (c: Context, body: any) => ConfigRecord; auditId?: string };
  update?: SectionWrite & { method: 'put' | 'patch' };
  remove?: Omit<SectionWrite, 'body'>;
}

/** Registers a section's routes from its descriptor. */
export function registerSectionRoutes(app: OpenAPIHono, deps: AppDeps, s: SectionRoutes): void {
  const at = () => new Date(deps.now()).toISOString();
  const one = s.section.slice(0, -1);
  const noun = s.noun ?? one;
  const path = `/admin/system/${s.section}`;
  const show = (row: ConfigRecord) => asSpecRow(s.section, row);
  const listed = s.listed ?? show;
  const params = s.nameColumn ? pathParam('name') : idParam;
  const row = (p: Record<string, string>) => {
    const name = s.nameColumn ? p.name : p.id;
    return { name, where: { [s.nameColumn ?? 'id']: s.nameColumn ? name : Number(name) } };
  };
  const rowPath = `${path}/${s.nameColumn ? '{name}' : '{id}'}`;
  const audit = (verb: string) => audited(verb === 'list' ? 'admin:read' : s.write, `${one}.${verb}`, s.resource);

  adminRoute(app, {
    method: 'get',
    path,
    ...audit('list'),
    summary: s.listSummary,
    handler: async (c) => {
      const now = deps.now();
      const rows = await deps.store.configRows(s.section);
      return c.json({ success: true, [s.section]: rows.map((r) => listed(r, now)) });
    },
  });
  const { create, update, remove } = s;
  if (create)
    adminRoute(app, {
      method: 'post',
      path,
      ...audit('create'),
      status: 201,
      ...create,
      handler: async (c, { body }) => {
        await create.check?.(c, body, '');
        const created = await deps.store.createConfigRow(s.section, create.values?.(c, body) ?? body, at());
        await recordAudit(c, deps, { resourceId: String(created[create.auditId ?? 'id']), newValues: created });
        return c.json({ success: true, [one]: show(created) }, 201);
      },
    });
  if (update)
    adminRoute(app, {
      path: rowPath,
      ...audit('update'),
      params,
      ...update,
      handler: async (c, { params, body }) => {
        const { name, where } = row(params);
        await update.check?.(c, body, name);
        const changed = await deps.store.updateConfigRow(s.section, where, body, at());
        if (!changed) refuse(404, `No ${noun} ${name}`);
        await recordAudit(c, deps, { oldValues: changed.before, newValues: changed.after });
        return c.json({ success: true, [one]: show(changed.after) });
      },
    });
  if (remove)
    adminRoute(app, {
      method: 'delete',
      path: rowPath,
      ...audit('delete'),
      params,
      ...remove,
      handler: async (c, { params }) => {
        const { name, where } = row(params);
        await remove.check?.(c, undefined, name);
        const gone = await deps.store.deleteConfigRow(s.section, where);
        if (!gone) refuse(404, `No ${noun} ${name}`);
        await recordAudit(c, deps, { oldValues: gone });
        return c.json({ success: true, message: `Deleted the ${noun} ${name}` });
      },
    });
}
