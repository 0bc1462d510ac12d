import { describe, expect, test } from 'vitest';
import { ERROR_CODES, resolveErrorCode, resolveErrorPayload } from '../../src/server/error-codes.js';
import { testApp } from '../support/test-app.js';

describe('the error code registry', () => {
  test("the specification's codes, severities and calls to action", () => {
    const summary = Object.fromEntries(
      Object.entries(ERROR_CODES).map(([code, d]) => [
        code,
        [d.severity, 'ctaRoute' in d ? d.ctaRoute : undefined, 'ctaLabel' in d ? typeof d.ctaLabel : undefined],
      ]),
    );
    expect(summary).toEqual({
      TOKEN_EXPIRED: ['medium', '/login', 'string'],
      INVALID_CREDENTIALS: ['medium', undefined, undefined],
      ACCOUNT_LOCKED: ['high', '/support', 'string'],
      RATE_LIMITED: ['medium', undefined, undefined],
      FORBIDDEN: ['high', undefined, undefined],
      CORS_REJECTED: ['high', undefined, undefined],
      SERVICE_UNAVAILABLE: ['critical', '/', 'string'],
      UNKNOWN: ['medium', undefined, undefined],
    });
    for (const d of Object.values(ERROR_CODES)) expect(d.message.length).toBeGreaterThan(0);
  });

  test.each([undefined, null, '', 'NOT_A_CODE', 'token_expired', 'constructor', '__proto__', 'toString'])(
    '%s resolves to UNKNOWN',
    (code) => {
      expect(resolveErrorCode(code)).toEqual({ code: 'UNKNOWN', ...ERROR_CODES.UNKNOWN });
    },
  );

  test('a known code resolves to its definition', () => {
    expect(resolveErrorCode('TOKEN_EXPIRED')).toEqual({ code: 'TOKEN_EXPIRED', ...ERROR_CODES.TOKEN_EXPIRED });
  });

  test("a stored message (a flash entry) keeps the code's severity and call to action", () => {
    expect(resolveErrorPayload({ code: 'ACCOUNT_LOCKED', message: 'Locked after 5 attempts' })).toEqual({
      ...ERROR_CODES.ACCOUNT_LOCKED,
      code: 'ACCOUNT_LOCKED',
      message: 'Locked after 5 attempts',
    });
    expect(resolveErrorPayload({ message: 'Something odd' })).toMatchObject({ code: 'UNKNOWN', severity: 'medium' });
    expect(resolveErrorPayload({ code: 'RATE_LIMITED' })).toEqual(resolveErrorCode('RATE_LIMITED'));
  });
});

describe('GET /api/errors/codes', () => {
  const { anonymous } = testApp();
  const app = { request: anonymous };

  test('anyone reads the registry', async () => {
    const res = await app.request('/api/errors/codes');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true, codes: ERROR_CODES });
  });

  test.each([
    ['FORBIDDEN', 'FORBIDDEN'],
    ['nope', 'UNKNOWN'],
    ['%E2%82%AC', 'UNKNOWN'],
    ['x'.repeat(5000), 'UNKNOWN'],
  ])('/api/errors/codes/%s resolves to %s', async (code, expected) => {
    const res = await app.request(`/api/errors/codes/${code}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true, error: resolveErrorCode(expected) });
  });
});
