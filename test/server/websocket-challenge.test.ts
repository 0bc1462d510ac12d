import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { startChallengeVerifier, startServer, type TestServer } from '../support/http-server.js';
import { type InProcessFlc, startInProcessFlc } from '../support/flc-in-process.js';
import { freshPostgresUrl, POSTGRES_URL } from '../support/postgres.js';

// A real `flc serve` with the bot challenge configured: a WebSocket compile needs a token in each
// compile message, as `POST /api/compile` needs one in its body.
let flc: InProcessFlc;
let lists: TestServer;
let verifier: Awaited<ReturnType<typeof startChallengeVerifier>>;
let token: string;
const saved = { ...process.env };

beforeAll(async () => {
  verifier = await startChallengeVerifier('s3cret');
  lists = await startServer((_req, res) => res.writeHead(200).end('0.0.0.0 ads.example.com\n'));
  Object.assign(process.env, { CHALLENGE_SECRET_KEY: 's3cret', CHALLENGE_VERIFY_URL: `${verifier.url}/siteverify` });
  flc = await startInProcessFlc({ allowPrivateSources: true }).finally(() => {
    process.env = saved;
  });
  token = await flc.signIn('ws-challenge@example.org');
});
afterAll(async () => {
  await flc.close();
  await lists.close();
  await verifier.close();
});

/** A connection, and the first message about session `s1` that is not progress. */
async function connect() {
  const ws = new WebSocket(`${flc.url.replace('http', 'ws')}/api/ws/compile`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const answer = new Promise<Record<string, unknown>>((resolve) =>
    ws.on('message', (data) => {
      const m = JSON.parse(String(data));
      if (m.sessionId === 's1' && m.type !== 'compile:started' && m.type !== 'event') resolve(m);
    }),
  );
  await new Promise((r) => ws.once('open', r));
  return { ws, answer };
}
const configuration = () => ({ name: 'c', sources: [{ source: `${lists.url}/list.txt` }] });

/** Sends one compile message on a new connection and answers the first message about its session. */
async function compileOver(fields: Record<string, string>) {
  const { ws, answer } = await connect();
  ws.send(JSON.stringify({ type: 'compile', sessionId: 's1', configuration: configuration(), ...fields }));
  const m = await answer;
  ws.close();
  return m;
}

describe('the bot challenge on the WebSocket compile', () => {
  test('a compile message without a token, or with a rejected one, is refused and not compiled', async () => {
    expect(await compileOver({})).toEqual({
      type: 'error',
      code: 'CHALLENGE_FAILED',
      error: 'Bot challenge token required',
      sessionId: 's1',
    });
    expect(await compileOver({ challengeToken: 'bad' })).toMatchObject({
      type: 'error',
      code: 'CHALLENGE_FAILED',
      error: 'Bot challenge verification failed',
    });
  });

  test('a good token compiles, under either field name', async () => {
    expect(await compileOver({ challengeToken: 'good' })).toMatchObject({
      type: 'compile:complete',
      rules: expect.arrayContaining(['0.0.0.0 ads.example.com']),
    });
    expect(await compileOver({ turnstileToken: 'good' })).toMatchObject({ type: 'compile:complete' });
  });

  test('a token longer than the vendor issues is refused without asking it', async () => {
    const asked = verifier.forms.length;
    expect(await compileOver({ challengeToken: 'x'.repeat(2049) })).toMatchObject({
      code: 'CHALLENGE_FAILED',
      error: 'Bot challenge verification failed',
    });
    expect(verifier.forms.length).toBe(asked);
  });

  test('a cancel while the token is checked stops the check: cancelled, not started', async () => {
    const { ws, answer } = await connect();
    const seen: string[] = [];
    ws.on('message', (data) => seen.push(JSON.parse(String(data)).type));
    ws.send(
      JSON.stringify({ type: 'compile', sessionId: 's1', configuration: configuration(), challengeToken: 'slow' }),
    );
    while (!verifier.forms.some((f) => f.includes('response=slow'))) await new Promise((r) => setTimeout(r, 10));
    ws.send(JSON.stringify({ type: 'cancel', sessionId: 's1' }));
    expect(await answer).toEqual({ type: 'compile:cancelled', sessionId: 's1' });
    ws.close();
    while (verifier.dropped.length === 0) await new Promise((r) => setTimeout(r, 10));
    expect(seen).not.toContain('compile:started');
  });
});

describe('the bot challenge on the HTTP compile, on the same server', () => {
  const post = (body: object) =>
    fetch(`${flc.url}/api/compile`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ configuration: configuration(), ...body }),
    });

  test('refused without a good token, compiled with one', async () => {
    expect((await post({})).status).toBe(403);
    expect((await post({ challengeToken: 'x'.repeat(2049) })).status).toBe(403);
    expect((await post({ challengeToken: 'good' })).status).toBe(200);
  });
});

// On PostgreSQL a large message's meter answers after a close can arrive: the messages that waited
// for it are read after the connection is gone, and must start nothing (no vendor call, no compile).
describe.skipIf(!POSTGRES_URL)('a connection closed while its large messages wait for the meter', () => {
  let server: InProcessFlc;
  let bearer: string;
  beforeAll(async () => {
    Object.assign(process.env, { CHALLENGE_SECRET_KEY: 's3cret', CHALLENGE_VERIFY_URL: `${verifier.url}/siteverify` });
    const store = { engine: 'postgres' as const, url: await freshPostgresUrl() };
    server = await startInProcessFlc({ allowPrivateSources: true, store }).finally(() => {
      process.env = saved;
    });
    const up = await fetch(`${server.url}/api/auth/sign-up/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ws-closed@example.org', password: 'a long password' }),
    });
    bearer = (await up.json()).token;
  });
  afterAll(() => server.close());

  test('asks the vendor nothing that outlives the connection', async () => {
    for (let round = 0; round < 3; round += 1) {
      const ws = new WebSocket(`${server.url.replace('http', 'ws')}/api/ws/compile`, {
        headers: { authorization: `Bearer ${bearer}` },
      });
      await new Promise((r) => ws.once('open', r));
      const padded = { ...configuration(), description: 'x'.repeat(5_000) };
      for (const id of ['a', 'b', 'c'])
        ws.send(
          JSON.stringify({ type: 'compile', sessionId: id, configuration: padded, challengeToken: 'slow-closed' }),
        );
      ws.terminate();
    }
    await new Promise((r) => setTimeout(r, 1_500));
    const asked = verifier.forms.filter((f) => f.includes('response=slow-closed')).length;
    const dropped = verifier.dropped.filter((f) => f.includes('response=slow-closed')).length;
    expect(asked - dropped).toBe(0);
  });
});
