import { type OpenAPIHono, type RouteConfig, z } from '@hono/zod-openapi';
import { jsonBody, jsonResponse, route, type RouteFacts } from '../../routing/route.js';
import type { Context } from 'hono';
import { problemResponse } from '../../problem.js';

/** What an admin route declares: its schemas, access rule, audit action and handler in one descriptor. */
export interface AdminRouteDef extends Pick<RouteFacts, 'audit' | 'gateway'> {
  access: { admin: string | null };
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI style: `/admin/system/roles/{id}`. */
  path: string;
  summary: string;
  body?: z.ZodType;
  query?: z.ZodObject;
  params?: z.ZodObject<Record<string, z.ZodString>>;
  /** The success status (200 unless said). */
  status?: 200 | 201;
  /** Extra documented failures. */
  failures?: Record<number, string>;
  handler: (c: Context, input: AdminInput) => Promise<Response>;
}

export interface AdminInput {
  // biome-ignore lint/suspicious/noExplicitAny: each route reads the fields its own schema validated
  body: any;
  // biome-ignore lint/suspicious/noExplicitAny: as above
  query: any;
  params: Record<string, string>;
}

/** Every admin response is JSON with `success`; the fields beyond it are described in docs/server.md. */
const ok = z.object({ success: z.boolean() }).passthrough();

/**
 * An admin route's config as `app.openapi` types its handler: a JSON body, a query and string path
 * parameters. A route has only those its def declares, and its handler reads only those.
 */
type AdminConfig = Omit<RouteConfig, 'request'> & {
  request: {
    body: ReturnType<typeof jsonBody<z.ZodType>>;
    query: z.ZodObject;
    params: z.ZodObject<Record<string, z.ZodString>>;
  };
};

/** Declares an admin route with zod schemas (validation and `/api/openapi.json` from one place). */
export function adminRoute(app: OpenAPIHono, def: AdminRouteDef): void {
  const failures = Object.fromEntries(
    Object.entries(def.failures ?? {}).map(([status, text]) => [status, problemResponse(text)]),
  );
  const config = route({
    method: def.method,
    path: def.path,
    access: def.access,
    audit: def.audit,
    gateway: def.gateway,
    summary: def.summary,
    request: {
      ...(def.body ? { body: jsonBody(def.body) } : {}),
      ...(def.query ? { query: def.query } : {}),
      ...(def.params ? { params: def.params } : {}),
    },
    responses: { [def.status ?? 200]: jsonResponse('Done', ok), ...failures },
  }) as AdminConfig;
  app.openapi(config, (c) =>
    def.handler(c, {
      body: def.body ? c.req.valid('json') : undefined,
      query: def.query ? c.req.valid('query') : {},
      params: def.params ? c.req.valid('param') : {},
    }),
  );
}

/** An admin route's access rule (its permission; null: any administrator) and audit action, in one line. */
export const audited = (permission: string | null, action: string, resource: string) => ({
  access: { admin: permission },
  audit: { action, resource },
});

/** A path parameter (the OpenAPI document names it and places it in the path from its key). */
export const pathParam = (name: string) => z.object({ [name]: z.string().min(1) });

/** An integer id in the path. */
export const idParam = z.object({ id: z.string().regex(/^\d+$/, 'must be an integer id') });
