import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppDeps } from '../../deps.js';
import { callerOf } from '../../access/gate.js';
import { evaluateFlag } from '../../flags/evaluate.js';
import type { FlagDefinition } from '../../flags/flag-schema.js';
import { adminRoute, audited } from './route.js';
import { isCurrent } from './announcements.js';
import { asSpecRow } from './json-columns.js';

/** `GET /admin/system/my-context`: who the caller is to the admin system (any administrator). */
export function registerContextRoutes(app: OpenAPIHono, deps: AppDeps): void {
  adminRoute(app, {
    method: 'get',
    path: '/admin/system/my-context',
    ...audited(null, 'context.read', 'admin_context'),
    summary: "The caller's roles, permissions, flags and news",
    handler: async (c) => {
      const caller = callerOf(c);
      const user = caller.user;
      const now = deps.now();
      const nowIso = new Date(now).toISOString();
      const [assignments, permissions, tiers, scopes, flags, announcements] = await Promise.all([
        user ? deps.store.assignments({ identity_user_id: user.id }) : [],
        caller.permissions(),
        deps.store.configRows('tiers'),
        deps.store.configRows('scopes'),
        deps.store.flags(),
        deps.store.configRows('announcements'),
      ]);
      const live = assignments.filter((a) => a.expires_at === null || a.expires_at > nowIso);
      // The earliest expiry among the live assignments: when the caller's permissions next shrink.
      const expiries = live.map((a) => a.expires_at).filter((e): e is string => e !== null);
      const attributes = { id: user?.id, email: user?.email, role: user?.role, tier: user?.tier };
      const context = {
        identity: user ? attributes : null,
        via: caller.key ? 'api_key' : 'session',
        role: live.map((a) => a.role_name).join(',') || null,
        roles: live.map((a) => a.role_name),
        permissions: [...permissions].sort(),
        expires_at: expiries.length > 0 ? expiries.sort()[0] : null,
        tiers: tiers.map((t) => asSpecRow('tiers', t)),
        scopes,
        flags: Object.fromEntries(
          flags.map((f) => [
            f.key,
            evaluateFlag(f as unknown as FlagDefinition, { userId: user?.id ?? '', attributes }),
          ]),
        ),
        announcements: announcements.filter((a) => isCurrent(a, now)),
      };
      return c.json({ success: true, context });
    },
  });
}
