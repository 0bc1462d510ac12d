import { passwordProblem } from '../auth/password-policy.js';
import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { BODY_LIMITS } from './rules.js';
import { route, jsonBody, jsonResponse, okBody, ok } from '../routing/route.js';
import type { Context } from 'hono';
import { clientLimitKey } from '../client-address.js';
import type { AppDeps } from '../deps.js';
import { problemResponse, refuse } from '../problem.js';
import { DUMMY_HASH, hashPassword, verifyPassword } from '../auth/password.js';
import { bearerToken, endSession, resolveSession, startSession } from '../auth/sessions.js';
import { callerOf, identityOf } from '../access/gate.js';
import { sha256 } from '../hash.js';
import { emailSchema, nameSchema } from '../auth/identifiers.js';
import type { RateLimiter } from '../rate-limit.js';
import { userSchema } from '../store/accounts.js';

const session = z.object({ createdAt: z.string(), expiresAt: z.string() });
/** A new password, as the policy wants it (password-policy.ts; also for `/admin/local-users`). */
export const passwordSchema = z.string().superRefine((value, ctx) => {
  const problem = passwordProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
const credentials = z.object({ email: emailSchema, password: passwordSchema });
/** Signing in takes any password an account may hold, whatever the policy said when it was set. */
const signInCredentials = z.object({ email: emailSchema, password: z.string().min(1).max(1024) });
const tokenAndUser = jsonResponse(
  'The session token (shown once) and the user',
  z.object({ token: z.string(), user: userSchema }),
);
/** What the auth routes' POSTs share: a body of at most 64 KiB (as the rule and key routes). */
const authPost = { method: 'post', bodyLimit: BODY_LIMITS.rule } as const;

/** Sign-in attempts: 10 per minute per identifier and address, and 30 per address. */
export const SIGN_IN_LIMITS = { perIdentifier: 10, perAddress: 30 } as const;
/** Sign-ups: 5 per minute per address, whatever token the request carries (each costs a password hash). */
export const SIGN_UP_LIMITS = { perAddress: 5 } as const;
/** Password changes: 10 attempts per minute per account (a stolen session cannot guess the password fast). */
export const CHANGE_PASSWORD_LIMITS = { perAccount: 10 } as const;

/** Counts a hit against each [key, requests per minute]; refuses with 429 and `Retry-After` when any is over. */
async function refuseOverLimits(c: Context, limiter: RateLimiter, detail: string, limits: [string, number][]) {
  const over = (await Promise.all(limits.map(([key, n]) => limiter.hit(key, n)))).filter((h) => h.limited);
  if (over.length === 0) return;
  c.header('retry-after', String(Math.max(...over.map((h) => h.resetSeconds))));
  refuse(429, detail);
}

/** `/api/auth/*`: local accounts with email and password, sessions by bearer token, password changes. */
export function registerAuthRoutes(app: OpenAPIHono, deps: AppDeps): void {
  // Counted in the store's limiter: shared by every server on one PostgreSQL database.
  const attempts = deps.store.rateLimiter('auth');

  app.openapi(
    route({
      method: 'get',
      path: '/api/auth/providers',
      access: 'public',
      summary: 'How users can sign in',
      responses: {
        200: jsonResponse(
          'Providers',
          z.object({
            providers: z.array(z.object({ id: z.string(), type: z.string(), signUp: z.boolean() })),
          }),
        ),
      },
    }),
    (c) => c.json({ providers: [{ id: 'email', type: 'credentials', signUp: true }] }, 200),
  );

  app.openapi(
    route({
      ...authPost,
      path: '/api/auth/sign-up/email',
      access: 'public',
      summary: 'Create a local account and sign in',
      request: {
        body: jsonBody(credentials.extend({ name: nameSchema.optional() })),
      },
      responses: {
        200: tokenAndUser,
        409: problemResponse('The email is already registered'),
        422: problemResponse('Invalid email, password or name'),
        429: problemResponse('Too many sign-ups from this address'),
      },
    }),
    async (c) => {
      const body = c.req.valid('json');
      await refuseOverLimits(c, attempts, 'Too many sign-ups from this address; try again later', [
        [`sign-up-ip:${clientLimitKey(c)}`, SIGN_UP_LIMITS.perAddress],
      ]);
      if (await deps.store.userByEmail(body.email)) refuse(409, 'An account with this email already exists');
      const password = await hashPassword(body.password);
      // Two sign-ups racing with one email: the store's unique email makes the later one a 409.
      const created = await deps.store.createUser({
        email: body.email,
        name: body.name ?? null,
        role: 'user',
        tier: 'free',
        password,
      });
      return c.json({ token: (await startSession(deps.store, created, deps.now())).token, user: created }, 200);
    },
  );

  app.openapi(
    route({
      ...authPost,
      path: '/api/auth/sign-in/email',
      access: 'public',
      summary: 'Sign in with email and password',
      request: { body: jsonBody(signInCredentials) },
      responses: {
        200: tokenAndUser,
        401: problemResponse('Wrong email or password (the same answer for both)'),
        403: problemResponse('Banned'),
        429: problemResponse('Too many attempts'),
      },
    }),
    async (c) => {
      const { email, password } = c.req.valid('json');
      const address = clientLimitKey(c);
      await refuseOverLimits(c, attempts, 'Too many sign-in attempts; try again later', [
        [`sign-in-id:${email}|${address}`, SIGN_IN_LIMITS.perIdentifier],
        [`sign-in-ip:${address}`, SIGN_IN_LIMITS.perAddress],
      ]);
      const found = await deps.store.userByEmail(email);
      // Verify against a dummy hash for unknown users: same work, same answer.
      const ok = await verifyPassword(password, found?.password ?? DUMMY_HASH);
      if (!found || !ok) refuse(401, 'Invalid email or password');
      if (found.banned) refuse(403, 'This account is banned');
      const { password: _hash, ...publicUser } = found;
      return c.json({ token: (await startSession(deps.store, publicUser, deps.now())).token, user: publicUser }, 200);
    },
  );

  app.openapi(
    route({
      ...authPost,
      path: '/api/auth/sign-out',
      access: 'own-session',
      summary: 'End the current session',
      responses: {
        200: jsonResponse('Signed out', okBody({})),
      },
    }),
    async (c) => {
      const token = bearerToken(c.req.header('authorization'));
      if (!token || !(await resolveSession(deps.store, token, deps.now()))) refuse(401, 'A valid session is required');
      await endSession(deps.store, token);
      return ok(c, {});
    },
  );

  app.openapi(
    route({
      method: 'get',
      path: '/api/auth/get-session',
      access: 'public',
      summary: 'The current session and user, or nulls',
      responses: {
        200: jsonResponse('Session', z.object({ session: session.nullable(), user: userSchema.nullable() })),
      },
    }),
    async (c) => {
      const found = await resolveSession(deps.store, bearerToken(c.req.header('authorization')), deps.now());
      if (!found) return c.json({ session: null, user: null }, 200);
      return c.json(
        { session: { createdAt: found.session.createdAt, expiresAt: found.session.expiresAt }, user: found.user },
        200,
      );
    },
  );

  // A signed-in user's own password and sessions: `change-password` (with the current password;
  // the user's other sessions end) and `sign-out-all` (every session ends, this one too). Both need
  // a session, not an API key (the access policy); keys are managed under `/api/keys`.
  app.openapi(
    route({
      ...authPost,
      path: '/api/auth/change-password',
      access: 'session',
      summary: "Change the signed-in user's password; their other sessions end",
      request: {
        body: jsonBody(z.object({ currentPassword: z.string().min(1).max(1024), newPassword: passwordSchema })),
      },
      responses: {
        200: jsonResponse(
          'Changed; this session goes on, every other one has ended',
          okBody({ sessionsEnded: z.number().int() }),
        ),
        403: problemResponse('The current password is wrong'),
        422: problemResponse('Invalid new password'),
        429: problemResponse('Too many attempts'),
      },
    }),
    async (c) => {
      const user = callerOf(c).user;
      const token = bearerToken(c.req.header('authorization'));
      if (!user || !token) refuse(401, 'A valid session is required');
      const body = c.req.valid('json');
      await refuseOverLimits(c, attempts, 'Too many password changes; try again later', [
        [`change-password:${user.id}`, CHANGE_PASSWORD_LIMITS.perAccount],
      ]);
      const found = await deps.store.userWithPassword(user.id);
      if (!found || !(await verifyPassword(body.currentPassword, found.password)))
        refuse(403, 'The current password is wrong');
      const ended = await deps.store.setPassword(
        user.id,
        await hashPassword(body.newPassword),
        sha256(token),
        new Date(deps.now()).toISOString(),
      );
      return ok(c, { sessionsEnded: ended ?? 0 });
    },
  );

  app.openapi(
    route({
      ...authPost,
      path: '/api/auth/sign-out-all',
      access: 'own-session',
      summary: 'End every session of the signed-in user, this one included (API keys stay)',
      responses: {
        200: jsonResponse('Signed out everywhere', okBody({ sessionsEnded: z.number().int() })),
      },
    }),
    async (c) => {
      // The session's own user, banned or API-disabled too: ending sessions only takes access away.
      const identity = identityOf(c);
      if (identity?.kind !== 'session') refuse(401, 'A valid session is required');
      const ended = await deps.store.deleteSessions(identity.user.id);
      return ok(c, { sessionsEnded: ended });
    },
  );
}
