import { afterAll, describe, expect, test } from 'vitest';
import { adminFixture } from './fixture.js';

const f = await adminFixture();
afterAll(() => f.store.close());
// biome-ignore lint/suspicious/noExplicitAny: response bodies are read loosely here
type Loose = any;
const json = async (res: Response) => (await res.json()) as Record<string, Loose>;

describe('roles and assignments', () => {
  test('create 201 (unique name, one permission at least), update replaces permissions, deactivate', async () => {
    const created = await f.asSuper('POST', '/admin/system/roles', {
      role_name: 'auditor',
      display_name: 'Auditor',
      permissions: ['audit:read'],
    });
    expect(created.status).toBe(201);
    const role = (await json(created)).role;
    expect(role).toMatchObject({ role_name: 'auditor', permissions: '["audit:read"]', is_active: 1 });
    expect(
      (
        await f.asSuper('POST', '/admin/system/roles', {
          role_name: 'auditor',
          display_name: 'A',
          permissions: ['audit:read'],
        })
      ).status,
    ).toBe(409);
    expect(
      (await f.asSuper('POST', '/admin/system/roles', { role_name: 'none', display_name: 'N', permissions: [] }))
        .status,
    ).toBe(422);

    const user = await f.make('auditor@example.org', 'admin', 'admin');
    const token = await f.session(user);
    expect(
      (await f.asSuper('POST', '/admin/system/roles/assign', { identity_user_id: user.id, role_name: 'auditor' }))
        .status,
    ).toBe(200);
    expect((await f.call('GET', '/admin/system/audit', token)).status).toBe(200);
    expect((await f.call('GET', '/admin/system/tiers', token)).status).toBe(403);

    const patched = await f.asSuper('PATCH', `/admin/system/roles/${role.id}`, { permissions: ['admin:read'] });
    expect((await json(patched)).role.permissions).toBe('["admin:read"]');
    // The very next request goes by the new permissions.
    expect((await f.call('GET', '/admin/system/tiers', token)).status).toBe(200);
    expect((await f.call('GET', '/admin/system/audit', token)).status).toBe(403);

    await f.asSuper('PATCH', `/admin/system/roles/${role.id}`, { is_active: false });
    expect((await f.call('GET', '/admin/system/tiers', token)).status).toBe(403);
  });

  test('assign again updates; an expired assignment grants nothing from the moment it expires; revoke', async () => {
    const user = await f.make('temp@example.org', 'admin', 'admin');
    const token = await f.session(user);
    const expires = new Date(f.clock.now + 60_000).toISOString();
    await f.asSuper('POST', '/admin/system/roles/assign', { identity_user_id: user.id, role_name: 'viewer' });
    const again = await json(
      await f.asSuper('POST', '/admin/system/roles/assign', {
        identity_user_id: user.id,
        role_name: 'viewer',
        expires_at: expires,
      }),
    );
    expect(again.assignment).toMatchObject({
      role_name: 'viewer',
      expires_at: expires,
      assigned_by: 'super@example.org',
    });
    const listed = await json(await f.asSuper('GET', `/admin/system/roles/assignments?identity_user_id=${user.id}`));
    expect(listed.assignments).toHaveLength(1);
    expect((await f.call('GET', '/admin/system/roles', token)).status).toBe(200);
    f.clock.now += 60_000;
    try {
      expect((await f.call('GET', '/admin/system/roles', token)).status).toBe(403);
      expect((await json(await f.call('GET', '/admin/system/my-permissions', token))).permissions).toEqual([]);
    } finally {
      f.clock.now -= 60_000;
    }
    const revoked = await f.call('DELETE', '/admin/system/roles/revoke', f.tokens['super-admin'], {
      identity_user_id: user.id,
      role_name: 'viewer',
    });
    expect(await json(revoked)).toMatchObject({ success: true, message: expect.any(String) });
    expect((await f.call('GET', '/admin/system/roles', token)).status).toBe(403);
    const audit = await json(await f.asSuper('GET', `/admin/system/audit?resource_id=${user.id}&action=role.assign`));
    expect(audit.total).toBe(2);
    expect(JSON.parse(audit.logs[0].new_values)).toMatchObject({ expires_at: expires });
    expect(JSON.parse(audit.logs[1].old_values)).toBeNull();
  });
});

describe('tiers, scopes, overrides', () => {
  test('a tier change applies to the next request, by session and by API key', async () => {
    const key = await f.key(f.users.pro, ['compile']);
    const limit = async (bearer: string | undefined) =>
      (await f.call('GET', '/api/keys', bearer)).headers.get('x-ratelimit-limit');
    expect(await limit(f.tokens.pro)).toBe('300');
    expect(await limit(key)).toBe('300');
    const put = await json(
      await f.asSuper('PUT', '/admin/system/tiers/pro', { rate_limit: 123, features: { maxSources: 5 } }),
    );
    expect(put.tier).toMatchObject({ tier_name: 'pro', rate_limit: 123, features: '{"maxSources":5}' });
    expect(await limit(f.tokens.pro)).toBe('123');
    expect(await limit(key)).toBe('123');
    const audit = await json(await f.asSuper('GET', '/admin/system/audit?action=tier.update&limit=1'));
    expect(audit.logs[0]).toMatchObject({
      resource_type: 'tier_config',
      resource_id: 'pro',
      status: 'success',
      actor_email: 'super@example.org',
    });
    expect(JSON.parse(audit.logs[0].old_values).rate_limit).toBe(300);
    expect(JSON.parse(audit.logs[0].new_values).rate_limit).toBe(123);
    await f.asSuper('PUT', '/admin/system/tiers/pro', { rate_limit: 300 });
  });

  test('built-in tiers are not deleted; an unknown one is 404', async () => {
    expect((await f.asSuper('DELETE', '/admin/system/tiers/free')).status).toBe(409);
    expect((await f.asSuper('DELETE', '/admin/system/tiers/gold')).status).toBe(404);
  });

  test('an override created, changed and deleted applies to the next request', async () => {
    expect((await f.call('POST', '/api/configuration/validate', undefined, {})).status).toBe(401);
    const created = await json(
      await f.asSuper('POST', '/admin/system/endpoints', {
        path_pattern: '/api/configuration/validate',
        method: 'post',
        is_public: true,
      }),
    );
    expect(created.endpoint).toMatchObject({ method: 'POST', is_public: 1, is_active: 1 });
    expect((await f.call('POST', '/api/configuration/validate', undefined, {})).status).not.toBe(401);
    await f.asSuper('PUT', `/admin/system/endpoints/${created.endpoint.id}`, { is_active: false });
    expect((await f.call('POST', '/api/configuration/validate', undefined, {})).status).toBe(401);
    expect((await f.asSuper('DELETE', `/admin/system/endpoints/${created.endpoint.id}`)).status).toBe(200);
    expect(
      (await f.asSuper('POST', '/admin/system/endpoints', { path_pattern: '/api/rules', required_tier: 'gold' }))
        .status,
    ).toBe(422);
  });

  test('built-in scopes are not deleted (409, as built-in tiers); deactivated and back instead', async () => {
    for (const name of ['compile', 'rules', 'admin']) {
      const res = await f.asSuper('DELETE', `/admin/system/scopes/${name}`);
      expect(res.status).toBe(409);
      expect((await json(res)).detail).toMatch(new RegExp(`The ${name} scope is built in`));
    }
    const listed = (await json(await f.asSuper('GET', '/admin/system/scopes'))).scopes.map((s: Loose) => s.scope_name);
    expect(listed).toEqual(expect.arrayContaining(['compile', 'rules', 'admin']));
    // Still there to change, so keys can still be given `admin`.
    expect((await f.asSuper('PUT', '/admin/system/scopes/admin', { is_active: false })).status).toBe(200);
    expect((await f.asSuper('PUT', '/admin/system/scopes/admin', { is_active: true })).status).toBe(200);
    const admin = await f.make('scoped-admin@example.org', 'admin', 'admin');
    const made = await f.call('POST', '/api/keys', await f.session(admin), { name: 'ops', scopes: ['admin'] });
    expect(made.status).toBe(201);
  });

  test('an override that could change no route is refused with the reason', async () => {
    for (const [path_pattern, method, reason] of [
      ['/admin/system/tiers/free', 'PUT', /administrators’ routes only|administrators' routes only/],
      ['/api/admin/*', '*', /administrators' routes only/],
      ['/api/nothing-here', '*', /No route answers \* \/api\/nothing-here/],
      ['/api/keys', 'PATCH', /No route answers PATCH \/api\/keys/],
      // The gate compares the path asked for as it is: a placeholder would reach nothing.
      ['/api/rules/:id', 'DELETE', /names a parameter/],
      ['/api/rules/{id}', '*', /names a parameter/],
    ] as const) {
      const res = await f.asSuper('POST', '/admin/system/endpoints', { path_pattern, method, is_public: true });
      expect(res.status, path_pattern).toBe(422);
      expect((await json(res)).detail).toMatch(reason);
    }
    // A prefix reaching ordinary routes too is accepted: it applies to those.
    const mixed = await f.asSuper('POST', '/admin/system/endpoints', { path_pattern: '/api/*', method: 'GET' });
    expect(mixed.status).toBe(201);
    await f.asSuper('DELETE', `/admin/system/endpoints/${(await json(mixed)).endpoint.id}`);
  });

  test('a scope update names an existing tier', async () => {
    expect((await f.asSuper('PUT', '/admin/system/scopes/rules', { required_tier: 'gold' })).status).toBe(422);
    const put = await json(await f.asSuper('PUT', '/admin/system/scopes/rules', { description: 'Rules!' }));
    expect(put.scope).toMatchObject({ scope_name: 'rules', description: 'Rules!' });
  });
});

describe("the specification's shapes: JSON-encoded string columns", () => {
  test('role permissions, tier features and override required_scopes answer as JSON text, either form in', async () => {
    // In as JSON text, out as JSON text; the gate reads the permissions it encodes.
    const made = await json(
      await f.asSuper('POST', '/admin/system/roles', {
        role_name: 'texted',
        display_name: 'Texted',
        permissions: '["flags:read","audit:read"]',
      }),
    );
    expect(made.role.permissions).toBe('["flags:read","audit:read"]');
    const listed = (await json(await f.asSuper('GET', '/admin/system/roles'))).roles;
    expect(listed.find((r: Loose) => r.role_name === 'viewer').permissions).toEqual(expect.any(String));
    expect(JSON.parse(listed.find((r: Loose) => r.role_name === 'viewer').permissions)).toContain('audit:read');
    const user = await f.make('texted@example.org', 'admin', 'admin');
    await f.asSuper('POST', '/admin/system/roles/assign', { identity_user_id: user.id, role_name: 'texted' });
    expect((await f.call('GET', '/admin/system/audit', await f.session(user))).status).toBe(200);
    // A string that is not JSON, or JSON of the wrong thing, is refused naming the field.
    for (const bad of ['audit:read', '[]', '["no:such"]']) {
      const res = await f.asSuper('PATCH', `/admin/system/roles/${made.role.id}`, { permissions: bad });
      expect(res.status).toBe(422);
      expect(JSON.stringify(await json(res))).toMatch(/permissions/);
    }

    const tier = await json(await f.asSuper('PUT', '/admin/system/tiers/free', { features: '{"maxSources":3}' }));
    expect(tier.tier.features).toBe('{"maxSources":3}');
    const tiers = (await json(await f.asSuper('GET', '/admin/system/tiers'))).tiers;
    expect(tiers.find((t: Loose) => t.tier_name === 'free').features).toBe('{"maxSources":3}');
    const context = (await json(await f.asSuper('GET', '/admin/system/my-context'))).context;
    expect(context.tiers.find((t: Loose) => t.tier_name === 'free').features).toBe('{"maxSources":3}');
    expect((await f.asSuper('PUT', '/admin/system/tiers/free', { features: '[1]' })).status).toBe(422);
    await f.asSuper('PUT', '/admin/system/tiers/free', { features: {} });

    const override = await json(
      await f.asSuper('POST', '/admin/system/endpoints', {
        path_pattern: '/api/rules/*',
        required_scopes: ['rules'],
      }),
    );
    expect(override.endpoint.required_scopes).toBe('["rules"]');
    const changed = await json(
      await f.asSuper('PUT', `/admin/system/endpoints/${override.endpoint.id}`, { required_scopes: '["compile"]' }),
    );
    expect(changed.endpoint.required_scopes).toBe('["compile"]');
    const cleared = await json(
      await f.asSuper('PUT', `/admin/system/endpoints/${override.endpoint.id}`, { required_scopes: null }),
    );
    expect(cleared.endpoint.required_scopes).toBeNull();
    const endpoints = (await json(await f.asSuper('GET', '/admin/system/endpoints'))).endpoints;
    expect(endpoints.find((e: Loose) => e.id === override.endpoint.id).required_scopes).toBeNull();
    await f.asSuper('DELETE', `/admin/system/endpoints/${override.endpoint.id}`);
    // The OpenAPI document still describes these bodies.
    expect((await f.call('GET', '/api/openapi.json')).status).toBe(200);
  });
});

describe('announcements and audit', () => {
  test('an announcement is current only inside active_from..active_until', async () => {
    const from = new Date(f.clock.now + 1_000).toISOString();
    const until = new Date(f.clock.now + 2_000).toISOString();
    const made = await json(
      await f.asSuper('POST', '/admin/system/announcements', {
        title: 'Maintenance',
        active_from: from,
        active_until: until,
      }),
    );
    expect(made.announcement).toMatchObject({ severity: 'info', created_by: 'super@example.org' });
    const current = async () =>
      (await json(await f.asSuper('GET', '/admin/system/my-context'))).context.announcements.map((a: Loose) => a.title);
    expect(await current()).not.toContain('Maintenance');
    f.clock.now += 1_000;
    expect(await current()).toContain('Maintenance');
    f.clock.now += 1_000;
    expect(await current()).not.toContain('Maintenance');
    f.clock.now -= 2_000;
    expect(
      (await f.asSuper('PATCH', `/admin/system/announcements/${made.announcement.id}`, { severity: 'loud' })).status,
    ).toBe(422);
    expect((await f.asSuper('DELETE', `/admin/system/announcements/${made.announcement.id}`)).status).toBe(200);
  });

  test('active_from not before active_until is refused (422 naming both), on create and change', async () => {
    const early = new Date(f.clock.now).toISOString();
    const late = new Date(f.clock.now + 60_000).toISOString();
    const refused = await f.asSuper('POST', '/admin/system/announcements', {
      title: 'Backwards',
      active_from: late,
      active_until: early,
    });
    expect(refused.status).toBe(422);
    expect((await json(refused)).detail).toBe(`active_from (${late}) must be before active_until (${early})`);
    expect(
      (
        await f.asSuper('POST', '/admin/system/announcements', {
          title: 'Empty',
          active_from: late,
          active_until: late,
        })
      ).status,
    ).toBe(422);
    const titles = (await json(await f.asSuper('GET', '/admin/system/announcements'))).announcements.map(
      (a: Loose) => a.title,
    );
    expect(titles).not.toContain('Backwards');
    // A change is checked against the stored other end; clearing an end (null) opens the window.
    const made = await json(
      await f.asSuper('POST', '/admin/system/announcements', {
        title: 'Window',
        active_from: early,
        active_until: late,
      }),
    );
    const patch = (body: unknown) => f.asSuper('PATCH', `/admin/system/announcements/${made.announcement.id}`, body);
    const moved = await patch({ active_from: new Date(f.clock.now + 120_000).toISOString() });
    expect(moved.status).toBe(422);
    expect((await json(moved)).detail).toMatch(/^active_from \(.+\) must be before active_until \(.+\)$/);
    expect((await patch({ active_until: early })).status).toBe(422);
    expect((await patch({ active_until: null })).status).toBe(200);
    expect((await patch({ active_from: late })).status).toBe(200);
    expect((await json(await patch({ title: 'Window 2' }))).announcement).toMatchObject({
      active_from: late,
      active_until: null,
    });
    await f.asSuper('DELETE', `/admin/system/announcements/${made.announcement.id}`);
  });

  test('audit pages: limit defaults to 50, at most 100, offset, total, filters', async () => {
    for (let i = 0; i < 60; i++) await f.asSuper('POST', '/admin/system/announcements', { title: `n${i}` });
    const page = await json(await f.asSuper('GET', '/admin/system/audit?action=announcement.create'));
    expect(page.limit).toBe(50);
    expect(page.logs).toHaveLength(50);
    expect(page.total).toBeGreaterThanOrEqual(60);
    const next = await json(
      await f.asSuper('GET', `/admin/system/audit?action=announcement.create&offset=50&limit=100`),
    );
    expect(next.logs).toHaveLength(page.total - 50);
    expect((await f.asSuper('GET', '/admin/system/audit?limit=101')).status).toBe(422);
    const denied = await json(await f.asSuper('GET', '/admin/system/audit?status=denied'));
    expect(denied.logs.every((l: Loose) => l.status === 'denied')).toBe(true);
  });

  test('my-context tells the caller who they are, their roles, permissions and evaluated flags', async () => {
    await f.asSuper('POST', '/admin/config/feature-flags', {
      key: 'new-ui',
      enabled: true,
      default_variation: 'off',
      variations: { off: false, on: true },
      rules: [
        {
          priority: 1,
          conditions: [{ attribute: 'email', operator: 'ends_with', value: '@example.org' }],
          serve_variation: 'on',
        },
      ],
    });
    const ctx = (await json(await f.call('GET', '/admin/system/my-context', f.tokens.viewer))).context;
    expect(ctx.identity.email).toBe('viewer@example.org');
    expect(ctx.roles).toEqual(['viewer']);
    expect(ctx.permissions).toContain('audit:read');
    expect(ctx.flags['new-ui']).toMatchObject({ value: true, variation: 'on', reason: 'rule' });
    expect(ctx.tiers.map((t: Loose) => t.tier_name)).toContain('pro');
  });
});
