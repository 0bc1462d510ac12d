import { OpenAPIHono } from '@hono/zod-openapi';
import { describe, expect, test, vi } from 'vitest';
import { createApp } from '../../src/server/app.js';
import { openStore } from '../../src/server/store/open.js';
import { startSession } from '../../src/server/auth/sessions.js';
import { assertEveryRouteDescribed, describedRoutes, plainRoute, routeEntry } from '../../src/server/routing/route.js';

/** Route descriptors: one per route, the only source of its access rule and of every route list. */

// Each request moves the clock (the app's and Date's, which the rate limiter reads) past the
// rate-limit window, so only access decides.
let now = Date.parse('2026-08-01T00:00:00Z');
vi.useFakeTimers({ toFake: ['Date'] });
vi.setSystemTime(now);
const tick = () => {
  now += 61_000;
  vi.setSystemTime(now);
};
const store = await openStore(':memory:');
const app = createApp({
  store,
  version: '1',
  now: () => now,
  startedAt: now,
  makeReader: () => {
    throw new Error('no compile reaches a source here');
  },
});
const admin = await store.createUser({
  email: 'root@example.org',
  role: 'admin',
  tier: 'admin',
  password: { hash: 'h', salt: 's', iterations: 1 },
});
await store.assignRole(admin.id, 'super-admin', 'test', new Date(now).toISOString());
const token = (await startSession(store, admin, now)).token;
const get = async (path: string) => {
  tick();
  return (await app.request(path, { headers: { authorization: `Bearer ${token}` } })).json();
};

const isPublic = (access: unknown) => access === 'public' || access === 'public-unmetered';
const key = (method: string, path: string) => `${method.toUpperCase()} ${path}`;

describe('every route has a descriptor with an access rule', () => {
  test('the app registers no route without one', () => {
    expect(() => assertEveryRouteDescribed(app)).not.toThrow();
    const routes = describedRoutes(app);
    expect(routes.length).toBeGreaterThan(100);
    for (const r of routes) expect(r.access, `${r.method} ${r.path}`).toBeDefined();
    // Every route Hono serves, other than the app-wide middleware, is a described one.
    const described = new Set(routes.map((r) => key(r.method, r.path)));
    for (const r of app.routes)
      if (r.path !== '/*') expect(described.has(key(r.method, r.path)), key(r.method, r.path)).toBe(true);
  });

  test('a route registered without a descriptor, or path-bound middleware, is refused', () => {
    const bare = new OpenAPIHono();
    bare.get('/api/sneaky', (c) => c.text('open'));
    expect(() => assertEveryRouteDescribed(bare)).toThrow(/GET \/api\/sneaky .*without a route descriptor/);
    const scoped = new OpenAPIHono();
    scoped.use('/api/limited/*', async (_c, next) => next());
    expect(() => assertEveryRouteDescribed(scoped)).toThrow(/ALL \/api\/limited/);
    const described = new OpenAPIHono();
    plainRoute(described, {
      method: 'get',
      path: '/x',
      access: 'public',
      summary: 'x',
      responses: { 200: { description: 'ok' } },
      handlers: [(c) => c.text('x')],
    });
    expect(() => assertEveryRouteDescribed(described)).not.toThrow();
  });

  test('no route is open by omission: every non-public route refuses an anonymous caller', async () => {
    const open: string[] = [];
    for (const r of describedRoutes(app)) {
      if (isPublic(r.access)) continue;
      const path = r.path.replaceAll(/:\w+/g, 'x');
      tick();
      const res = await app.request(path, {
        method: r.method,
        headers: { 'content-type': 'application/json' },
        ...(r.method === 'GET' ? {} : { body: '{}' }),
      });
      if (res.status !== 401 && res.status !== 403) open.push(`${r.method} ${r.path}: ${res.status}`);
    }
    expect(open).toEqual([]);
  });

  test('the error-code registry is public on purpose (docs/server.md: clients read it anonymously)', async () => {
    const codes = describedRoutes(app).filter((r) => r.path.startsWith('/api/errors/codes'));
    expect(codes.map((r) => r.access)).toEqual(['public', 'public']);
    tick();
    expect((await app.request('/api/errors/codes')).status).toBe(200);
  });
});

describe('OpenAPI, GET /api and the admin manifest list the app’s routes', () => {
  const routes = describedRoutes(app).map(routeEntry);
  const all = new Set(routes.map((r) => key(r.method, r.path)));

  test('the OpenAPI document has exactly the app’s routes, with security from their access rules', async () => {
    const doc = await get('/api/openapi.json');
    const documented = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { security?: unknown }>>))
      for (const [method, op] of Object.entries(item)) {
        documented.add(key(method, path));
        const r = routes.find((x) => key(x.method, x.path) === key(method, path));
        expect(op.security, key(method, path)).toEqual(isPublic(r?.access) ? [] : [{ bearer: [] }]);
      }
    expect([...documented].sort()).toEqual([...all].sort());
    expect(doc.components.securitySchemes.bearer).toEqual({ type: 'http', scheme: 'bearer' });
  });

  test('GET /api lists every route', async () => {
    const body = await get('/api');
    expect([...body.endpoints].sort()).toEqual([...all].sort());
  });

  test('the admin manifest lists every admin route with its permission and audit action', async () => {
    const body = await get('/api/admin');
    expect(body.success).toBe(true);
    const admin = routes.filter((r) => r.access === 'admin');
    expect(body.routes).toEqual(admin);
    // Everything under an admin prefix is an admin route, so the manifest holds the whole administration.
    const listed = new Set(body.routes.map((r: { method: string; path: string }) => key(r.method, r.path)));
    const prefixed = [...all].filter((k) => / \/(api\/)?admin(\/|$)/.test(k));
    expect(prefixed.filter((k) => !listed.has(k))).toEqual([]);
    expect(body.routes).toContainEqual(
      expect.objectContaining({
        method: 'PUT',
        path: '/admin/system/tiers/{name}',
        permission: 'config:write',
        auditAction: 'tier.update',
      }),
    );
  });
});
