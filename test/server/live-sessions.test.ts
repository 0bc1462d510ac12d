import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { startServer as startFlc, type RunningServer } from '../../src/server/start.js';
import { startServer as startLists, type TestServer } from '../support/http-server.js';
import { openStore } from '../../src/server/store/open.js';
import { startSession } from '../../src/server/auth/sessions.js';

let flc: RunningServer;
let lists: TestServer;
let dir: string;
let adminToken: string;
let userToken: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'flc-live-'));
  const file = join(dir, 'flc.db');
  const setup = await openStore(file);
  const admin = await setup.createUser({
    email: 'root@example.org',
    role: 'admin',
    tier: 'admin',
    password: { hash: 'h', salt: 's', iterations: 1 },
  });
  await setup.assignRole(admin.id, 'viewer', 'test', new Date().toISOString());
  adminToken = (await startSession(setup, admin, Date.now())).token;
  await setup.close();
  // A list that never answers keeps a compile running until it is cancelled.
  lists = await startLists(() => undefined);
  flc = await startFlc({
    host: '127.0.0.1',
    port: 0,
    version: '1',
    allowPrivateSources: true,
    store: { engine: 'sqlite', file },
    log: () => undefined,
  });
  const signUp = await fetch(`${flc.url}/api/auth/sign-up/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'live@example.org', password: 'a long password' }),
  });
  userToken = (await signUp.json()).token;
});
afterAll(async () => {
  await flc.close(1_000);
  await lists.close();
  rmSync(dir, { recursive: true, force: true });
});

const sessions = async () =>
  (
    await (
      await fetch(`${flc.url}/api/admin/agents/sessions`, { headers: { authorization: `Bearer ${adminToken}` } })
    ).json()
  ).sessions;

describe('GET /api/admin/agents/sessions', () => {
  test('shows who is connected, since when, and their running compiles; forgets closed connections', async () => {
    expect(await sessions()).toEqual([]);
    const ws = new WebSocket(`${flc.url.replace('http', 'ws')}/api/ws/compile`, {
      headers: { authorization: `Bearer ${userToken}` },
    });
    await new Promise((r) => ws.once('open', r));
    ws.send(
      JSON.stringify({
        type: 'compile',
        sessionId: 'c1',
        configuration: { name: 'never ending', sources: [{ source: `${lists.url}/slow.txt` }] },
      }),
    );
    await vi.waitFor(async () => expect((await sessions())[0]?.compiles).toHaveLength(1));
    const [live] = await sessions();
    expect(live).toMatchObject({
      email: 'live@example.org',
      via: 'session',
      keyId: null,
      address: '127.0.0.1',
      compiles: [{ sessionId: 'c1', configurationName: 'never ending' }],
    });
    expect(Date.parse(live.connectedAt)).toBeLessThanOrEqual(Date.parse(live.compiles[0].startedAt));
    ws.send(JSON.stringify({ type: 'cancel', sessionId: 'c1' }));
    await vi.waitFor(async () => expect((await sessions())[0]?.compiles).toEqual([]));
    ws.close();
    await vi.waitFor(async () => expect(await sessions()).toEqual([]));
  });
});
