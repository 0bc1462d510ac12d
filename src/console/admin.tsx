import type { Context } from 'hono';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from '@hono/zod-openapi';
import type { Child } from 'hono/jsx';
import { PERMISSIONS } from '../server/routes/admin-system/permissions.js';
import type { Access } from '../server/routing/route.js';
import type { Frame } from './layout.js';
import { type ConsoleContext, pageHandler } from './frame.js';
import {
  type ApiCaller,
  apiOf,
  domId,
  formAction,
  OutcomeNotice,
  outcomeOf,
  Refused,
  Rows,
  takeOutcome,
} from './kit.js';
import { CsrfForm } from './layout.js';
import { type ConsolePage, consoleRoute } from './pages.js';

/**
 * The admin pages, each with the permission its reads need (the gate checks it on every request
 * to the page and its forms; the API route each form calls checks its own, stricter one).
 */
export const ADMIN_PAGES = {
  users: { path: '/console/admin/users', title: 'Users', access: { admin: 'users:read' } },
  usage: { path: '/console/admin/usage', title: 'Usage', access: { admin: 'users:read' } },
  roles: { path: '/console/admin/roles', title: 'Roles', access: { admin: 'admin:read' } },
  access: { path: '/console/admin/access', title: 'Tiers, scopes, endpoints', access: { admin: 'admin:read' } },
  announcements: { path: '/console/admin/announcements', title: 'Announcements', access: { admin: 'admin:read' } },
  flags: { path: '/console/admin/flags', title: 'Feature flags', access: { admin: 'admin:read' } },
  audit: { path: '/console/admin/audit', title: 'Audit log', access: { admin: 'audit:read' } },
  config: { path: '/console/admin/config', title: 'Configuration', access: { admin: 'config:read' } },
  storage: { path: '/console/admin/storage', title: 'Storage and errors', access: { admin: 'admin:read' } },
  metrics: { path: '/console/admin/metrics', title: 'Metrics and health', access: { admin: 'metrics:read' } },
} as const satisfies Record<string, ConsolePage>;

export const ADMIN_NAV: ConsolePage[] = Object.values(ADMIN_PAGES);

/** Registers an admin page's GET: its read access, the outcome of the last form, then its content. */
export function adminPage(
  app: OpenAPIHono,
  ctx: ConsoleContext,
  page: { path: string; title: string; access: Access },
  body: (c: Context, f: Frame, api: ApiCaller) => Promise<Child>,
): void {
  consoleRoute(
    app,
    { method: 'get', path: page.path, access: page.access, summary: `Console: ${page.title} (admin)` },
    pageHandler(ctx, page, async (c, f) => {
      const outcome = await takeOutcome(c, ctx);
      return (
        <>
          <OutcomeNotice outcome={outcome} />
          {await body(c, f, apiOf(c, ctx))}
        </>
      );
    }),
  );
}

export const idParam = z.object({ id: z.string().min(1).max(200) });
export const param = (c: Context, name = 'id') => encodeURIComponent(c.req.param(name) ?? '');
/** A whole number of a query parameter, at least 0. */
export const offsetOf = (c: Context) => Math.max(0, Number.parseInt(c.req.query('offset') ?? '0', 10) || 0);
/** A `datetime-local` value read as UTC, as the API's ISO form (empty: absent). */
export const utcOf = (v: string | undefined) => {
  if (!v) return undefined;
  const d = new Date(/[zZ]|[+-]\d\d:\d\d$/.test(v) ? v : `${v}Z`);
  return Number.isNaN(d.getTime()) ? 'invalid' : d.toISOString();
};

interface User {
  id: string;
  email: string;
  name: string | null;
  role: 'admin' | 'user';
  tier: string;
  banned: boolean;
  banReason: string | null;
  apiDisabled: boolean;
  createdAt: string;
}
const TIERS = ['free', 'pro', 'admin'] as const;
const USERS_PAGE = 50;

/** Users (ban, unban, role, tier, API access), usage per user, roles and their assignments. */
export function registerAdminPeoplePages(app: OpenAPIHono, ctx: ConsoleContext): void {
  const users = ADMIN_PAGES.users;
  adminPage(app, ctx, users, async (c, f, api) => {
    const offset = offsetOf(c);
    const list = await api<{ users: User[]; total: number }>(`/api/admin/users?limit=${USERS_PAGE}&offset=${offset}`, {
      method: 'GET',
    });
    if (!list.ok) return <Refused answer={list} />;
    const { total } = list.body;
    return (
      <>
        <p>{total} accounts. Changes need the users:manage permission; no one changes their own account here.</p>
        <div class="table-wrap">
          <table>
            <caption class="muted">Accounts, oldest first</caption>
            <thead>
              <tr>
                <th scope="col">Account</th>
                <th scope="col">State</th>
                <th scope="col">Role, tier and API access</th>
                <th scope="col">Ban</th>
              </tr>
            </thead>
            <tbody>
              {list.body.users.map((u) => {
                const at = `${users.path}/${encodeURIComponent(u.id)}`;
                const id = (p: string) => domId(p, u.id);
                return (
                  <tr>
                    <td>
                      {u.email}
                      <br />
                      <code class="muted">{u.id}</code>
                    </td>
                    <td>
                      {u.banned ? `banned${u.banReason ? `: ${u.banReason}` : ''}` : 'active'}
                      {u.apiDisabled ? ', API disabled' : ''}
                    </td>
                    <td>
                      <CsrfForm action={at} csrf={f.csrf} class="row">
                        <label for={id('role')}>Role</label>
                        <select id={id('role')} name="role">
                          {(['user', 'admin'] as const).map((r) => (
                            <option value={r} selected={u.role === r}>
                              {r}
                            </option>
                          ))}
                        </select>
                        <label for={id('tier')}>Tier</label>
                        <select id={id('tier')} name="tier">
                          {TIERS.map((t) => (
                            <option value={t} selected={u.tier === t}>
                              {t}
                            </option>
                          ))}
                        </select>
                        <label>
                          <input type="checkbox" name="apiDisabled" value="1" checked={u.apiDisabled} /> API disabled
                        </label>
                        <button type="submit" aria-label={`Save ${u.email}`}>
                          Save
                        </button>
                      </CsrfForm>
                    </td>
                    <td>
                      {u.banned ? (
                        <CsrfForm action={`${at}/unban`} csrf={f.csrf}>
                          <button type="submit" class="secondary" aria-label={`Unban ${u.email}`}>
                            Unban
                          </button>
                        </CsrfForm>
                      ) : (
                        <CsrfForm action={`${at}/ban`} csrf={f.csrf} class="row">
                          <label for={id('reason')}>Reason</label>
                          <input id={id('reason')} name="reason" maxlength={500} />
                          <button type="submit" class="secondary" aria-label={`Ban ${u.email}`}>
                            Ban
                          </button>
                        </CsrfForm>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
        <nav aria-label="Pages of accounts" class="row">
          {offset > 0 ? <a href={`${users.path}?offset=${Math.max(0, offset - USERS_PAGE)}`}>Previous</a> : null}
          {offset + USERS_PAGE < total ? <a href={`${users.path}?offset=${offset + USERS_PAGE}`}>Next</a> : null}
        </nav>
      </>
    );
  });
  const userForm = { access: users.access, back: users.path, params: idParam };
  formAction(
    app,
    ctx,
    { ...userForm, path: `${users.path}/{id}`, summary: "Console: change a user's role, tier or API access" },
    async (c, form, api) =>
      outcomeOf(
        await api(`/api/admin/users/${param(c)}`, {
          method: 'PATCH',
          body: { role: form.role, tier: form.tier, apiDisabled: form.apiDisabled === '1' },
        }),
        'Saved the account.',
      ),
  );
  for (const action of ['ban', 'unban'] as const)
    formAction(
      app,
      ctx,
      { ...userForm, path: `${users.path}/{id}/${action}`, summary: `Console: ${action} a user` },
      async (c, form, api) =>
        outcomeOf(
          await api(`/api/admin/users/${param(c)}/${action}`, {
            method: 'POST',
            body: action === 'ban' && form.reason ? { reason: form.reason } : {},
          }),
          action === 'ban' ? 'Banned the account.' : 'Lifted the ban.',
        ),
    );

  adminPage(app, ctx, ADMIN_PAGES.usage, async (c, _f, api) => {
    const list = await api<{ users: User[] }>('/api/admin/users?limit=100', { method: 'GET' });
    const user = c.req.query('user') ?? '';
    const days = c.req.query('days') ?? '30';
    const usage = user
      ? await api<{
          total: { count: number; firstSeen: string | null; lastSeen: string | null };
          days: { date: string; count: number; routes: Record<string, number> }[];
        }>(`/api/admin/usage/${encodeURIComponent(user)}?days=${encodeURIComponent(days)}`, { method: 'GET' })
      : null;
    return (
      <>
        <form method="get" action={ADMIN_PAGES.usage.path} class="filters">
          <div>
            <label for="usage-user">Account</label>
            <select id="usage-user" name="user" required>
              {(list.ok ? list.body.users : []).map((u) => (
                <option value={u.id} selected={u.id === user}>
                  {u.email}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label for="usage-days">Days</label>
            <input id="usage-days" name="days" type="number" min={1} max={90} value={days} />
          </div>
          <button type="submit">Show usage</button>
        </form>
        {usage && !usage.ok ? <Refused answer={usage} /> : null}
        {usage?.ok ? (
          <>
            <p>
              {usage.body.total.count} requests; first {usage.body.total.firstSeen ?? '–'}, last{' '}
              {usage.body.total.lastSeen ?? '–'}.
            </p>
            <Rows
              caption="Requests per day and route"
              columns={['day', 'count', 'routes']}
              rows={usage.body.days.map((d) => ({
                day: d.date,
                count: d.count,
                routes: Object.entries(d.routes)
                  .map(([r, n]) => `${r}: ${n}`)
                  .join(', '),
              }))}
            />
          </>
        ) : null}
      </>
    );
  });

  registerRolePages(app, ctx);
}

interface Role {
  id: number;
  role_name: string;
  display_name: string;
  description: string;
  permissions: string[] | string;
  is_active: number | boolean;
}
const permsOf = (r: Role): string[] => {
  if (Array.isArray(r.permissions)) return r.permissions;
  try {
    return JSON.parse(r.permissions) as string[];
  } catch {
    return [];
  }
};

function PermissionChoices({ prefix, held }: { prefix: string; held: string[] }) {
  return (
    <fieldset>
      <legend>Permissions</legend>
      <div class="choices">
        {PERMISSIONS.map((p) => (
          <label for={domId(prefix, p)}>
            <input id={domId(prefix, p)} type="checkbox" name="permissions" value={p} checked={held.includes(p)} /> {p}
          </label>
        ))}
      </div>
    </fieldset>
  );
}

function registerRolePages(app: OpenAPIHono, ctx: ConsoleContext): void {
  const page = ADMIN_PAGES.roles;
  adminPage(app, ctx, page, async (_c, f, api) => {
    const [roles, assignments, users] = await Promise.all([
      api<{ roles: Role[] }>('/admin/system/roles', { method: 'GET' }),
      api<{ assignments: Record<string, unknown>[] }>('/admin/system/roles/assignments', { method: 'GET' }),
      api<{ users: User[] }>('/api/admin/users?limit=100', { method: 'GET' }),
    ]);
    if (!roles.ok) return <Refused answer={roles} />;
    const emails = new Map((users.ok ? users.body.users : []).map((u) => [u.id, u.email]));
    return (
      <>
        <p>
          Changing roles needs roles:write, assigning them roles:assign; no one grants a permission they do not hold.
        </p>
        <h2>Roles</h2>
        {roles.body.roles.map((r) => (
          <details>
            <summary>
              {r.display_name} (<code>{r.role_name}</code>){Number(r.is_active) ? '' : ', inactive'}:{' '}
              {permsOf(r).join(', ')}
            </summary>
            <CsrfForm action={`${page.path}/${r.id}`} csrf={f.csrf} class="stack">
              <label for={domId('rdn', r.id)}>Display name</label>
              <input id={domId('rdn', r.id)} name="display_name" value={r.display_name} required />
              <label for={domId('rde', r.id)}>Description</label>
              <input id={domId('rde', r.id)} name="description" value={r.description} />
              <PermissionChoices prefix={`rp-${r.id}`} held={permsOf(r)} />
              <label>
                <input type="checkbox" name="is_active" value="1" checked={Boolean(Number(r.is_active))} /> Active
              </label>
              <button type="submit">Save {r.role_name}</button>
            </CsrfForm>
          </details>
        ))}
        <h3>New role</h3>
        <CsrfForm action={page.path} csrf={f.csrf} class="stack narrow">
          <label for="role-name">Name (lowercase, digits, - and _)</label>
          <input id="role-name" name="role_name" required pattern="[a-z0-9][a-z0-9_\-]{0,63}" />
          <label for="role-display">Display name</label>
          <input id="role-display" name="display_name" required />
          <label for="role-description">Description</label>
          <input id="role-description" name="description" />
          <PermissionChoices prefix="new-role" held={[]} />
          <button type="submit">Create role</button>
        </CsrfForm>
        <h2>Assignments</h2>
        {assignments.ok ? (
          assignments.body.assignments.length === 0 ? (
            <p class="muted">No assignments.</p>
          ) : (
            <div class="table-wrap">
              <table>
                <caption class="muted">Who holds which role</caption>
                <thead>
                  <tr>
                    <th scope="col">Account</th>
                    <th scope="col">Role</th>
                    <th scope="col">By</th>
                    <th scope="col">Expires</th>
                    <th scope="col">Revoke</th>
                  </tr>
                </thead>
                <tbody>
                  {assignments.body.assignments.map((a) => {
                    const who = String(a.identity_user_id);
                    return (
                      <tr>
                        <td>{emails.get(who) ?? who}</td>
                        <td>{String(a.role_name)}</td>
                        <td>{String(a.assigned_by ?? '')}</td>
                        <td>{a.expires_at ? String(a.expires_at) : 'never'}</td>
                        <td>
                          <CsrfForm action={`${page.path}/revoke`} csrf={f.csrf}>
                            <input type="hidden" name="identity_user_id" value={who} />
                            <input type="hidden" name="role_name" value={String(a.role_name)} />
                            <button
                              type="submit"
                              class="secondary"
                              aria-label={`Revoke ${String(a.role_name)} from ${emails.get(who) ?? who}`}
                            >
                              Revoke
                            </button>
                          </CsrfForm>
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          )
        ) : (
          <Refused answer={assignments} />
        )}
        <h3>Assign a role</h3>
        <CsrfForm action={`${page.path}/assign`} csrf={f.csrf} class="stack narrow">
          <label for="assign-user">Account (an administrator)</label>
          <select id="assign-user" name="identity_user_id" required>
            {(users.ok ? users.body.users : [])
              .filter((u) => u.role === 'admin')
              .map((u) => (
                <option value={u.id}>{u.email}</option>
              ))}
          </select>
          <label for="assign-role">Role</label>
          <select id="assign-role" name="role_name" required>
            {roles.body.roles.map((r) => (
              <option value={r.role_name}>{r.role_name}</option>
            ))}
          </select>
          <label for="assign-expires">Expires (UTC, empty: never)</label>
          <input id="assign-expires" name="expires_at" type="datetime-local" />
          <button type="submit">Assign</button>
        </CsrfForm>
      </>
    );
  });
  const base = { access: page.access, back: page.path };
  const perms = (form: Record<string, string>) => (form.permissions ?? '').split('\n').filter(Boolean);
  formAction(app, ctx, { ...base, path: page.path, summary: 'Console: create a role' }, async (_c, form, api) =>
    outcomeOf(
      await api('/admin/system/roles', {
        method: 'POST',
        body: {
          role_name: form.role_name ?? '',
          display_name: form.display_name ?? '',
          description: form.description ?? '',
          permissions: perms(form),
        },
      }),
      `Created the role ${form.role_name ?? ''}.`,
    ),
  );
  formAction(
    app,
    ctx,
    { ...base, path: `${page.path}/assign`, summary: 'Console: assign a role' },
    async (_c, form, api) => {
      const expires = utcOf(form.expires_at);
      if (expires === 'invalid') return { ok: false, text: 'The expiry is not a date and time' };
      return outcomeOf(
        await api('/admin/system/roles/assign', {
          method: 'POST',
          body: {
            identity_user_id: form.identity_user_id ?? '',
            role_name: form.role_name ?? '',
            expires_at: expires ?? null,
          },
        }),
        `Assigned ${form.role_name ?? ''}.`,
      );
    },
  );
  formAction(
    app,
    ctx,
    { ...base, path: `${page.path}/revoke`, summary: 'Console: revoke a role' },
    async (_c, form, api) =>
      outcomeOf(
        await api('/admin/system/roles/revoke', {
          method: 'DELETE',
          body: { identity_user_id: form.identity_user_id ?? '', role_name: form.role_name ?? '' },
        }),
        `Revoked ${form.role_name ?? ''}.`,
      ),
  );
  // After assign and revoke, which its `{id}` would match too.
  formAction(
    app,
    ctx,
    { ...base, path: `${page.path}/{id}`, params: idParam, summary: 'Console: change a role' },
    async (c, form, api) =>
      outcomeOf(
        await api(`/admin/system/roles/${param(c)}`, {
          method: 'PATCH',
          body: {
            display_name: form.display_name ?? '',
            description: form.description ?? '',
            permissions: perms(form),
            is_active: form.is_active === '1',
          },
        }),
        'Saved the role.',
      ),
  );
}
