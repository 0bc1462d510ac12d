import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { startChallengeVerifier, startServer, type TestServer } from '../support/http-server.js';
import { type InProcessFlc, startInProcessFlc } from '../support/flc-in-process.js';

// A real `flc serve` with the bot challenge configured: a WebSocket compile needs a token in each
// compile message, as `POST /api/compile` needs one in its body.
let flc: InProcessFlc;
let lists: TestServer;
let verifier: TestServer;
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

/** Sends one compile message on a new connection and answers the first message about its session. */
async function compileOver(fields: Record<string, string>) {
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
  const configuration = { name: 'c', sources: [{ source: `${lists.url}/list.txt` }] };
  ws.send(JSON.stringify({ type: 'compile', sessionId: 's1', configuration, ...fields }));
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
});
