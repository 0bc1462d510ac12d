import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { jsonBody, jsonResponse, route, okBody, ok } from '../routing/route.js';
import type { Context } from 'hono';
import type { AppDeps } from '../deps.js';
import { type User, type UserPatch, userSchema } from '../store/accounts.js';
import { problemResponse, refuse } from '../problem.js';
import { actOnRefusal } from '../access/privilege.js';
import { hashPassword } from '../auth/password.js';
import { callerOf } from '../access/gate.js';
import { recordAudit } from '../audit/trail.js';
import type { UsageRecorder } from '../access/usage.js';
import { passwordSchema } from './auth.js';
import { emailProblem, IDENTIFIER_LIMITS } from '../auth/identifiers.js';
import { pageOf, pageQuery } from './paging.js';
import { audited } from './admin-system/route.js';

/** The local-users list: limit 1–100 (default 50). Usage: 1–90 days back (default 30). */
export const USER_LIMITS = { pageMax: 100, pageDefault: 50, usageDaysMax: 90, usageDaysDefault: 30 } as const;

const TIERS = ['free', 'pro', 'admin'] as const;
/** The tier a role gets when none is given. */
const defaultTier = (role: 'admin' | 'user') => (role === 'admin' ? 'admin' : 'free');

const notFound = problemResponse('No such user');
const page = pageQuery(USER_LIMITS.pageMax, USER_LIMITS.pageDefault);
const idParam = z.object({ id: z.string() });

/** The specification's Local auth user record. */
const localUser = z.object({
  id: z.string(),
  identifier: z.string(),
  identifier_type: z.enum(['email', 'phone']),
  role: z.enum(['admin', 'user']),
  tier: z.string(),
  api_disabled: z.union([z.literal(0), z.literal(1)]),
  created_at: z.string(),
  updated_at: z.string(),
});
const toLocal = (u: User): z.infer<typeof localUser> => ({
  id: u.id,
  identifier: u.email,
  identifier_type: u.identifierType,
  role: u.role,
  tier: u.tier,
  api_disabled: u.apiDisabled ? 1 : 0,
  created_at: u.createdAt,
  updated_at: u.updatedAt,
});

/** An email address (stored lowercase, at most 254 characters) or an E.164 phone number. */
const identifier = z
  .string()
  .trim()
  .transform((v, ctx) => {
    if (/^\+[1-9]\d{6,14}$/.test(v)) return { value: v, type: 'phone' as const };
    const email = v.toLowerCase();
    const problem = emailProblem(email);
    if (!problem) return { value: email, type: 'email' as const };
    ctx.addIssue({
      code: 'custom',
      message:
        email.length > IDENTIFIER_LIMITS.emailMax
          ? problem
          : 'identifier must be an email address or an E.164 phone number',
    });
    return z.NEVER;
  });

const usage = okBody({
  userId: z.string(),
  total: z.object({ count: z.number().int(), firstSeen: z.string().nullable(), lastSeen: z.string().nullable() }),
  days: z.array(
    z.object({ date: z.string(), count: z.number().int(), routes: z.record(z.string(), z.number().int()) }),
  ),
  lookbackDays: z.number().int(),
});

/**
 * User administration: `/api/admin/users` (list, get, patch, delete, ban, unban),
 * `/admin/local-users` (the specification's local-user records), and usage per user under both
 * prefixes. The access gate has checked the administrator and the permission.
 */
export function registerUserRoutes(app: OpenAPIHono, deps: AppDeps, recorder: UsageRecorder): void {
  const at = () => new Date(deps.now()).toISOString();
  /** The user `id`, or 404. */
  const existing = async (id: string) => (await deps.store.userById(id)) ?? refuse(404, `No user with id ${id}`);

  /**
   * Refuses a change to user `id`: 404 when there is no such user, 403 for the caller's own
   * account (administrators do not ban, delete, demote or disable themselves and so lock
   * everyone out). The user as they are before the change otherwise.
   */
  async function mayChange(c: Context, id: string): Promise<User> {
    const target = await existing(id);
    const caller = callerOf(c);
    if (caller.user?.id === id) refuse(403, 'Administrators cannot change, ban or delete their own account here');
    // No grant above the grantor: a more privileged account is not reset, demoted, banned or deleted.
    const refusal = await actOnRefusal(deps.store, await caller.permissions(), target, at());
    if (refusal) refuse(403, refusal);
    return target;
  }

  async function change(c: Context, id: string, patch: UserPatch): Promise<User> {
    const before = await mayChange(c, id);
    const user = (await deps.store.updateUser(id, patch, at()))!;
    await recordAudit(c, deps, { oldValues: before, newValues: user });
    return user;
  }

  async function usageOf(userId: string, days: number) {
    await recorder.flush();
    const today = Date.parse(`${at().slice(0, 10)}T00:00:00Z`);
    const from = new Date(today - (days - 1) * 86_400_000).toISOString().slice(0, 10);
    const byDay = new Map<string, { date: string; count: number; routes: Record<string, number> }>();
    let count = 0;
    let firstSeen: string | null = null;
    let lastSeen: string | null = null;
    for (const row of await deps.store.usage(userId, from)) {
      const day = byDay.get(row.day) ?? { date: row.day, count: 0, routes: {} };
      byDay.set(row.day, day);
      day.count += row.count;
      day.routes[row.route] = (day.routes[row.route] ?? 0) + row.count;
      count += row.count;
      if (!firstSeen || row.firstSeen < firstSeen) firstSeen = row.firstSeen;
      if (!lastSeen || row.lastSeen > lastSeen) lastSeen = row.lastSeen;
    }
    return {
      userId,
      total: { count, firstSeen, lastSeen },
      days: [...byDay.values()],
      lookbackDays: days,
    };
  }

  /**
   * List, get, change and delete, the same for both views of the users: the account routes' shape
   * under `/api/admin/users`, the specification's local-user records under `/admin/local-users`.
   * They differ in the API-access field of a change: `apiDisabled` (a boolean) or `api_disabled` (0 or 1).
   */
  function registerView(
    prefix: string,
    schema: typeof userSchema | typeof localUser,
    show: (u: User) => z.infer<typeof userSchema> | z.infer<typeof localUser>,
    what: string,
    resource: 'user' | 'local_user',
    patch: { summary: string; api: 'apiDisabled' | 'api_disabled'; value: z.ZodType<boolean | 0 | 1> },
  ): void {
    const audit = (permission: string, action: string) => audited(permission, `${resource}.${action}`, resource);
    app.openapi(
      route({
        method: 'get',
        path: prefix,
        ...audit('users:read', 'list'),
        summary: `List ${what}, oldest first (admin, users:read)`,
        request: { query: page },
        responses: {
          200: jsonResponse(`A page of ${what}`, pageOf('users', schema)),
        },
      }),
      async (c) => {
        const { limit, offset } = c.req.valid('query');
        const { users, total } = await deps.store.usersPage(limit, offset);
        return ok(c, { users: users.map(show), total, limit, offset });
      },
    );

    app.openapi(
      route({
        method: 'get',
        path: `${prefix}/{id}`,
        ...audit('users:read', 'read'),
        summary: `One of the ${what} (admin, users:read)`,
        request: { params: idParam },
        responses: {
          200: jsonResponse('The user', okBody({ user: schema })),
          404: notFound,
        },
      }),
      async (c) => ok(c, { user: show(await existing(c.req.valid('param').id)) }),
    );

    app.openapi(
      route({
        method: 'delete',
        path: `${prefix}/{id}`,
        ...audit('users:manage', 'delete'),
        summary: 'Delete a user with their sessions, keys, roles and usage (admin, users:manage)',
        request: { params: idParam },
        responses: {
          200: jsonResponse('Deleted', okBody({ message: z.string() })),
          404: notFound,
        },
      }),
      async (c) => {
        const { id } = c.req.valid('param');
        const before = await mayChange(c, id);
        await deps.store.deleteUser(id);
        await recordAudit(c, deps, { oldValues: before });
        return ok(c, { message: `User ${id} deleted` });
      },
    );

    app.openapi(
      route({
        method: 'patch',
        path: `${prefix}/{id}`,
        ...audit('users:manage', 'update'),
        summary: patch.summary,
        request: {
          params: idParam,
          body: jsonBody(
            z
              .object({
                role: z.enum(['admin', 'user']).optional(),
                tier: z.enum(TIERS).optional(),
                [patch.api]: patch.value.optional(),
              })
              .strict()
              .refine((b) => Object.keys(b).length > 0, `give at least one of role, tier, ${patch.api}`),
          ),
        },
        responses: {
          200: jsonResponse('The updated user', okBody({ user: schema })),
          404: notFound,
          422: problemResponse('Invalid change'),
        },
      }),
      async (c) => {
        // The schema's API-access key is the view's (computed), which its inferred type cannot name.
        const body = c.req.valid('json') as { role?: 'admin' | 'user'; tier?: string; [api: string]: unknown };
        const api = body[patch.api];
        const user = await change(c, c.req.valid('param').id, {
          role: body.role,
          tier: body.tier ?? (body.role ? defaultTier(body.role) : undefined),
          apiDisabled: api === undefined ? undefined : api === true || api === 1,
        });
        return ok(c, { user: show(user) });
      },
    );
  }

  registerView('/api/admin/users', userSchema, (u) => u, 'users', 'user', {
    summary: "Change a user's role, tier or API access (admin, users:manage)",
    api: 'apiDisabled',
    value: z.boolean(),
  });
  registerView('/admin/local-users', localUser, toLocal, 'local users', 'local_user', {
    summary: 'Change role, tier or api_disabled (admin, users:manage); a role without a tier derives the tier',
    api: 'api_disabled',
    value: z.union([z.literal(0), z.literal(1)]),
  });

  // ---- /api/admin/users ----------------------------------------------------------------

  const banRoute = (action: 'ban' | 'unban', summary: string) => ({
    method: 'post' as const,
    path: `/api/admin/users/{id}/${action}`,
    ...audited('users:manage', `user.${action}`, 'user'),
    summary,
    responses: {
      200: jsonResponse('The user', okBody({ user: userSchema })),
      404: notFound,
    },
  });
  const banReason = z.object({ reason: z.string().trim().max(500).optional() });
  app.openapi(
    route({
      ...banRoute('ban', 'Ban a user: their sessions end and their keys stop working (admin, users:manage)'),
      request: { params: idParam, body: { required: false, content: { 'application/json': { schema: banReason } } } },
    }),
    async (c) => {
      const reason = c.req.valid('json')?.reason ?? null;
      return ok(c, { user: await change(c, c.req.valid('param').id, { banned: true, banReason: reason }) });
    },
  );
  app.openapi(
    route({ ...banRoute('unban', 'Lift a ban (admin, users:manage)'), request: { params: idParam } }),
    async (c) => ok(c, { user: await change(c, c.req.valid('param').id, { banned: false }) }),
  );

  // ---- /admin/local-users ----------------------------------------------------------------

  app.openapi(
    route({
      method: 'post',
      path: '/admin/local-users',
      ...audited('users:manage', 'local_user.create', 'local_user'),
      summary: 'Create a local user; the password is hashed with PBKDF2 (admin, users:manage)',
      request: {
        body: jsonBody(
          z.object({
            identifier,
            password: passwordSchema,
            role: z.enum(['admin', 'user']).default('user'),
            tier: z.enum(TIERS).optional(),
          }),
        ),
      },
      responses: {
        201: jsonResponse('The new user', okBody({ user: localUser })),
        409: problemResponse('The identifier is taken'),
        422: problemResponse('Invalid user'),
      },
    }),
    async (c) => {
      const body = c.req.valid('json');
      if (await deps.store.userByEmail(body.identifier.value))
        refuse(409, `The identifier ${body.identifier.value} is already registered`);
      const hashed = await hashPassword(body.password);
      // Another request may take the identifier meanwhile: the store's unique email makes it a 409.
      const user = await deps.store.createUser({
        email: body.identifier.value,
        identifierType: body.identifier.type,
        role: body.role,
        tier: body.tier ?? defaultTier(body.role),
        password: hashed,
      });
      await recordAudit(c, deps, { resourceId: user.id, newValues: toLocal(user) });
      return c.json({ success: true as const, user: toLocal(user) }, 201);
    },
  );

  app.openapi(
    route({
      method: 'post',
      path: '/admin/local-users/{id}/reset-password',
      ...audited('users:manage', 'local_user.reset_password', 'local_user'),
      summary: "Set a user's password; every session of theirs ends (admin, users:manage)",
      request: {
        params: idParam,
        body: jsonBody(z.object({ password: passwordSchema })),
      },
      responses: {
        200: jsonResponse('Reset', okBody({ sessionsEnded: z.number().int() })),
        404: notFound,
        422: problemResponse('Invalid password'),
      },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      // An administrator's own password is changed with the current one (`/api/auth/change-password`).
      await mayChange(c, id);
      const hashed = await hashPassword(c.req.valid('json').password);
      const ended = await deps.store.setPassword(id, hashed, null, at(), true);
      if (ended === null) refuse(404, `No user with id ${id}`);
      return ok(c, { sessionsEnded: ended });
    },
  );

  // ---- usage ------------------------------------------------------------------------------

  for (const path of ['/api/admin/usage/{userId}', '/admin/usage/{userId}']) {
    app.openapi(
      route({
        method: 'get',
        path,
        ...audited('users:read', 'usage.read', 'usage'),
        summary: "A user's requests per day and route (admin, users:read)",
        request: {
          params: z.object({ userId: z.string() }),
          query: z.object({
            days: z.coerce.number().int().min(1).max(USER_LIMITS.usageDaysMax).default(USER_LIMITS.usageDaysDefault),
          }),
        },
        responses: { 200: jsonResponse('The usage record', usage), 404: notFound },
      }),
      async (c) => {
        const { id } = await existing(c.req.valid('param').userId);
        return ok(c, await usageOf(id, c.req.valid('query').days));
      },
    );
  }
}
