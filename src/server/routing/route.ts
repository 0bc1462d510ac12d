import { createRoute, type Hook, OpenAPIHono, type RouteConfig, z } from '@hono/zod-openapi';
import type { Context, Env, Handler, MiddlewareHandler } from 'hono';
import type { RouterRoute, TypedResponse } from 'hono/types';
import type { JSONParsed } from 'hono/utils/types';
import { issueMessages } from '../../core/ast/issues.js';
import { problem, problemResponse } from '../problem.js';
import { DEFAULT_BODY_LIMIT } from '../body-limit.js';
import type { Caller } from '../access/gate.js';
import type { Identity } from '../auth/identity.js';

/**
 * Who may call a route. `public`: anyone (`public-unmetered`: not counted against the rate limit
 * either, for the health probe); `session`: a signed-in session, not an API key (`own-session`:
 * banned and API-disabled accounts too, for ending one's own sessions); a tier and the scope an API
 * key needs; an administrator with a permission (`*`: every one; null: any administrator).
 */
export type Access =
  | 'public'
  | 'public-unmetered'
  | 'session'
  | 'own-session'
  | { tier: 'free' | 'pro'; scope?: string }
  | { admin: string | null };

/** A route's facts besides its schemas, declared once beside its handler. */
export interface RouteFacts {
  access: Access;
  /** Bytes a body may have (413 beyond), checked before anything reads it; 1 MiB unless said. */
  bodyLimit?: number;
  /** Counted against the per-address limit on streams (server-sent events, WebSocket). */
  streamLimit?: boolean;
  /** Needs a bot-challenge token in its JSON body (a WebSocket: each compile message) when a secret is set. */
  challenge?: boolean;
  /** The audit action and resource type of an admin route (the specification's audit events). */
  audit?: { action: string; resource: string };
  /** The answer to a body that fails its schema: a 400 or 422 problem (422 unless said), or `{success, error}`. */
  badBody?: 400 | 422 | 'envelope';
  /**
   * Needs the access gateway's assertion when a gateway is configured. By default every admin route
   * that changes something (any method but GET) does; a read-only POST, or a route that checks
   * itself only for some requests (an import's dry run needs none), says `false`.
   */
  gateway?: boolean;
  /** Refusals before the handler speak the route's protocol: a tRPC error envelope, or a refused upgrade. */
  transport?: 'trpc' | 'websocket';
  /**
   * The REST route this one answers for under another path (a tRPC procedure): endpoint overrides
   * of either apply to it (a Hono path: `/api/rules/:id` takes overrides of a prefix of it).
   */
  twin?: { method: string; path: string };
}

/** One registered route: method, Hono path (`/api/keys/:id`), its facts and summary. */
export interface DescribedRoute extends RouteFacts {
  method: string;
  path: string;
  summary: string;
}

/** The steps every described route runs before its handler, implemented by the app (`routing/guards.ts`). */
export interface RouteGuards {
  /** Runs the route's steps, then `next` unless one of them answers. */
  run(route: DescribedRoute, c: Context, next: () => Promise<void>): ReturnType<MiddlewareHandler>;
  /** Every route the app serves (for the route lists and the endpoint overrides' checks). */
  routes(): readonly DescribedRoute[];
}

declare module 'hono' {
  interface ContextVariableMap {
    guards: RouteGuards;
    route: DescribedRoute;
    caller: Caller;
    identity: Identity;
    clientAddress: string;
    clientLimitKey: string;
    auditWritten: boolean;
    /** Where the audit trail logs a row it cannot write (the server's log). */
    auditLog: (message: string) => void;
  }
}

const DESCRIBED = Symbol('described route');
type Guard = MiddlewareHandler & { [DESCRIBED]: DescribedRoute };

/** The middleware that carries a route's facts and runs the app's guards with them. */
function guard(route: DescribedRoute): Guard {
  const run: MiddlewareHandler = async (c, next) => {
    c.set('route', route);
    await c.var.guards.run(route, c, next);
  };
  return Object.assign(run, { [DESCRIBED]: route });
}

const honoPath = (path: string) => path.replaceAll(/\/{(.+?)}/g, '/:$1');

const isPublic = (access: Access) => access === 'public' || access === 'public-unmetered';
/** The OpenAPI security of an access rule: none for public routes, a bearer token otherwise. */
const securityOf = (access: Access) => (isPublic(access) ? [] : [{ bearer: [] }]);

type Described<R extends RouteConfig> = R & RouteFacts;

/** A config's OpenAPI part (what `createRoute` takes) and its facts. */
function split<R extends RouteConfig>(config: Described<R>): [R, DescribedRoute] {
  const { access, bodyLimit, streamLimit, challenge, audit, badBody, transport, gateway, twin, ...rest } = config;
  const admin = typeof access === 'object' && 'admin' in access;
  const destructive = gateway ?? (admin && config.method !== 'get');
  const facts = { access, bodyLimit, streamLimit, challenge, audit, badBody, transport, gateway: destructive, twin };
  const path = honoPath(config.path);
  // Without its facts the config is the R it was declared as.
  return [rest as unknown as R, { ...facts, method: config.method.toUpperCase(), path, summary: config.summary ?? '' }];
}

/**
 * A route as `@hono/zod-openapi`'s `createRoute` declares it, plus its facts (access rule, limits,
 * challenge, audit action, bad-body answer), which become its own middleware and its OpenAPI
 * `security`. The type needs an access rule; `assertEveryRouteDescribed` refuses an app with a route
 * registered any other way.
 */
export function route<R extends RouteConfig>(config: Described<R>): R {
  const [rest, described] = split(config);
  const middleware = rest.middleware ? [rest.middleware].flat() : [];
  return createRoute({
    ...rest,
    responses: { ...impliedResponses(config, Boolean(rest.request?.body)), ...rest.responses },
    security: securityOf(config.access),
    middleware: [guard(described), ...middleware],
  });
}

/** The refusals a route's facts imply, in its OpenAPI entry unless the route words them itself. */
function impliedResponses(facts: RouteFacts, body: boolean) {
  return {
    ...(body
      ? {
          400: problemResponse('Malformed JSON'),
          413: problemResponse(`Body larger than ${facts.bodyLimit ?? DEFAULT_BODY_LIMIT} bytes`),
        }
      : {}),
    ...(isPublic(facts.access)
      ? {}
      : {
          401: problemResponse('No credentials, or unknown or expired ones'),
          403: problemResponse('Refused by the access rule: tier, scope, permission, a ban or disabled API access'),
        }),
    ...(facts.access === 'public-unmetered' ? {} : { 429: problemResponse('Rate limit exceeded') }),
  };
}

/**
 * A route Hono serves without OpenAPI validation (a WebSocket upgrade, tRPC): registered with its
 * guard and its handlers, and documented in the OpenAPI document from the same config.
 */
export function plainRoute(
  app: OpenAPIHono,
  { handlers, ...config }: Described<RouteConfig> & { handlers: Handler[] },
) {
  const [rest, described] = split(config);
  app.openAPIRegistry.registerPath({ ...rest, security: securityOf(config.access) });
  app.on(described.method, described.path, guard(described), ...handlers);
}

/** Every described route the app serves, in registration order. */
export function describedRoutes(app: { routes: RouterRoute[] }): DescribedRoute[] {
  return app.routes.map((r) => (r.handler as Partial<Guard>)[DESCRIBED]).filter((d) => d !== undefined);
}

/** A described route as `GET /api` and the admin manifest show it (OpenAPI-style path). */
export function routeEntry(d: DescribedRoute) {
  const access = d.access;
  return {
    method: d.method,
    path: d.path.replaceAll(/:(\w+)/g, '{$1}'),
    summary: d.summary,
    access: typeof access === 'string' ? access : 'tier' in access ? access.tier : 'admin',
    ...(typeof access === 'object' && 'scope' in access && access.scope ? { scope: access.scope } : {}),
    ...(typeof access === 'object' && 'admin' in access ? { permission: access.admin } : {}),
    ...(d.audit ? { auditAction: d.audit.action } : {}),
  };
}

/**
 * Refuses an app with a route that has no descriptor, or path-bound middleware: a route's access
 * rule, limits and audit action come from its descriptor only, and nothing is public by omission.
 */
export function assertEveryRouteDescribed(app: { routes: RouterRoute[] }): void {
  const described = new Set(describedRoutes(app).map((d) => `${d.method} ${d.path}`));
  for (const r of app.routes) {
    if (r.method === 'ALL' && r.path === '/*') continue;
    if (!described.has(`${r.method} ${r.path}`))
      throw new Error(`${r.method} ${r.path} is registered without a route descriptor (access rule)`);
  }
}

/** The OpenAPI description of a JSON answer. */
export const jsonResponse = <T extends z.ZodType>(description: string, schema: T) => ({
  description,
  content: { 'application/json': { schema } },
});

/** The schema of a `{ success: true, … }` answer. */
export const okBody = <T extends z.ZodRawShape>(shape: T) => z.object({ success: z.literal(true), ...shape });

/**
 * The 200 answer `{ success: true, …fields }` that an `okBody` schema describes. Its type is the one
 * `c.json` gives it, which TypeScript cannot name for a generic body.
 */
export const ok = <T extends object>(c: Context, fields: T) =>
  c.json({ success: true as const, ...fields }, 200) as Response &
    TypedResponse<JSONParsed<{ success: true } & T>, 200, 'json'>;

/** A required JSON request body validated by `schema`. */
export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  required: true,
  content: { 'application/json': { schema } },
});

/** A schema failure: answered as the route's descriptor says. */
export const badBodyHook: Hook<unknown, Env, string, Response | undefined> = (result, c) => {
  if (result.success) return undefined;
  const error = issueMessages(result.error).join('; ');
  const answer = c.var.route?.badBody ?? 422;
  if (answer === 'envelope') return c.json({ success: false, error }, 422);
  return problem(c, answer, error);
};

/** An app for one feature area, mounted on the main app with `app.route('/', …)`. */
export function featureApp(): OpenAPIHono {
  return new OpenAPIHono({ defaultHook: badBodyHook });
}

/**
 * A 200 answer already serialized (from the values the route's schema describes), with the headers
 * set on `c`: typed as any answer of the route, which the typed `c.json` cannot say of text or bytes.
 */
export const serializedJson = (c: Context, body: string | Uint8Array): never =>
  c.body(body as string | Uint8Array<ArrayBuffer>, 200, { 'content-type': 'application/json' }) as never;
