import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { addUser, type ServeProcess, startServe } from '../../support/serve-process.js';
import { call, PASSWORD, rootAndEditor } from '../../support/serve-accounts.js';

/**
 * Issue 30, point 5, against a real `flc serve` (private sources allowed for the local lists;
 * 127.0.0.1 a trusted proxy, so that `X-Forwarded-For` names the clients).
 */

const dir = mkdtempSync(join(tmpdir(), 'flc-tail-attack-'));
const db = join(dir, 'flc.db');
let server: ServeProcess;
let root: string;
let lists: Server;
let listsUrl = '';
let hook: Server;
const hookBodies: string[] = [];
const served = new Map<string, (res: import('node:http').ServerResponse) => void>();
const hits = new Map<string, number>();

const listen = (s: Server) =>
  new Promise<string>((resolve) =>
    s.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(s.address() as AddressInfo).port}`)),
  );
const from = (address: string) => ({ 'x-forwarded-for': address });
const signUp = (email: string, address: string, password = PASSWORD) =>
  call(server.url, 'POST', '/api/auth/sign-up/email', undefined, { email, password }, from(address));

beforeAll(async () => {
  lists = createServer((req, res) => {
    hits.set(req.url ?? '', (hits.get(req.url ?? '') ?? 0) + 1);
    const answer = served.get(req.url ?? '');
    if (answer) answer(res);
    else res.writeHead(404).end();
  });
  listsUrl = await listen(lists);
  hook = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      hookBodies.push(body);
      res.writeHead(204).end();
    });
  });
  const hookUrl = await listen(hook);
  server = await startServe(['--db', db, '--allow-private-sources', '--trust-proxy', '127.0.0.1'], {
    WEBHOOK_URL: `${hookUrl}/hook`,
  });
  ({ root } = await rootAndEditor(server, db));
}, 60_000);
afterAll(async () => {
  await server.stop();
  for (const s of [lists, hook]) s.closeAllConnections();
  await Promise.all([new Promise((r) => lists.close(r)), new Promise((r) => hook.close(r))]);
  rmSync(dir, { recursive: true, force: true });
});

describe('point 5 of the attack', () => {
  test('a private rule set named by an include of a remote list reaches nobody, deduplicated or not', async () => {
    const a = await signUp('ruleset-a@example.org', '198.51.100.1');
    const b = await signUp('ruleset-b@example.org', '198.51.100.2');
    const made = await call(server.url, 'POST', '/api/rules', a.json.token, {
      name: 'private',
      rules: ['||private-of-a.example^'],
    });
    expect(made.status, made.text).toBe(201);
    const id = made.json.ruleSet.id as string;
    served.set('/with-ruleset.txt', (res) => {
      // Slow, so that both compiles are in flight together.
      setTimeout(() => res.writeHead(200).end(`||public.example^\n!#include flc-ruleset:${id}\n`), 300);
    });
    const configuration = { name: 'same', sources: [{ source: `${listsUrl}/with-ruleset.txt` }] };
    const [ra, rb] = await Promise.all([
      call(server.url, 'POST', '/api/compile', a.json.token, { configuration }),
      call(server.url, 'POST', '/api/compile', b.json.token, { configuration }),
    ]);
    for (const r of [ra, rb]) {
      expect(r.text).not.toContain('private-of-a.example');
      expect(r.status, r.text).toBe(422);
      expect(r.text).toMatch(/not on the same origin/);
    }
  });

  test('keys made with a keys-scoped key stop working when that key is revoked', async () => {
    const user = await signUp('keys@example.org', '198.51.100.3');
    const parent = await call(server.url, 'POST', '/api/keys', user.json.token, {
      name: 'parent',
      scopes: ['keys', 'rules'],
    });
    expect(parent.status, parent.text).toBe(201);
    const child = await call(server.url, 'POST', '/api/keys', parent.json.key, { name: 'child', scopes: ['rules'] });
    expect(child.status, child.text).toBe(201);
    const grandchild = await call(server.url, 'POST', '/api/keys', parent.json.key, {
      name: 'grandchild',
      scopes: ['keys', 'rules'],
    });
    const great = await call(server.url, 'POST', '/api/keys', grandchild.json.key, {
      name: 'great',
      scopes: ['rules'],
    });
    expect(great.status, great.text).toBe(201);
    const use = (key: string) => call(server.url, 'POST', '/api/validate-rule', key, { rule: '||a.example^' });
    expect((await use(child.json.key)).status).toBe(200);
    expect((await call(server.url, 'DELETE', `/api/keys/${parent.json.id}`, user.json.token)).status).toBe(200);
    for (const k of [parent, child, grandchild, great]) expect((await use(k.json.key)).status).toBe(401);
  });

  test('refused requests are rate limited; their audit rows are few and cut', async () => {
    const address = '203.0.113.77';
    const agent = 'A'.repeat(8_000);
    const statuses: number[] = [];
    for (let i = 0; i < 15; i += 1) {
      const res = await fetch(`${server.url}/admin/system/roles`, {
        headers: { ...from(address), 'user-agent': agent },
      });
      statuses.push(res.status);
      await res.arrayBuffer();
    }
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(10).every((s) => s === 429)).toBe(true);
    const audit = await call(server.url, 'GET', `/admin/system/audit?status=denied&limit=100`, root);
    expect(audit.status, audit.text).toBe(200);
    const rows = audit.json.logs as { ip_address: string; user_agent: string }[];
    const mine = rows.filter((r) => r.ip_address === address);
    expect(mine.length).toBe(10);
    for (const r of mine) expect(r.user_agent.length).toBeLessThanOrEqual(512);
  });

  test('an IPv6 /64 counts as one client; a proxy writing ip:port does not merge its clients', async () => {
    const v6 = await Promise.all(
      Array.from({ length: 7 }, (_, i) => signUp(`v6-${i}@example.org`, `2001:db8:7:7::${i + 1}`)),
    );
    expect(v6.filter((r) => r.status === 200)).toHaveLength(5);
    expect(v6.filter((r) => r.status === 429)).toHaveLength(2);
    // Another /64 is another client.
    expect((await signUp('v6-other@example.org', '2001:db8:7:8::1')).status).toBe(200);
    // `ip:port` entries: each address counted as itself, not as the proxy.
    const ported = await Promise.all(
      Array.from({ length: 4 }, (_, i) => signUp(`port-${i}@example.org`, `192.0.2.${10 + i}:${40_000 + i}`)),
    );
    expect(ported.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const same = await Promise.all(
      Array.from({ length: 6 }, (_, i) => signUp(`same-${i}@example.org`, `192.0.2.99:${50_000 + i}`)),
    );
    expect(same.filter((r) => r.status === 429)).toHaveLength(1);
  });

  test('password guesses from one /64 are limited together', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 12; i += 1) {
      const res = await call(
        server.url,
        'POST',
        '/api/auth/sign-in/email',
        undefined,
        { email: 'root@example.org', password: `guess ${i}` },
        from(`2001:db8:9:9::${i + 1}`),
      );
      statuses.push(res.status);
    }
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(10).every((s) => s === 429)).toBe(true);
  });

  test('deep JSON is a 400, not a 500, on the error log and the feature flags', async () => {
    const deep = `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`;
    const log = await call(
      server.url,
      'POST',
      '/api/log/frontend-error',
      undefined,
      `{"source":"browser","severity":"low","message":"m","context":${deep}}`,
      from('198.51.100.20'),
    );
    expect(log.status, log.text).toBe(400);
    const flag = await call(server.url, 'POST', '/admin/config/feature-flags', root, `{"key":"x","value":${deep}}`);
    expect(flag.status, flag.text).toBe(400);
    expect(flag.json.detail).toMatch(/nested deeper than 64/);
  });

  test('an override that makes /api/rules public answers an anonymous caller 401, not 500', async () => {
    const made = await call(server.url, 'POST', '/admin/system/endpoints', root, {
      path_pattern: '/api/rules',
      method: 'GET',
      is_public: true,
    });
    expect(made.status, made.text).toBeLessThan(300);
    const res = await call(server.url, 'GET', '/api/rules', undefined, undefined, from('198.51.100.21'));
    expect(res.status, res.text).toBe(401);
  });

  test('weak passwords are refused at sign-up, change, reset and flc user add', async () => {
    for (const weak of ['12345678', 'password', '        ', 'qwertyuiop', 'aaaaaaaaaa'])
      expect((await signUp(`weak-${weak.length}${weak[0]}@example.org`, '198.51.100.30', weak)).status, weak).toBe(422);
    const user = await signUp('strong@example.org', '198.51.100.31');
    const change = await call(server.url, 'POST', '/api/auth/change-password', user.json.token, {
      currentPassword: PASSWORD,
      newPassword: 'password1',
    });
    expect(change.status, change.text).toBe(422);
    const reset = await call(server.url, 'POST', `/admin/local-users/${user.json.user.id}/reset-password`, root, {
      password: '123456789',
    });
    expect(reset.status, reset.text).toBe(422);
  });

  test('credential answers are not cached; security headers are sent', async () => {
    const res = await call(server.url, 'POST', '/api/auth/sign-in/email', undefined, {
      email: 'root@example.org',
      password: PASSWORD,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    const key = await call(server.url, 'POST', '/api/keys', res.json.token, { name: 'cached?' });
    expect(key.headers.get('cache-control')).toBe('no-store');
  });

  test('key names refuse NUL, bidirectional and terminal escape characters', async () => {
    for (const name of ['a\u0000b', 'evil\u202Egnp.exe', '\u001b[2Jwiped', 'a\u2066b'])
      expect((await call(server.url, 'POST', '/api/keys', root, { name })).status, JSON.stringify(name)).toBe(422);
  });

  test('an API-disabled user can sign out', async () => {
    const user = await signUp('disabled@example.org', '198.51.100.40');
    const patched = await call(server.url, 'PATCH', `/api/admin/users/${user.json.user.id}`, root, {
      apiDisabled: true,
    });
    expect(patched.status, patched.text).toBe(200);
    expect((await call(server.url, 'POST', '/api/auth/sign-out', user.json.token)).status).toBe(200);
    expect((await call(server.url, 'GET', '/api/auth/get-session', user.json.token)).json.session).toBeNull();
  });

  test('a redirect to a URL with credentials is refused once, not retried', async () => {
    served.set('/redirect.txt', (res) =>
      res.writeHead(302, { location: `${listsUrl.replace('http://', 'http://user:pass@')}/target.txt` }).end(),
    );
    const user = await signUp('redirect@example.org', '198.51.100.50');
    const res = await call(server.url, 'POST', '/api/compile', user.json.token, {
      configuration: { name: 'r', sources: [{ source: `${listsUrl}/redirect.txt` }] },
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.text).toMatch(/credentials/);
    expect(hits.get('/redirect.txt')).toBe(1);
  });

  test('anonymous /api/notify refuses keys of its own making; the webhook gets nothing', async () => {
    const before = hookBodies.length;
    const res = await call(
      server.url,
      'POST',
      '/api/notify',
      undefined,
      { event: 'x', message: 'm', injected: { alert: 'page everyone' } },
      from('198.51.100.60'),
    );
    expect(res.status, res.text).toBe(422);
    expect(hookBodies.length).toBe(before);
    const ok = await call(
      server.url,
      'POST',
      '/api/notify',
      undefined,
      { event: 'x', message: 'm' },
      from('198.51.100.61'),
    );
    expect(ok.status, ok.text).toBe(200);
    expect(hookBodies.at(-1)).not.toContain('injected');
  });

  // Last: its synchronous child process holds this test process, and the server then closes the
  // idle keep-alive connection the next request would have reused.
  test('flc user add refuses a weak password too', () => {
    const cli = addUser(db, 'weak-cli@example.org', 'user', 'iloveyou');
    expect(cli.status).toBe(2);
    expect(cli.stderr).toMatch(/most common passwords/);
  });
});
