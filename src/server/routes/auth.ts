import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { clientAddress } from '../client-address.js';
import type { AppDeps } from '../deps.js';
import { problem, problemResponse } from '../problem.js';
import { DUMMY_HASH, hashPassword, verifyPassword } from '../auth/password.js';
import { bearerToken, endSession, resolveSession, startSession } from '../auth/sessions.js';
import { fixedWindowLimiter } from '../rate-limit.js';

/** A user as the account and admin routes show it (never a password hash). */
export const userSchema = z.object({
  id: z.string(),
  email: z.string(),
  identifierType: z.enum(['email', 'phone']),
  name: z.string().nullable(),
  role: z.enum(['admin', 'user']),
  tier: z.string(),
  banned: z.boolean(),
  banReason: z.string().nullable(),
  apiDisabled: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const session = z.object({ createdAt: z.string(), expiresAt: z.string() });
/** A new or given password: 8 to 1,024 characters (also for `/admin/local-users`). */
export const passwordSchema = z.string().min(8, 'password must be at least 8 characters').max(1024, 'password must be at most 1024 characters');
const credentials = z.object({
  email: z.string().trim().toLowerCase().pipe(z.email('email must be a valid address')),
  password: passwordSchema,
});
const tokenAndUser = { description: 'The session token (shown once) and the user', content: { 'application/json': { schema: z.object({ token: z.string(), user: userSchema }) } } };

/** Sign-in attempts: 10 per minute per identifier and address, and 30 per address. */
export const SIGN_IN_LIMITS = { perIdentifier: 10, perAddress: 30 } as const;


/** `/api/auth/*`: local accounts with email and password, sessions by bearer token. */
export function registerAuthRoutes(app: OpenAPIHono, deps: AppDeps): void {
  const attempts = fixedWindowLimiter(60_000, deps.now);

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/auth/providers',
      summary: 'How users can sign in',
      responses: { 200: { description: 'Providers', content: { 'application/json': { schema: z.object({ providers: z.array(z.object({ id: z.string(), type: z.string(), signUp: z.boolean() })) }) } } } },
    }),
    (c) => c.json({ providers: [{ id: 'email', type: 'credentials', signUp: true }] }, 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/auth/sign-up/email',
      summary: 'Create a local account and sign in',
      request: { body: { required: true, content: { 'application/json': { schema: credentials.extend({ name: z.string().max(200).optional() }) } } } },
      responses: { 200: tokenAndUser, 409: problemResponse('The email is already registered'), 422: problemResponse('Invalid email or password') },
    }),
    async (c) => {
      const body = c.req.valid('json');
      if (deps.store.userByEmail(body.email)) return problem(c, 409, 'An account with this email already exists') as never;
      const password = await hashPassword(body.password);
      const created = deps.store.createUser({ email: body.email, name: body.name ?? null, role: 'user', tier: 'free', password });
      return c.json({ token: startSession(deps.store, created, deps.now()).token, user: created }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/auth/sign-in/email',
      summary: 'Sign in with email and password',
      request: { body: { required: true, content: { 'application/json': { schema: credentials } } } },
      responses: { 200: tokenAndUser, 401: problemResponse('Wrong email or password (the same answer for both)'), 403: problemResponse('Banned'), 429: problemResponse('Too many attempts') },
    }),
    async (c) => {
      const { email, password } = c.req.valid('json');
      const address = clientAddress(c);
      const hits = [attempts.hit(`id:${email}|${address}`, SIGN_IN_LIMITS.perIdentifier), attempts.hit(`ip:${address}`, SIGN_IN_LIMITS.perAddress)];
      if (hits.some((h) => h.limited)) {
        c.header('retry-after', String(Math.max(...hits.filter((h) => h.limited).map((h) => h.resetSeconds))));
        return problem(c, 429, 'Too many sign-in attempts; try again later') as never;
      }
      const found = deps.store.userByEmail(email);
      // Verify against a dummy hash for unknown users: same work, same answer.
      const ok = await verifyPassword(password, found?.password ?? DUMMY_HASH);
      if (!found || !ok) return problem(c, 401, 'Invalid email or password') as never;
      if (found.banned) return problem(c, 403, 'This account is banned') as never;
      const { password: _hash, ...publicUser } = found;
      return c.json({ token: startSession(deps.store, publicUser, deps.now()).token, user: publicUser }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/auth/sign-out',
      summary: 'End the current session',
      responses: { 200: { description: 'Signed out', content: { 'application/json': { schema: z.object({ success: z.literal(true) }) } } }, 401: problemResponse('No valid session') },
    }),
    (c) => {
      const token = bearerToken(c.req.header('authorization'));
      if (!token || !resolveSession(deps.store, token, deps.now())) return problem(c, 401, 'A valid session is required') as never;
      endSession(deps.store, token);
      return c.json({ success: true as const }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/auth/get-session',
      summary: 'The current session and user, or nulls',
      responses: { 200: { description: 'Session', content: { 'application/json': { schema: z.object({ session: session.nullable(), user: userSchema.nullable() }) } } } },
    }),
    (c) => {
      const found = resolveSession(deps.store, bearerToken(c.req.header('authorization')), deps.now());
      if (!found) return c.json({ session: null, user: null }, 200);
      return c.json({ session: { createdAt: found.session.createdAt, expiresAt: found.session.expiresAt }, user: found.user }, 200);
    },
  );
}
