import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { BODY_LIMITS } from './rules.js';
import { route, jsonBody, jsonResponse, okBody } from '../routing/route.js';
import type { AppDeps } from '../deps.js';
import { problemResponse, refuse } from '../problem.js';
import { hashPassword, verifyPassword } from '../auth/password.js';
import { bearerToken } from '../auth/sessions.js';
import { callerOf, identityOf } from '../access/gate.js';
import { sha256 } from '../hash.js';
import type { RateLimiter } from '../rate-limit.js';
import { passwordSchema, refuseOverLimits } from './auth.js';

/** Password changes: 10 attempts per minute per account (a stolen session cannot guess the password fast). */
export const CHANGE_PASSWORD_LIMITS = { perAccount: 10 } as const;

/**
 * A signed-in user's own password and sessions: `change-password` (with the current password;
 * the user's other sessions end) and `sign-out-all` (every session ends, this one too). Both need
 * a session, not an API key (the access policy); keys are managed under `/api/keys`.
 */
export function registerPasswordRoutes(app: OpenAPIHono, deps: AppDeps, attempts: RateLimiter): void {
  app.openapi(
    route({
      method: 'post',
      path: '/api/auth/change-password',
      access: 'session',
      bodyLimit: BODY_LIMITS.rule,
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
      refuseOverLimits(
        c,
        [await attempts.hit(`change-password:${user.id}`, CHANGE_PASSWORD_LIMITS.perAccount)],
        'Too many password changes; try again later',
      );
      const found = await deps.store.userWithPassword(user.id);
      if (!found || !(await verifyPassword(body.currentPassword, found.password)))
        refuse(403, 'The current password is wrong');
      const ended = await deps.store.setPassword(
        user.id,
        await hashPassword(body.newPassword),
        sha256(token),
        new Date(deps.now()).toISOString(),
      );
      return c.json({ success: true as const, sessionsEnded: ended ?? 0 }, 200);
    },
  );

  app.openapi(
    route({
      method: 'post',
      path: '/api/auth/sign-out-all',
      access: 'own-session',
      bodyLimit: BODY_LIMITS.rule,
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
      return c.json({ success: true as const, sessionsEnded: ended }, 200);
    },
  );
}
