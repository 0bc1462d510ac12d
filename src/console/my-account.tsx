import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from '@hono/zod-openapi';
import { callerOf } from '../server/access/gate.js';
import { type ConsoleContext, pageHandler } from './frame.js';
import { apiOf, formAction, OutcomeNotice, outcomeOf, Refused, Rows, takeOutcome } from './kit.js';
import { CsrfForm } from './layout.js';
import { consoleRoute } from './pages.js';
import { clearCookie, SESSION_COOKIE } from './session.js';

/** The account page: any signed-in user (the key routes ask for the free tier, as here). */
export const ACCOUNT_ACCESS = { tier: 'free' } as const;
/** Saved rule sets: the rule-set routes' own rule. */
export const RULE_SETS_ACCESS = { tier: 'free', scope: 'rules' } as const;
/** How many days of one's own usage the account page shows. */
const USAGE_DAYS = 30;

interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
}
interface RuleSet {
  id: string;
  name: string;
  description: string | null;
  ruleCount: number;
  updatedAt: string;
  rules?: string[];
}

const idParam = z.object({ id: z.string().min(1).max(100) });

/** `/console/account` (keys, sessions, usage) and `/console/account/rule-sets`. */
export function registerMyAccountPages(app: OpenAPIHono, ctx: ConsoleContext): void {
  const page = { title: 'Account', path: '/console/account' };
  consoleRoute(
    app,
    { method: 'get', path: page.path, access: ACCOUNT_ACCESS, summary: 'Console: API keys, sessions and usage' },
    pageHandler(ctx, page, async (c, f) => {
      const api = apiOf(c, ctx);
      const caller = callerOf(c);
      const [outcome, keys] = await Promise.all([
        takeOutcome(c, ctx),
        api<{ keys: ApiKey[] }>('/api/keys', { method: 'GET' }),
      ]);
      // Scopes a key may carry: those the caller holds (the key route refuses any other).
      const grantable = [...caller.scopes(), 'keys'].sort();
      const usage = await ownUsage(ctx, caller.user?.id ?? '');
      return (
        <>
          <OutcomeNotice outcome={outcome} />
          <h2>API keys</h2>
          {keys.ok ? <KeyTable keys={keys.body.keys} csrf={f.csrf} /> : <Refused answer={keys} />}
          <h3>Create a key</h3>
          <CsrfForm action="/console/account/keys" csrf={f.csrf} class="stack narrow">
            <label for="key-name">Name</label>
            <input id="key-name" name="name" required maxlength={100} />
            <fieldset>
              <legend>Scopes</legend>
              <div class="choices">
                {grantable.map((s) => (
                  <label>
                    <input type="checkbox" name="scopes" value={s} checked={s === 'compile' || s === 'rules'} /> {s}
                  </label>
                ))}
              </div>
            </fieldset>
            <label for="key-expiry">Expires after (days, empty: never)</label>
            <input id="key-expiry" name="expiresInDays" type="number" min={1} max={3650} inputmode="numeric" />
            <button type="submit">Create key</button>
          </CsrfForm>
          <h2>Sessions</h2>
          <p>
            Signing out everywhere ends every browser and bearer session of this account, this one included. API keys
            stay.
          </p>
          <CsrfForm action="/console/account/sign-out-all" csrf={f.csrf}>
            <button type="submit" class="secondary">
              Sign out everywhere
            </button>
          </CsrfForm>
          <h2>Usage</h2>
          <p>
            {usage.total} requests in the last {USAGE_DAYS} days.
          </p>
          <Rows rows={usage.rows} columns={['day', 'route', 'count']} caption="Requests per day and route" />
        </>
      );
    }),
  );

  formAction(
    app,
    ctx,
    { path: '/console/account/keys', access: ACCOUNT_ACCESS, summary: 'Console: create an API key', back: page.path },
    async (_c, form, api) => {
      const days = form.expiresInDays?.trim();
      const scopes = (form.scopes ?? '').split('\n').filter(Boolean);
      if (days && !/^\d+$/.test(days)) return { ok: false, text: 'The expiry must be a whole number of days' };
      const answer = await api<ApiKey & { key: string }>('/api/keys', {
        method: 'POST',
        body: { name: form.name ?? '', scopes, ...(days ? { expiresInDays: Number(days) } : {}) },
      });
      if (!answer.ok) return outcomeOf(answer, '');
      return {
        ok: true,
        text: `Created the key ${answer.body.name}. Copy it now: it is shown this once and never again.`,
        secret: { label: 'The new API key', value: answer.body.key },
      };
    },
  );
  formAction(
    app,
    ctx,
    {
      path: '/console/account/keys/{id}/revoke',
      access: ACCOUNT_ACCESS,
      summary: 'Console: revoke an API key',
      back: page.path,
      params: idParam,
    },
    async (c, _form, api) =>
      outcomeOf(
        await api(`/api/keys/${encodeURIComponent(c.req.param('id') ?? '')}`, { method: 'DELETE' }),
        'Revoked the key.',
      ),
  );
  formAction(
    app,
    ctx,
    {
      path: '/console/account/sign-out-all',
      access: ACCOUNT_ACCESS,
      summary: 'Console: end every session of the account',
      back: '/login',
    },
    async (c, _form, api) => {
      const answer = await api<{ sessionsEnded: number }>('/api/auth/sign-out-all', { method: 'POST' });
      if (answer.ok) clearCookie(c, SESSION_COOKIE);
      return answer.ok
        ? { ok: true, text: `Signed out everywhere (${answer.body.sessionsEnded} sessions ended).` }
        : outcomeOf(answer, '');
    },
  );

  registerRuleSetPages(app, ctx);
}

function KeyTable({ keys, csrf }: { keys: ApiKey[]; csrf: string }) {
  if (keys.length === 0) return <p class="muted">No API keys yet.</p>;
  return (
    <div class="table-wrap">
      <table>
        <caption class="muted">Your API keys (their text is never shown again)</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Prefix</th>
            <th scope="col">Scopes</th>
            <th scope="col">Created</th>
            <th scope="col">Expires</th>
            <th scope="col">Last used</th>
            <th scope="col">State</th>
          </tr>
        </thead>
        <tbody>
          {keys.map((k) => (
            <tr>
              <td>{k.name}</td>
              <td>
                <code>{k.prefix}</code>
              </td>
              <td>{k.scopes.join(', ')}</td>
              <td>{k.createdAt}</td>
              <td>{k.expiresAt ?? 'never'}</td>
              <td>{k.lastUsedAt ?? 'never'}</td>
              <td>
                {k.revokedAt ? (
                  `revoked ${k.revokedAt}`
                ) : (
                  <CsrfForm action={`/console/account/keys/${encodeURIComponent(k.id)}/revoke`} csrf={csrf}>
                    <button type="submit" class="secondary" aria-label={`Revoke the key ${k.name}`}>
                      Revoke
                    </button>
                  </CsrfForm>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The caller's own requests per day and route (the store's usage records, as the admin usage route reads them). */
async function ownUsage(ctx: ConsoleContext, userId: string) {
  const today = Date.parse(`${new Date(ctx.deps.now()).toISOString().slice(0, 10)}T00:00:00Z`);
  const from = new Date(today - (USAGE_DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
  const rows = userId ? await ctx.deps.store.usage(userId, from) : [];
  const sorted = [...rows].sort((a, b) => b.day.localeCompare(a.day) || a.route.localeCompare(b.route));
  return {
    total: rows.reduce((n, r) => n + r.count, 0),
    rows: sorted.map((r) => ({ day: r.day, route: r.route, count: r.count })),
  };
}

/** The rules of a textarea: one a line, blank lines left out. */
const rulesOf = (text: string | undefined) =>
  (text ?? '')
    .split(/\r?\n/)
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== '');

function registerRuleSetPages(app: OpenAPIHono, ctx: ConsoleContext): void {
  const page = { title: 'Saved rule sets', path: '/console/account/rule-sets' };
  consoleRoute(
    app,
    { method: 'get', path: page.path, access: RULE_SETS_ACCESS, summary: 'Console: saved rule sets' },
    pageHandler(ctx, page, async (c, f) => {
      const api = apiOf(c, ctx);
      const [outcome, list] = await Promise.all([
        takeOutcome(c, ctx),
        api<{ ruleSets: RuleSet[] }>('/api/rules?limit=100', { method: 'GET' }),
      ]);
      const editId = c.req.query('edit');
      const editing = editId
        ? await api<{ ruleSet: RuleSet }>(`/api/rules/${encodeURIComponent(editId)}`, { method: 'GET' })
        : null;
      const current = editing?.ok ? editing.body.ruleSet : null;
      return (
        <>
          <OutcomeNotice outcome={outcome} />
          {editing && !editing.ok ? <Refused answer={editing} /> : null}
          {list.ok ? (
            list.body.ruleSets.length === 0 ? (
              <p class="muted">No saved rule sets yet.</p>
            ) : (
              <div class="table-wrap">
                <table>
                  <caption class="muted">Your saved rule sets</caption>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Description</th>
                      <th scope="col">Rules</th>
                      <th scope="col">Changed</th>
                      <th scope="col">Actions</th>
                    </tr>
                  </thead>
                  <tbody>
                    {list.body.ruleSets.map((r) => (
                      <tr>
                        <td>{r.name}</td>
                        <td>{r.description ?? ''}</td>
                        <td>{r.ruleCount}</td>
                        <td>{r.updatedAt}</td>
                        <td class="row">
                          <a href={`${page.path}?edit=${encodeURIComponent(r.id)}`}>Edit {r.name}</a>
                          <CsrfForm action={`${page.path}/${encodeURIComponent(r.id)}/delete`} csrf={f.csrf}>
                            <button type="submit" class="secondary" aria-label={`Delete the rule set ${r.name}`}>
                              Delete
                            </button>
                          </CsrfForm>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )
          ) : (
            <Refused answer={list} />
          )}
          <h2>{current ? `Edit ${current.name}` : 'Save a new rule set'}</h2>
          <CsrfForm
            action={current ? `${page.path}/${encodeURIComponent(current.id)}` : page.path}
            csrf={f.csrf}
            class="stack"
          >
            <label for="rs-name">Name</label>
            <input id="rs-name" name="name" required maxlength={100} value={current?.name ?? ''} />
            <label for="rs-description">Description</label>
            <input id="rs-description" name="description" maxlength={500} value={current?.description ?? ''} />
            <label for="rs-rules">Rules, one a line</label>
            <textarea id="rs-rules" name="rules" required spellcheck={false}>
              {(current?.rules ?? []).join('\n')}
            </textarea>
            <button type="submit">{current ? 'Save changes' : 'Save rule set'}</button>
          </CsrfForm>
        </>
      );
    }),
  );
  formAction(
    app,
    ctx,
    { path: page.path, access: RULE_SETS_ACCESS, summary: 'Console: save a rule set', back: page.path },
    async (_c, form, api) =>
      outcomeOf(
        await api('/api/rules', {
          method: 'POST',
          body: {
            name: form.name ?? '',
            rules: rulesOf(form.rules),
            ...(form.description ? { description: form.description } : {}),
          },
        }),
        `Saved the rule set ${form.name ?? ''}.`,
      ),
  );
  formAction(
    app,
    ctx,
    {
      path: `${page.path}/{id}`,
      access: RULE_SETS_ACCESS,
      summary: 'Console: change a rule set',
      back: page.path,
      params: idParam,
    },
    async (c, form, api) =>
      outcomeOf(
        await api(`/api/rules/${encodeURIComponent(c.req.param('id') ?? '')}`, {
          method: 'PATCH',
          body: { name: form.name ?? '', description: form.description ?? '', rules: rulesOf(form.rules) },
        }),
        `Saved the changes to ${form.name ?? ''}.`,
      ),
  );
  formAction(
    app,
    ctx,
    {
      path: `${page.path}/{id}/delete`,
      access: RULE_SETS_ACCESS,
      summary: 'Console: delete a rule set',
      back: page.path,
      params: idParam,
    },
    async (c, _form, api) =>
      outcomeOf(
        await api(`/api/rules/${encodeURIComponent(c.req.param('id') ?? '')}`, { method: 'DELETE' }),
        'Deleted the rule set.',
      ),
  );
}
