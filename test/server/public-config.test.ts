import { describe, expect, test } from 'vitest';
import { testApp } from '../support/test-app.js';
import { publicDsn } from '../../src/server/routes/public-config.js';

const get = async (deps: Parameters<typeof testApp>[0], path: string) => {
  const res = await testApp(deps).anonymous(path);
  expect(res.status).toBe(200);
  return res.json();
};

describe('browser configuration routes', () => {
  test('off without settings', async () => {
    expect(await get({}, '/api/turnstile-config')).toEqual({ success: true, enabled: false });
    expect(await get({}, '/api/sentry-config')).toEqual({ success: true, enabled: false });
  });

  test('turnstile: on with the secret set; the site key is shown, the secret never', async () => {
    const challenge = { secretKey: 'turnstile-secret', siteKey: 'site-key', verifyUrl: 'http://127.0.0.1:9/x' };
    const body = await get({ challenge }, '/api/turnstile-config');
    expect(body).toEqual({ success: true, enabled: true, siteKey: 'site-key' });
    expect(JSON.stringify(body)).not.toContain('turnstile-secret');
    expect(await get({ challenge: { ...challenge, siteKey: undefined } }, '/api/turnstile-config')).toEqual({
      success: true,
      enabled: true,
      siteKey: null,
    });
    // A site key without a secret: tokens are not checked, so there is nothing to solve.
    expect(await get({ challenge: { ...challenge, secretKey: undefined } }, '/api/turnstile-config')).toEqual({
      success: true,
      enabled: false,
    });
  });

  test("sentry: SENTRY_DSN's public part; the notify target's DSN is never shown", async () => {
    const notify = {
      errorTrackerDsn: 'https://server-key@errors.example/9',
      metricsApiUrl: 'http://127.0.0.1:9',
      timeoutMs: 1000,
    };
    expect(await get({ notify }, '/api/sentry-config')).toEqual({ success: true, enabled: false });
    expect(await get({ notify, browserDsn: 'https://browser-key@errors.example/3' }, '/api/sentry-config')).toEqual({
      success: true,
      enabled: true,
      dsn: 'https://browser-key@errors.example/3',
    });
  });

  test.each([
    ['https://key@host.example/1', 'https://key@host.example/1'],
    ['https://key:secret@host.example:8443/sub/path/12?opt=1#frag', 'https://key@host.example:8443/sub/path/12'],
    ['http://key@127.0.0.1:9000/5', 'http://key@127.0.0.1:9000/5'],
    ['https://host.example/1', undefined],
    ['https://key@host.example/', undefined],
    ['ftp://key@host.example/1', undefined],
    ['not a dsn', undefined],
    [undefined, undefined],
  ])('publicDsn(%s) = %s', (dsn, expected) => {
    expect(publicDsn(dsn)).toBe(expected);
  });
});
