import { nameSchema } from '../auth/identifiers.js';
import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { BODY_LIMITS } from './rules.js';
import { route, jsonBody, jsonResponse, okBody, ok } from '../routing/route.js';
import type { AppDeps } from '../deps.js';
import { problemResponse, refuse } from '../problem.js';
import { issueApiKey } from '../auth/identity.js';
import { type Caller, callerOf } from '../access/gate.js';

const apiKey = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  scopes: z.array(z.string()),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
});
const publicKey = <T extends { userId?: string }>({ userId: _owner, ...rest }: T) => rest;

/**
 * The key-management scope: with it, an API key lists, creates and revokes its owner's keys;
 * without it, a key sees and revokes only itself and creates none. A signed-in session needs
 * no scope. Built in rather than a row of the scopes table, because the key routes enforce it.
 */
export const KEYS_SCOPE = 'keys';

/** Whether the caller may manage every key of its owner: a session, or a key with the `keys` scope. */
const managesKeys = (caller: Caller) => caller.key === null || caller.key.scopes.includes(KEYS_SCOPE);

/**
 * `GET/POST /api/keys`, `DELETE /api/keys/:id`, for signed-in users (or their keys); the access gate checks the caller.
 */
export function registerKeyRoutes(app: OpenAPIHono, deps: AppDeps): void {
  app.openapi(
    route({
      method: 'get',
      path: '/api/keys',
      access: { tier: 'free' },
      summary: "The caller's API keys (never their text)",
      responses: {
        200: jsonResponse('Keys', okBody({ keys: z.array(apiKey) })),
      },
    }),
    async (c) => {
      const caller = callerOf(c);
      if (!caller.user) refuse(401, 'Authentication required');
      const keys = (await deps.store.apiKeys(caller.user.id)).filter(
        (k) => managesKeys(caller) || k.id === caller.key?.id,
      );
      return ok(c, { keys: keys.map(publicKey) });
    },
  );

  app.openapi(
    route({
      method: 'post',
      path: '/api/keys',
      access: { tier: 'free' },
      bodyLimit: BODY_LIMITS.rule,
      summary: 'Create an API key; its text is in this answer only',
      request: {
        body: jsonBody(
          z.object({
            name: z.string().trim().min(1, 'name must not be empty').pipe(nameSchema),
            scopes: z.array(z.string().min(1)).max(10).optional(),
            expiresInDays: z.number().int().min(1).max(3650).optional(),
          }),
        ),
      },
      responses: {
        201: jsonResponse('The key, shown once', apiKey.extend({ success: z.literal(true), key: z.string() })),
        403: problemResponse('A scope the caller does not have, a later expiry than the calling key, or no keys scope'),
        422: problemResponse('Invalid request'),
      },
    }),
    async (c) => {
      const caller = callerOf(c);
      const { user, key: parent } = caller;
      if (!user) refuse(401, 'Authentication required');
      const body = c.req.valid('json');
      if (!managesKeys(caller)) refuse(403, `Creating keys with an API key needs the ${KEYS_SCOPE} scope`);
      const scopes = body.scopes ?? ['compile', 'rules'];
      const known = new Set([...(await deps.store.scopes()).map((s) => s.name), KEYS_SCOPE]);
      const unknown = scopes.find((s) => !known.has(s));
      if (unknown !== undefined) refuse(422, `unknown scope ${JSON.stringify(unknown)}`);
      // A key never carries more than its creator may use (a key can only make narrower keys).
      const held = new Set([...caller.scopes(), KEYS_SCOPE]);
      const beyond = scopes.find((s) => !held.has(s));
      if (beyond !== undefined) refuse(403, `You cannot grant the scope ${JSON.stringify(beyond)}`);
      // Nor does it outlive its creator: a key's child expires no later than the key.
      const now = deps.now();
      const notAfter = parent?.expiresAt ? Date.parse(parent.expiresAt) : null;
      if (notAfter !== null && body.expiresInDays !== undefined && now + body.expiresInDays * 86_400_000 > notAfter) {
        refuse(403, `A key made with an API key cannot expire after it (${parent?.expiresAt})`);
      }
      const { text, key } = await issueApiKey(
        deps.store,
        user,
        { name: body.name, scopes, expiresInDays: body.expiresInDays, notAfter, parentId: parent?.id ?? null },
        now,
      );
      return c.json({ success: true as const, key: text, ...publicKey(key) }, 201);
    },
  );

  app.openapi(
    route({
      method: 'delete',
      path: '/api/keys/{id}',
      access: { tier: 'free' },
      summary: 'Revoke an API key',
      request: { params: z.object({ id: z.string() }) },
      responses: {
        200: jsonResponse('Revoked', okBody({})),
        404: problemResponse('No such live key of yours (for a key without the keys scope: other than itself)'),
      },
    }),
    async (c) => {
      const caller = callerOf(c);
      if (!caller.user) refuse(401, 'Authentication required');
      const { id } = c.req.valid('param');
      // A key without the keys scope sees only itself (GET), so the others are no keys it knows of.
      const visible = managesKeys(caller) || caller.key?.id === id;
      if (!visible || !(await deps.store.revokeApiKey(caller.user.id, id, new Date(deps.now()).toISOString()))) {
        refuse(404, 'No such key');
      }
      return ok(c, {});
    },
  );
}
