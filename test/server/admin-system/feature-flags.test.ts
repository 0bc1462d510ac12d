import { afterAll, describe, expect, onTestFinished, test } from 'vitest';
import { adminFixture } from './fixture.js';

const f = await adminFixture();
afterAll(() => f.store.close());
// biome-ignore lint/suspicious/noExplicitAny: response bodies are read loosely here
type Loose = any;
const json = async (res: Response) => (await res.json()) as Record<string, Loose>;
const rules = [
  { priority: 2, conditions: [], serve_variation: 'b' },
  { priority: 1, conditions: [{ attribute: 'tier', operator: 'eq', value: 'admin' }], serve_variation: 'a' },
];

describe('feature flag routes', () => {
  test('create infers the type; a toggle keeps rules and variations; delete', async () => {
    const created = await json(
      await f.asSuper('POST', '/admin/config/feature-flags', {
        key: 'banner_text',
        default_variation: 'none',
        variations: { none: '', a: 'Hello admins', b: 'Hello' },
        rules,
      }),
    );
    expect(created.flag).toMatchObject({ key: 'banner_text', enabled: false, type: 'string', rules });
    const toggled = await json(await f.asSuper('PATCH', '/admin/config/feature-flags/banner_text', { enabled: true }));
    expect(toggled.flag).toMatchObject({ enabled: true, type: 'string', rules, variations: { a: 'Hello admins' } });
    const ctx = (await json(await f.asSuper('GET', '/admin/system/my-context'))).context;
    expect(ctx.flags.banner_text).toMatchObject({ value: 'Hello admins', rule: 1 });
    const list = await json(await f.asSuper('GET', '/admin/config/feature-flags'));
    expect(list).toMatchObject({ success: true, total: 1, items: [{ key: 'banner_text' }] });
    expect((await f.asSuper('DELETE', '/admin/config/feature-flags/banner_text')).status).toBe(200);
    expect((await f.asSuper('DELETE', '/admin/config/feature-flags/banner_text')).status).toBe(404);
    const audit = await json(await f.asSuper('GET', '/admin/system/audit?resource_type=feature_flag'));
    expect(audit.logs.map((l: Loose) => `${l.action} ${l.status}`)).toEqual([
      'flag.delete failure',
      'flag.delete success',
      'flag.update success',
      'flag.create success',
    ]);
  });

  test.each([
    ['a bad key', { key: 'no spaces', default_variation: 'x', variations: { x: 1 } }, 422],
    ['mixed types', { key: 'mixed', default_variation: 'x', variations: { x: 1, y: 'one' } }, 422],
    ['a type the values do not have', { key: 't', type: 'boolean', default_variation: 'x', variations: { x: 1 } }, 422],
    ['an unknown default', { key: 'd', default_variation: 'zz', variations: { x: 1 } }, 422],
    [
      'a rule serving nothing',
      { key: 'r', default_variation: 'x', variations: { x: 1 }, rules: [{ priority: 0, serve_variation: 'q' }] },
      422,
    ],
  ])('%s is refused', async (_what, body, status) => {
    expect((await f.asSuper('POST', '/admin/config/feature-flags', body)).status).toBe(status);
  });

  test('a second flag with the same key is 409', async () => {
    const body = { key: 'dup', default_variation: 'off', variations: { off: false, on: true } };
    expect((await f.asSuper('POST', '/admin/config/feature-flags', body)).status).toBe(201);
    expect((await f.asSuper('POST', '/admin/config/feature-flags', body)).status).toBe(409);
    expect(
      (await f.asSuper('PATCH', '/admin/config/feature-flags/dup', { variations: { off: 0, on: 1 } })).status,
    ).toBe(200);
    expect(
      (await f.asSuper('PATCH', '/admin/config/feature-flags/dup', { variations: { off: 0, on: 'x' } })).status,
    ).toBe(422);
  });
});

describe('an audit row that cannot be written', () => {
  test('is logged, whether the route writes it or the trail does; the change still answers', async () => {
    const logged: string[] = [];
    const g = await adminFixture(undefined, {}, (m) => logged.push(m));
    onTestFinished(() => g.store.close());
    g.store.appendAudit = async () => {
      throw new Error('disk full');
    };
    // The route writes its own row (with the flag's values); then a refusal, whose row the trail writes.
    const created = await g.asSuper('POST', '/admin/config/feature-flags', {
      key: 'lost_row',
      default_variation: 'off',
      variations: { off: false, on: true },
    });
    expect(created.status).toBe(201);
    expect((await g.call('POST', '/admin/config/feature-flags', g.tokens.viewer, { key: 'x' })).status).toBe(403);
    expect(logged.filter((m) => m.startsWith('audit: cannot write') && m.endsWith('disk full'))).toHaveLength(2);
  });
});
