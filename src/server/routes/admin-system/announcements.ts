import { type OpenAPIHono, z } from '@hono/zod-openapi';
import type { AppDeps } from '../../deps.js';
import type { ConfigRecord } from '../../store/config-sections.js';
import { refuse } from '../../problem.js';
import { callerOf } from '../../access/gate.js';
import { registerSectionRoutes } from './section-routes.js';

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
  registerSectionRoutes(app, deps, {
    section: 'announcements',
    resource: 'announcement',
    write: 'config:write',
    listSummary: 'Announcements',
    listed: (a, now) => ({ ...a, current: isCurrent(a, now) }),
    create: {
      summary: 'Create an announcement',
      body: z.object({ title: z.string().min(1), ...fields }),
      failures: { 422: 'active_from not before active_until' },
      check: async (_c, body) => {
        const bad = badWindow(body.active_from, body.active_until);
        if (bad) refuse(422, bad);
      },
      values: (c, body) => ({ severity: 'info', ...body, created_by: callerOf(c).user?.email ?? '' }),
    },
    update: {
      method: 'patch',
      summary: 'Change an announcement',
      body: z.object({ title: z.string().min(1).optional(), ...fields, is_active: z.boolean().optional() }),
      failures: { 404: 'No such announcement', 422: 'active_from not before active_until' },
      check: async (_c, body, id) => {
        const [stored] = await deps.store.configRows('announcements', { id: Number(id) });
        if (!stored) refuse(404, `No announcement ${id}`);
        // A change of either end is checked against the other as it will be (a row stored before
        // this check may hold a bad window; a change of its title alone is not refused for it).
        const from = body.active_from === undefined ? stored.active_from : body.active_from;
        const until = body.active_until === undefined ? stored.active_until : body.active_until;
        const bad = body.active_from === undefined && body.active_until === undefined ? null : badWindow(from, until);
        if (bad) refuse(422, bad);
      },
    },
    remove: { summary: 'Delete an announcement', failures: { 404: 'No such announcement' } },
  });
}
