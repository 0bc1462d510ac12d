import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import fc from 'fast-check';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { testApp } from '../support/test-app.js';
import { startServer, type TestServer } from '../support/http-server.js';
import type { NotifySettings } from '../../src/server/notify/settings.js';
import { NOTIFY_BODY_BYTES } from '../../src/server/routes/notify.js';

type Mode = 'ok' | 'fail' | 'hang' | 'redirect';
interface Target {
  server: TestServer;
  mode: Mode;
  bodies: string[];
}

const NOW = Date.parse('2026-05-06T07:08:09.000Z');
const SECRETS = ['hook-pass', 'query-secret', 'trackerkey', 'tracker-legacy-secret', 'metrics-secret-key'];
let webhook: Target;
let tracker: Target;
let metrics: Target;
let elsewhere: TestServer;
let refusedUrl: string;
/** Requests held unanswered right now, and the most at once (targets in `hang` mode). */
const hanging = { now: 0, most: 0 };

async function target(): Promise<Target> {
  const t = { mode: 'ok' as Mode, bodies: [] as string[] } as Target;
  t.server = await startServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      t.bodies.push(body);
      if (t.mode === 'hang') {
        hanging.now += 1;
        hanging.most = Math.max(hanging.most, hanging.now);
        res.once('close', () => (hanging.now -= 1));
        return;
      }
      if (t.mode === 'redirect') res.writeHead(302, { location: `${elsewhere.url}/stolen` }).end();
      else res.writeHead(t.mode === 'ok' ? 202 : 500).end(t.mode === 'ok' ? '{"ok":true}' : 'boom');
    });
  });
  return t;
}

beforeAll(async () => {
  [webhook, tracker, metrics] = [await target(), await target(), await target()];
  elsewhere = await startServer((_req, res) => res.writeHead(200).end());
  const closed = await startServer((_req, res) => res.end());
  refusedUrl = closed.url;
  await closed.close();
});
afterAll(async () => {
  for (const s of [webhook.server, tracker.server, metrics.server, elsewhere]) await s.close();
});
beforeEach(() => {
  for (const t of [webhook, tracker, metrics]) {
    t.mode = 'ok';
    t.bodies.length = 0;
    t.server.requests.length = 0;
  }
});

function settings(over: Partial<NotifySettings> = {}): NotifySettings {
  const host = (t: Target) => t.server.url.replace('http://', '');
  return {
    webhookUrl: `http://hook-user:hook-pass@${host(webhook)}/hook?token=query-secret`,
    errorTrackerDsn: `http://trackerkey@${host(tracker)}/errors/42`,
    metricsApiKey: 'metrics-secret-key',
    metricsApiUrl: metrics.server.url,
    timeoutMs: 2_000,
    ...over,
  };
}

function app(notify?: NotifySettings) {
  const logs: string[] = [];
  const made = testApp({ version: '3.2.1', now: () => NOW, startedAt: NOW, notify }, (m) => logs.push(m));
  const post = (body: string, headers: Record<string, string> = {}) =>
    made.request('/api/notify', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
  return { ...made, post, logs };
}

const full = {
  event: 'build.failed',
  message: 'The nightly list build failed',
  level: 'warn',
  source: 'ci',
  timestamp: '2026-03-04T05:06:07.000Z',
  metadata: { branch: 'main', attempt: 2, labels: ['a'] },
};

function expectNoSecret(text: string) {
  for (const secret of SECRETS) expect(text).not.toContain(secret);
}

describe('POST /api/notify: delivery and field mapping', () => {
  test('every target gets its own mapping; the answer lists each delivery', async () => {
    const { post, logs } = app(settings());
    // Odd spacing: the webhook must get these exact bytes.
    const raw = `{ "event":"build.failed","message":"The nightly list build failed", "level":"warn","source":"ci",
      "timestamp":"2026-03-04T05:06:07.000Z","metadata":{"branch":"main","attempt":2,"labels":["a"]} }`;
    const res = await post(raw);
    const text = await res.text();
    expect(res.status).toBe(200);
    const body = JSON.parse(text);
    expect(body).toMatchObject({
      success: true,
      event: 'build.failed',
      deliveries: [
        { target: 'generic', success: true, statusCode: 202 },
        { target: 'errortracker', success: true, statusCode: 202 },
        { target: 'metrics', success: true, statusCode: 202 },
      ],
    });
    expect(body.duration).toMatch(/^\d+ms$/);
    expectNoSecret(text);
    expectNoSecret(logs.join('\n'));

    expect(webhook.bodies).toEqual([raw]);
    expect(webhook.server.requests[0]!.path).toBe('/hook?token=query-secret');
    expect(webhook.server.requests[0]!.headers.authorization).toBe(
      `Basic ${Buffer.from('hook-user:hook-pass').toString('base64')}`,
    );
    expect(webhook.server.requests[0]!.headers['content-type']).toBe('application/json');

    expect(tracker.server.requests[0]!.path).toBe('/errors/api/42/store/');
    expect(tracker.server.requests[0]!.headers['x-sentry-auth']).toBe(
      'Sentry sentry_version=7, sentry_key=trackerkey, sentry_client=flc/3.2.1',
    );
    const event = JSON.parse(tracker.bodies[0]!);
    expect(event).toEqual({
      event_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      timestamp: full.timestamp,
      platform: 'other',
      level: 'warning',
      message: full.message,
      logger: 'ci',
      extra: full.metadata,
      tags: { event: 'build.failed' },
    });

    expect(metrics.server.requests[0]!.path).toBe('/api/v1/events');
    expect(metrics.server.requests[0]!.headers['dd-api-key']).toBe('metrics-secret-key');
    expect(JSON.parse(metrics.bodies[0]!)).toEqual({
      title: 'build.failed',
      text: full.message,
      alert_type: 'warning',
      source_type_name: 'ci',
      tags: ['branch:main', 'attempt:2', 'labels:["a"]'],
      date_happened: Date.parse(full.timestamp) / 1000,
    });
  });

  test('defaults: level info, timestamp now; debug is debug for the tracker and info for metrics', async () => {
    const { post } = app(settings());
    expect((await post(JSON.stringify({ event: 'e', message: 'm' }))).status).toBe(200);
    const first = JSON.parse(tracker.bodies[0]!);
    expect(first).toMatchObject({ level: 'info', timestamp: new Date(NOW).toISOString(), tags: { event: 'e' } });
    expect(first).not.toHaveProperty('logger');
    expect(first).not.toHaveProperty('extra');
    expect(JSON.parse(metrics.bodies[0]!)).toEqual({
      title: 'e',
      text: 'm',
      alert_type: 'info',
      tags: [],
      date_happened: NOW / 1000,
    });
    expect((await post(JSON.stringify({ event: 'e', message: 'm', level: 'debug' }))).status).toBe(200);
    expect(JSON.parse(tracker.bodies[1]!).level).toBe('debug');
    expect(JSON.parse(metrics.bodies[1]!).alert_type).toBe('info');
    expect((await post(JSON.stringify({ event: 'e', message: 'm', level: 'error' }))).status).toBe(200);
    expect(JSON.parse(tracker.bodies[2]!).level).toBe('error');
    expect(JSON.parse(metrics.bodies[2]!).alert_type).toBe('error');
  });

  test('only the configured targets are called', async () => {
    const { post } = app(settings({ webhookUrl: undefined, errorTrackerDsn: undefined }));
    const res = await post(JSON.stringify(full));
    expect((await res.json()).deliveries).toEqual([{ target: 'metrics', success: true, statusCode: 202 }]);
    expect(webhook.server.requests).toHaveLength(0);
    expect(tracker.server.requests).toHaveLength(0);
  });
});

describe('POST /api/notify: failures', () => {
  test('one target times out, one fails, one delivers: 200 with every outcome', async () => {
    tracker.mode = 'hang';
    metrics.mode = 'fail';
    const { post, logs } = app(settings({ timeoutMs: 1_000 }));
    const res = await post(JSON.stringify(full));
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(JSON.parse(text)).toMatchObject({
      success: true,
      deliveries: [
        { target: 'generic', success: true, statusCode: 202 },
        { target: 'errortracker', success: false, error: 'no answer within 1000 ms' },
        { target: 'metrics', success: false, statusCode: 500, error: 'HTTP 500' },
      ],
    });
    expect(tracker.bodies).toHaveLength(1);
    expect(logs.filter((l) => l.startsWith('notify:'))).toEqual([
      'notify: delivery of "build.failed" to errortracker failed: no answer within 1000 ms',
      'notify: delivery of "build.failed" to metrics failed: HTTP 500',
    ]);
    expectNoSecret(text);
    expectNoSecret(logs.join('\n'));
  });

  test('targets are tried in parallel: three hanging targets cost one timeout, not three', async () => {
    webhook.mode = 'hang';
    tracker.mode = 'hang';
    metrics.mode = 'hang';
    const { post } = app(settings({ timeoutMs: 1_000 }));
    hanging.most = 0;
    const res = await post(JSON.stringify(full));
    expect(res.status).toBe(502);
    // In turn, each would be given up (its connection closed) before the next was sent.
    expect(hanging.most).toBe(3);
  });

  test('every target failing is 502, with every outcome and no secret', async () => {
    webhook.mode = 'fail';
    const { post, logs } = app(
      settings({
        errorTrackerDsn: `http://trackerkey:tracker-legacy-secret@${refusedUrl.replace('http://', '')}/7`,
        metricsApiUrl: refusedUrl,
      }),
    );
    const res = await post(JSON.stringify(full));
    const text = await res.text();
    expect(res.status).toBe(502);
    expect(JSON.parse(text)).toMatchObject({
      success: false,
      event: 'build.failed',
      deliveries: [
        { target: 'generic', success: false, statusCode: 500, error: 'HTTP 500' },
        { target: 'errortracker', success: false, error: 'connection failed (ECONNREFUSED)' },
        { target: 'metrics', success: false, error: 'connection failed (ECONNREFUSED)' },
      ],
    });
    expect(logs.filter((l) => l.startsWith('notify:'))).toHaveLength(3);
    expectNoSecret(text);
    expectNoSecret(logs.join('\n'));
  });

  test('a redirect is refused, so nothing goes anywhere but the configured target', async () => {
    webhook.mode = 'redirect';
    const { post } = app(settings({ errorTrackerDsn: undefined, metricsApiKey: undefined }));
    const res = await post(JSON.stringify(full));
    expect(res.status).toBe(502);
    expect((await res.json()).deliveries).toEqual([{ target: 'generic', success: false, error: 'redirect refused' }]);
    expect(elsewhere.requests).toHaveLength(0);
  });

  test('a target that closes a kept connection gets the next delivery anyway: none is kept', async () => {
    // Like a webhook host whose idle timeout ended the connection: a request on a reused one is cut.
    const seen = new WeakSet<object>();
    const closing = await startServer((req, res) => {
      if (seen.has(req.socket)) return void req.socket.destroy();
      seen.add(req.socket);
      req.resume().on('end', () => res.writeHead(202, { connection: 'keep-alive' }).end());
    });
    const { post } = app(
      settings({ webhookUrl: `${closing.url}/hook`, errorTrackerDsn: undefined, metricsApiKey: undefined }),
    );
    for (let i = 0; i < 3; i += 1) expect((await post(JSON.stringify(full))).status).toBe(200);
    expect(closing.requests).toHaveLength(3);
    await closing.close();
  });

  test('settings that are not URLs fail their delivery without quoting the setting', async () => {
    const { post } = app(
      settings({ webhookUrl: 'hook-pass not a url', errorTrackerDsn: 'trackerkey', metricsApiKey: undefined }),
    );
    const res = await post(JSON.stringify(full));
    const text = await res.text();
    expect(res.status).toBe(502);
    expect(JSON.parse(text).deliveries).toEqual([
      { target: 'generic', success: false, error: 'WEBHOOK_URL is not a URL' },
      {
        target: 'errortracker',
        success: false,
        error: 'ERRORTRACKER_DSN is not of the form https://<key>@<host>/<projectId>',
      },
    ]);
    expectNoSecret(text);
  });

  test('no target configured: 503 naming the three settings', async () => {
    for (const notify of [undefined, settings({ webhookUrl: undefined, errorTrackerDsn: '', metricsApiKey: '' })]) {
      const res = await app(notify).post(JSON.stringify(full));
      expect(res.status).toBe(503);
      const body = await res.json();
      expect(body.success).toBe(false);
      for (const name of ['WEBHOOK_URL', 'ERRORTRACKER_DSN', 'METRICS_API_KEY']) expect(body.error).toContain(name);
    }
  });
});

describe('POST /api/notify: hostile input', () => {
  test.each([
    ['malformed JSON', 400, '{"event": "e", "message": '],
    ['an empty body', 400, ''],
    ['an array', 422, '[]'],
    ['null', 422, 'null'],
    ['no message', 422, '{"event":"e"}'],
    ['no event', 422, '{"message":"m"}'],
    ['an empty event', 422, '{"event":"","message":"m"}'],
    ['an unknown level', 422, '{"event":"e","message":"m","level":"fatal"}'],
    ['a timestamp that is not ISO 8601', 422, '{"event":"e","message":"m","timestamp":"yesterday"}'],
    ['metadata that is not an object', 422, '{"event":"e","message":"m","metadata":[1]}'],
    ['a number as message', 422, '{"event":"e","message":5}'],
    ['a body over the limit', 413, JSON.stringify({ event: 'e', message: 'x'.repeat(NOTIFY_BODY_BYTES) })],
  ])('%s: %i problem, no delivery', async (_name, status, body) => {
    const res = await app(settings()).post(body);
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(await res.json()).toMatchObject({ status, type: 'about:blank' });
    expect(webhook.bodies).toHaveLength(0);
  });

  test('random bodies get 200 or a 4xx problem, never 5xx', async () => {
    const { post } = app(settings({ errorTrackerDsn: undefined, metricsApiKey: undefined }));
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string(),
          fc.jsonValue().map((v) => JSON.stringify(v)),
          fc
            .record(
              {
                event: fc.oneof(fc.string(), fc.anything()),
                message: fc.oneof(fc.string(), fc.anything()),
                level: fc.oneof(fc.constantFrom('info', 'warn', 'error', 'debug'), fc.anything()),
                source: fc.anything(),
                timestamp: fc.oneof(
                  fc.date().map((d) => (Number.isNaN(d.getTime()) ? 'x' : d.toISOString())),
                  fc.anything(),
                ),
                metadata: fc.oneof(fc.dictionary(fc.string(), fc.jsonValue()), fc.anything()),
              },
              { requiredKeys: [] },
            )
            .map((v) => JSON.stringify(v)),
        ),
        async (body) => {
          const res = await post(body);
          expect(res.status === 200 || (res.status >= 400 && res.status < 500)).toBe(true);
          if (res.status !== 200) expect(res.headers.get('content-type')).toBe('application/problem+json');
        },
      ),
      { numRuns: Number(process.env.FC_RUNS ?? 200) },
    );
  });

  test('anonymous callers are limited to 10 a minute', async () => {
    const { anonymous } = app(settings({ errorTrackerDsn: undefined, metricsApiKey: undefined }));
    const statuses: number[] = [];
    for (let i = 0; i < 11; i += 1) {
      const res = await anonymous('/api/notify', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(full),
      });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([...Array(10).fill(200), 429]);
    expect(webhook.bodies).toHaveLength(10);
  });
});
