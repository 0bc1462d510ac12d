import type { OpenAPIHono } from '@hono/zod-openapi';

/**
 * A JSON client for an in-process app: every response text is kept, so tests can check
 * that no secret ever appeared in any of them.
 */
export function appClient(app: OpenAPIHono) {
  const responses: string[] = [];
  async function call(method: string, path: string, opts: { token?: string; body?: unknown } = {}) {
    const res = await app.request(path, {
      method,
      headers: { 'content-type': 'application/json', ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}) },
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    });
    const text = await res.text();
    responses.push(text);
    return { status: res.status, json: text ? JSON.parse(text) : null, headers: res.headers };
  }
  return { call, responses };
}
