import { afterAll, describe, expect, onTestFinished, test } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { adminFixture } from './fixture.js';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read loosely here
type Loose = any;
const json = async (res: Response) => (await res.json()) as Record<string, Loose>;

describe('data-subject export and erasure', () => {
  test('export lists assignments, memberships, audit rows; erasure removes the first two, keeps audit', async () => {
    const f = await adminFixture();
    onTestFinished(() => f.store.close());
    const subject = await f.make('subject@example.org', 'admin', 'admin');
    await f.asSuper('POST', '/admin/system/roles/assign', { identity_user_id: subject.id, role_name: 'viewer' });
    await f.store.createConfigRow('user_groups', { group_name: 'ops', display_name: 'Ops' }, f.at());
    await f.store.addGroupMember('ops', subject.id, f.at());
    const exported = (await json(await f.asSuper('GET', `/admin/system/users/${subject.id}/data-export`))).export;
    expect(exported).toMatchObject({
      user_id: subject.id,
      role_assignments: [{ role_name: 'viewer' }],
      group_memberships: [{ group_name: 'ops' }],
      audit_log_truncated: false,
    });
    expect(exported.audit_log_entries.map((e: Loose) => e.action)).toEqual(['role.assign']);
    expect(exported.data_locations.map((l: Loose) => [l.table, l.record_count])).toEqual([
      ['role_assignments', 1],
      ['user_group_members', 1],
      ['audit_log', 1],
    ]);

    const erased = (await json(await f.asSuper('POST', `/admin/system/users/${subject.id}/data-erase`))).erasure;
    expect(erased).toMatchObject({
      user_id: subject.id,
      deleted: { role_assignments: 1, group_memberships: 1 },
      retained: [{ store: 'flc', table: 'audit_log', record_count: 2 }],
    });
    expect(await f.store.assignments({ identity_user_id: subject.id })).toEqual([]);
    expect(await f.store.groupMemberships(subject.id)).toEqual([]);
    const audit = await json(await f.asSuper('GET', `/admin/system/audit?resource_id=${subject.id}`));
    expect(audit.logs.map((l: Loose) => l.action)).toEqual(['user.data_erase', 'user.data_export', 'role.assign']);
  });

  test('the export caps audit rows and says so', async () => {
    const f = await adminFixture();
    onTestFinished(() => f.store.close());
    for (let i = 0; i < 1_005; i++)
      await f.store.appendAudit({
        actor_id: f.users.free.id,
        actor_email: null,
        action: 'x.y',
        resource_type: 't',
        resource_id: null,
        old_values: null,
        new_values: null,
        ip_address: null,
        user_agent: null,
        status: 'success',
        metadata: null,
        created_at: f.at(),
      });
    const exported = (await json(await f.asSuper('GET', `/admin/system/users/${f.users.free.id}/data-export`))).export;
    expect(exported.audit_log_entries).toHaveLength(1_000);
    expect(exported.audit_log_truncated).toBe(true);
  });
});

describe('the access gateway', async () => {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const other = await generateKeyPair('RS256');
  const header = 'X-Gateway-Assertion';
  const f = await adminFixture(undefined, {
    gateway: { header, publicKey: await exportSPKI(publicKey), audience: 'flc' },
  });
  afterAll(() => f.store.close());
  const sign = (key: CryptoKey, aud = 'flc') =>
    new SignJWT({ email: 'super@example.org' })
      .setProtectedHeader({ alg: 'RS256' })
      .setAudience(aud)
      .setExpirationTime('5m')
      .sign(key);
  const bundle = await (await f.asSuper('GET', '/admin/system/config/export')).text();
  const send = (method: string, path: string, assertion?: string, body?: string) =>
    f.call(method, path, f.tokens['super-admin'], body, assertion ? { [header]: assertion } : {});

  test('apply, revert and erase need a valid assertion; dry runs do not', async () => {
    const good = await sign(privateKey);
    const cases = [
      ['POST', '/admin/system/config/import?dryRun=false', bundle],
      ['POST', '/admin/system/config/snapshots/1/revert', undefined],
      ['POST', `/admin/system/users/${f.users.free.id}/data-erase`, undefined],
    ] as const;
    for (const [method, path, body] of cases) {
      for (const bad of [undefined, 'not-a-jwt', await sign(other.privateKey), await sign(privateKey, 'elsewhere')]) {
        const denied = await f.store.audit({ status: 'denied' }, 1, 0);
        expect((await send(method, path, bad, body)).status, `${path} with ${bad}`).toBe(403);
        expect((await f.store.audit({ status: 'denied' }, 1, 0)).total).toBe(denied.total + 1);
      }
      expect((await send(method, path, good, body)).status, path).toBe(200);
    }
    expect((await send('POST', '/admin/system/config/import', undefined, bundle)).status).toBe(200);
  });

  test('every admin route that changes something needs it; reads do not', async () => {
    const good = await sign(privateKey);
    const changes = [
      ['PUT', '/admin/system/tiers/pro', JSON.stringify({ description: 'Pro' })],
      ['POST', '/admin/system/announcements', JSON.stringify({ title: 't', message: 'm' })],
      ['DELETE', `/api/admin/users/${f.users.free.id}`, undefined],
      ['POST', '/api/admin/storage/checkpoint', undefined],
    ] as const;
    for (const [method, path, body] of changes) {
      const refused = await send(method, path, undefined, body);
      expect(refused.status, path).toBe(403);
      expect((await refused.json()).detail).toMatch(/access-gateway assertion/);
      expect((await send(method, path, good, body)).status, path).toBeLessThan(300);
    }
    expect((await send('GET', '/admin/system/tiers')).status).toBe(200);
    const manifest = (await json(await send('GET', '/api/admin'))).routes as { method: string }[];
    expect(manifest.filter((r) => r.method !== 'GET').length).toBeGreaterThan(30);
  });
});

describe('the access gateway by JWKS URL', async () => {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' };
  const jwks = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((r) => jwks.listen(0, '127.0.0.1', r));
  const jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/certs`;
  const f = await adminFixture(undefined, { gateway: { header: 'Cf-Access-Jwt-Assertion', jwksUrl } });
  afterAll(async () => {
    await f.store.close();
    await new Promise((r) => jwks.close(r));
  });

  test('an assertion signed by a key of the set passes; none is 403', async () => {
    const path = `/admin/system/users/${f.users.free.id}/data-erase`;
    expect((await f.asSuper('POST', path)).status).toBe(403);
    const good = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setExpirationTime('5m')
      .sign(privateKey);
    const res = await f.call('POST', path, f.tokens['super-admin'], undefined, { 'Cf-Access-Jwt-Assertion': good });
    expect(res.status).toBe(200);
  });
});
