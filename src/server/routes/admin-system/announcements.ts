import { type OpenAPIHono, z } from '@hono/zod-openapi';
import type { AppDeps } from '../../deps.js';
import type { ConfigRecord } from '../../store/config-sections.js';
import { problem } from '../../problem.js';
import { callerOf } from '../../access/gate.js';
import { recordAudit } from '../../audit/trail.js';
import { adminRoute, audited, idParam } from './route.js';

const when = z.iso.datetime({ offset: true }).nullable();
const fields = {
  body: z.string().optional(),
  severity: z.enum(['info', 'warning', 'error', 'success']).optional(),
  active_from: when.optional(),
  active_until: when.optional(),
};

/** Whether an announcement shows at `at`: active, and inside `active_from`..`active_until` (null: open). */
export function isCurrent(a: ConfigRecord, at: number): boolean {
  if (Number(a.is_active) !== 1) return false;
  if (a.active_from && Date.parse(String(a.active_from)) > at) return false;
  if (a.active_until && Date.parse(String(a.active_until)) <= at) return false;
  return true;
}

/**
 * What is wrong with a window whose end is not after its start (null: nothing; an open end is
 * fine). The one check of an announcement's window, for its routes and the configuration import.
 */
export function badWindow(from: unknown, until: unknown): string | null {
  if (!from || !until || Date.parse(String(from)) < Date.parse(String(until))) return null;
  return `active_from (${from}) must be before active_until (${until})`;
}

/** Announcements (`/admin/system/announcements`); the current ones are in `my-context`. */
export function registerAnnouncementRoutes(app: OpenAPIHono, deps: AppDeps): void {
  const at = () => new Date(deps.now()).toISOString();
  adminRoute(
    app,
    {
      method: 'get',
      path: '/admin/system/announcements',
      ...audited('admin:read', 'announcement.list', 'announcement'),
      summary: 'Announcements',
    },
    async (c) => {
      const now = deps.now();
      const rows = await deps.store.configRows('announcements');
      return c.json({ success: true, announcements: rows.map((a) => ({ ...a, current: isCurrent(a, now) })) });
    },
  );
  adminRoute(
    app,
    {
      method: 'post',
      path: '/admin/system/announcements',
      ...audited('config:write', 'announcement.create', 'announcement'),
      summary: 'Create an announcement',
      status: 201,
      body: z.object({ title: z.string().min(1), ...fields }),
      failures: { 422: 'active_from not before active_until' },
    },
    async (c, { body }) => {
      const bad = badWindow(body.active_from, body.active_until);
      if (bad) return problem(c, 422, bad);
      const announcement = await deps.store.createConfigRow(
        'announcements',
        { severity: 'info', ...body, created_by: callerOf(c).user?.email ?? '' },
        at(),
      );
      await recordAudit(c, deps, { resourceId: String(announcement.id), newValues: announcement });
      return c.json({ success: true, announcement }, 201);
    },
  );
  adminRoute(
    app,
    {
      method: 'patch',
      path: '/admin/system/announcements/{id}',
      ...audited('config:write', 'announcement.update', 'announcement'),
      summary: 'Change an announcement',
      params: idParam,
      body: z.object({ title: z.string().min(1).optional(), ...fields, is_active: z.boolean().optional() }),
      failures: { 404: 'No such announcement', 422: 'active_from not before active_until' },
    },
    async (c, { params, body }) => {
      const [stored] = await deps.store.configRows('announcements', { id: Number(params.id) });
      if (!stored) return problem(c, 404, `No announcement ${params.id}`);
      // A change of either end is checked against the other as it will be (a row stored before
      // this check may hold a bad window; a change of its title alone is not refused for it).
      const from = body.active_from === undefined ? stored.active_from : body.active_from;
      const until = body.active_until === undefined ? stored.active_until : body.active_until;
      const bad = body.active_from === undefined && body.active_until === undefined ? null : badWindow(from, until);
      if (bad) return problem(c, 422, bad);
      const changed = await deps.store.updateConfigRow('announcements', { id: Number(params.id) }, body, at());
      if (!changed) return problem(c, 404, `No announcement ${params.id}`);
      await recordAudit(c, deps, { oldValues: changed.before, newValues: changed.after });
      return c.json({ success: true, announcement: changed.after });
    },
  );
  adminRoute(
    app,
    {
      method: 'delete',
      path: '/admin/system/announcements/{id}',
      ...audited('config:write', 'announcement.delete', 'announcement'),
      summary: 'Delete an announcement',
      params: idParam,
      failures: { 404: 'No such announcement' },
    },
    async (c, { params }) => {
      const gone = await deps.store.deleteConfigRow('announcements', { id: Number(params.id) });
      if (!gone) return problem(c, 404, `No announcement ${params.id}`);
      await recordAudit(c, deps, { oldValues: gone });
      return c.json({ success: true, message: `Deleted the announcement ${params.id}` });
    },
  );
}
