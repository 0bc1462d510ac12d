import { describe, expect, test } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { openStore } from '../../src/server/store/open.js';

const BIN = resolve(import.meta.dirname, '../../bin/run.js');

describe('flc user add, then a real flc serve', () => {
  test('the administrator made on the command line signs in to the server', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'flc-user-'));
    const db = join(dir, 'flc.db');
    const add = spawnSync(process.execPath, [BIN, 'user', 'add', 'root@example.org', '--role', 'admin', '--db', db], {
      input: 'a long admin password\n',
      encoding: 'utf8',
    });
    expect(add.status, add.stderr).toBe(0);
    expect(add.stderr).toContain('created admin root@example.org (tier admin, role super-admin)');
    expect(add.stdout + add.stderr).not.toContain('a long admin password');
    const list = spawnSync(process.execPath, [BIN, 'user', 'list', '--db', db, '--json'], { encoding: 'utf8' });
    expect(JSON.parse(list.stdout).users).toMatchObject([
      { email: 'root@example.org', role: 'admin', tier: 'admin', adminRoles: ['super-admin'] },
    ]);

    const secrets = ['a long admin password', 'a long ci password'];
    const server = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--db', db], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    const url = await new Promise<string>((r, j) => {
      server.stderr.on('data', (d) => {
        err += d;
        const m = /listening on (\S+)/.exec(err);
        if (m) r(m[1]);
      });
      server.once('exit', (code) => j(new Error(`exited ${code}: ${err}`)));
    });
    try {
      const signIn = await fetch(`${url}/api/auth/sign-in/email`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'root@example.org', password: 'a long admin password' }),
      });
      expect(signIn.status).toBe(200);
      const { token } = await signIn.json();
      const session = await (
        await fetch(`${url}/api/auth/get-session`, { headers: { authorization: `Bearer ${token}` } })
      ).json();
      expect(session.user).toMatchObject({ email: 'root@example.org', role: 'admin' });

      // An admin route: the administrator lists and creates local users; nobody else may.
      const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      expect((await fetch(`${url}/admin/local-users`)).status).toBe(401);
      const users = await (await fetch(`${url}/admin/local-users`, { headers: auth })).json();
      expect(users).toMatchObject({
        success: true,
        total: 1,
        users: [{ identifier: 'root@example.org', role: 'admin', tier: 'admin' }],
      });
      const created = await fetch(`${url}/admin/local-users`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ identifier: 'ci@example.org', password: 'a long ci password', tier: 'pro' }),
      });
      expect(created.status).toBe(201);
      const ci = await fetch(`${url}/api/auth/sign-in/email`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'ci@example.org', password: 'a long ci password' }),
      });
      const ciToken = (await ci.json()).token;
      expect(
        (await fetch(`${url}/admin/local-users`, { headers: { authorization: `Bearer ${ciToken}` } })).status,
      ).toBe(403);
      secrets.push(token, ciToken);
    } finally {
      server.kill('SIGTERM');
      await new Promise((r) => server.once('exit', r));
    }
    // The server's own log never shows a password or a token.
    for (const secret of secrets) expect(err).not.toContain(secret);

    // The requests were counted, and the counts were written by the time the server exited.
    const store = await openStore(db);
    const root = (await store.userByEmail('root@example.org'))!;
    const counted = await store.usage(root.id, '2000-01-01');
    await store.close();
    expect(Object.fromEntries(counted.map((u) => [u.route, u.count]))).toEqual({
      'GET /api/auth/get-session': 1,
      'GET /admin/local-users': 1,
      'POST /admin/local-users': 1,
    });
    const remove = spawnSync(process.execPath, [BIN, 'user', 'remove', 'root@example.org', '--db', db], {
      encoding: 'utf8',
    });
    expect(remove.status).toBe(0);
    expect(
      spawnSync(process.execPath, [BIN, 'user', 'remove', 'root@example.org', '--db', db], { encoding: 'utf8' }).status,
    ).toBe(2);
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);
});
