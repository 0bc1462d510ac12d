import { describe, expect, test, vi } from 'vitest';

// The walker fails unexpectedly (not an input problem): the route must answer 500 with a
// generic problem, log the stack on the server, and send no internals to the client.
vi.mock('../../src/core/ast/walk.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/core/ast/walk.js')>();
  return {
    ...original,
    walkAst: () => {
      throw new TypeError('walker exploded at secret/path.ts:42');
    },
  };
});

const { testApp } = await import('../support/test-app.js');

describe('POST /api/ast/walk when the walker fails', () => {
  test('500 problem details without internals; the stack goes to the log', async () => {
    const logged: string[] = [];
    const { request } = testApp({ now: () => 0 }, (m) => logged.push(m));
    const res = await request('/api/ast/walk', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ rules: ['||a^'] }),
    });
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({ status: 500, detail: 'Unexpected server error' });
    expect(text).not.toMatch(/exploded|secret|\.ts/);
    expect(logged.join('\n')).toMatch(/walker exploded/);
  });
});
