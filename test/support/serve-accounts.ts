import { expect } from 'vitest';
import { addUser, type ServeProcess } from './serve-process.js';

export const PASSWORD = 'a long enough password 1';

/** One request to a running server; the body parsed when it is JSON. */
export async function call(
  base: string,
  method: string,
  path: string,
  token?: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers field by field
  let json: Record<string, any> = {};
  try {
    json = text ? JSON.parse(text) : {};
  } catch {}
  return { status: res.status, text, json, headers: res.headers };
}

/**
 * On `server` (store `db`): a super-admin made by `flc user add` and an editor (an administrator
 * with the seeded `editor` role) made through the admin routes, both signed in.
 */
export async function rootAndEditor(server: ServeProcess, db: string) {
  const added = addUser(db, 'root@example.org', 'admin', PASSWORD);
  expect(added.status, added.stderr).toBe(0);
  const signIn = await call(server.url, 'POST', '/api/auth/sign-in/email', undefined, {
    email: 'root@example.org',
    password: PASSWORD,
  });
  const root = signIn.json.token as string;
  const up = await call(server.url, 'POST', '/api/auth/sign-up/email', undefined, {
    email: 'ed@example.org',
    password: PASSWORD,
  });
  expect(up.status, up.text).toBe(200);
  const editorId = up.json.user.id as string;
  const patched = await call(server.url, 'PATCH', `/api/admin/users/${editorId}`, root, {
    role: 'admin',
    tier: 'admin',
  });
  expect(patched.status, patched.text).toBe(200);
  const assigned = await call(server.url, 'POST', '/admin/system/roles/assign', root, {
    identity_user_id: editorId,
    role_name: 'editor',
  });
  expect(assigned.status, assigned.text).toBeLessThan(300);
  return { root, rootId: signIn.json.user.id as string, editor: up.json.token as string, editorId };
}
