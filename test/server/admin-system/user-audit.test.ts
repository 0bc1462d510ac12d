import { afterAll, describe, expect, test } from 'vitest';
import { adminFixture } from './fixture.js';

const f = await adminFixture();
afterAll(() => f.store.close());
// biome-ignore lint/suspicious/noExplicitAny: response bodies are read loosely here
type Loose = any;
const json = async (res: Response) => (await res.json()) as Record<string, Loose>;
const last = async () => (await f.store.audit({}, 1, 0)).logs[0]!;

describe('the local-user routes are audited', () => {
  test('create, change, ban, delete each write one row with the values; a refusal is denied', async () => {
    const made = await json(
      await f.asSuper('POST', '/admin/local-users', { identifier: 'new@example.org', password: 'a long password 1' }),
    );
    const id = made.user.id;
    expect(await last()).toMatchObject({ action: 'local_user.create', resource_id: id, status: 'success' });
    expect(JSON.stringify(await last())).not.toContain('a long password');

    await f.asSuper('PATCH', `/admin/local-users/${id}`, { tier: 'pro' });
    const patched = await last();
    expect(patched).toMatchObject({ action: 'local_user.update', resource_id: id, actor_email: 'super@example.org' });
    expect([JSON.parse(patched.old_values!).tier, JSON.parse(patched.new_values!).tier]).toEqual(['free', 'pro']);

    await f.asSuper('POST', `/api/admin/users/${id}/ban`, { reason: 'spam' });
    expect(await last()).toMatchObject({ action: 'user.ban', resource_id: id, status: 'success' });

    const before = (await f.store.audit({}, 1, 0)).total;
    expect((await f.call('DELETE', `/admin/local-users/${id}`, f.tokens.viewer)).status).toBe(403);
    expect(await last()).toMatchObject({
      action: 'local_user.delete',
      status: 'denied',
      actor_email: 'viewer@example.org',
    });
    expect((await f.asSuper('DELETE', `/admin/local-users/${id}`)).status).toBe(200);
    expect(await last()).toMatchObject({ action: 'local_user.delete', status: 'success' });
    expect((await f.store.audit({}, 1, 0)).total).toBe(before + 2);
  });
});
