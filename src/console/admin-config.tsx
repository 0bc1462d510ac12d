import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from '@hono/zod-openapi';
import { BUNDLE_FORMATS, BUNDLE_MEDIA_TYPES, type BundleFormat } from '../server/config-bundle/format.js';
import type { SectionDiff } from '../server/config-bundle/diff.js';
import { ADMIN_PAGES, adminPage, idParam, param, utcOf } from './admin.js';
import { type ConsoleContext, render } from './frame.js';
import {
  apiOf,
  BUNDLE_FORM_LIMIT,
  CSRF_REFUSED,
  cell,
  domId,
  formAction,
  formFields,
  outcomeOf,
  Refused,
  Rows,
} from './kit.js';
import { CsrfForm, FormError } from './layout.js';
import { consoleRoute } from './pages.js';
import { CSRF_FIELD, csrfMatches } from './session.js';

type Row = Record<string, unknown>;
const nameParam = z.object({ name: z.string().min(1).max(200) });
const checked = (v: unknown) => v === true || Number(v) === 1;

/** Tiers, scopes, endpoint overrides, announcements, feature flags, configuration bundles and snapshots. */
export function registerAdminConfigPages(app: OpenAPIHono, ctx: ConsoleContext): void {
  registerAccessConfig(app, ctx);
  registerAnnouncements(app, ctx);
  registerFlags(app, ctx);
  registerBundles(app, ctx);
}

function registerAccessConfig(app: OpenAPIHono, ctx: ConsoleContext): void {
  const page = ADMIN_PAGES.access;
  adminPage(app, ctx, page, async (_c, f, api) => {
    const [tiers, scopes, endpoints] = await Promise.all([
      api<{ tiers: Row[] }>('/admin/system/tiers', { method: 'GET' }),
      api<{ scopes: Row[] }>('/admin/system/scopes', { method: 'GET' }),
      api<{ endpoints: Row[] }>('/admin/system/endpoints', { method: 'GET' }),
    ]);
    const tierNames = tiers.ok ? tiers.body.tiers.map((t) => String(t.tier_name)) : [];
    return (
      <>
        <p>Changes need the config:write permission.</p>
        <h2>Tiers</h2>
        {tiers.ok ? (
          tiers.body.tiers.map((t) => {
            const name = String(t.tier_name);
            return (
              <CsrfForm action={`${page.path}/tiers/${encodeURIComponent(name)}`} csrf={f.csrf} class="row">
                <strong>{name}</strong>
                <label for={domId('tdn', name)}>Display name</label>
                <input id={domId('tdn', name)} name="display_name" value={cell(t.display_name)} required />
                <label for={domId('trl', name)}>Requests a minute (0: unlimited)</label>
                <input id={domId('trl', name)} name="rate_limit" type="number" min={0} value={cell(t.rate_limit)} />
                <label>
                  <input type="checkbox" name="is_active" value="1" checked={checked(t.is_active)} /> Active
                </label>
                <button type="submit" aria-label={`Save the tier ${name}`}>
                  Save
                </button>
              </CsrfForm>
            );
          })
        ) : (
          <Refused answer={tiers} />
        )}
        <h2>Scopes</h2>
        {scopes.ok ? (
          scopes.body.scopes.map((s) => {
            const name = String(s.scope_name);
            return (
              <CsrfForm action={`${page.path}/scopes/${encodeURIComponent(name)}`} csrf={f.csrf} class="row">
                <strong>{name}</strong>
                <label for={domId('srt', name)}>Required tier</label>
                <select id={domId('srt', name)} name="required_tier">
                  {tierNames.map((t) => (
                    <option value={t} selected={t === s.required_tier}>
                      {t}
                    </option>
                  ))}
                </select>
                <label>
                  <input type="checkbox" name="is_active" value="1" checked={checked(s.is_active)} /> Active
                </label>
                <button type="submit" aria-label={`Save the scope ${name}`}>
                  Save
                </button>
              </CsrfForm>
            );
          })
        ) : (
          <Refused answer={scopes} />
        )}
        <h2>Endpoint overrides</h2>
        {endpoints.ok ? (
          <>
            <Rows
              caption="Overrides of a route's access rule"
              rows={endpoints.body.endpoints}
              columns={['id', 'path_pattern', 'method', 'required_tier', 'required_scopes', 'is_public', 'is_active']}
              empty="No overrides: every route keeps its own rule."
            />
            {endpoints.body.endpoints.map((e) => (
              <CsrfForm action={`${page.path}/endpoints/${cell(e.id)}/delete`} csrf={f.csrf} class="row">
                <button type="submit" class="secondary">
                  Delete the override of {cell(e.method)} {cell(e.path_pattern)}
                </button>
              </CsrfForm>
            ))}
          </>
        ) : (
          <Refused answer={endpoints} />
        )}
        <h3>New override</h3>
        <CsrfForm action={`${page.path}/endpoints`} csrf={f.csrf} class="stack narrow">
          <label for="ep-path">Path (ending in /* for a prefix)</label>
          <input id="ep-path" name="path_pattern" required placeholder="/api/compile" />
          <label for="ep-method">Method (* for any)</label>
          <input id="ep-method" name="method" value="*" />
          <label for="ep-tier">Required tier</label>
          <select id="ep-tier" name="required_tier">
            <option value="">(the route's own)</option>
            {tierNames.map((t) => (
              <option value={t}>{t}</option>
            ))}
          </select>
          <label for="ep-scopes">Required scopes (comma-separated)</label>
          <input id="ep-scopes" name="required_scopes" />
          <label>
            <input type="checkbox" name="is_public" value="1" /> Public
          </label>
          <button type="submit">Create override</button>
        </CsrfForm>
      </>
    );
  });
  const base = { access: page.access, back: page.path };
  formAction(
    app,
    ctx,
    { ...base, path: `${page.path}/tiers/{name}`, params: nameParam, summary: 'Console: change a tier' },
    async (c, form, api) =>
      outcomeOf(
        await api(`/admin/system/tiers/${param(c, 'name')}`, {
          method: 'PUT',
          body: {
            display_name: form.display_name ?? '',
            rate_limit: Number(form.rate_limit ?? 0),
            is_active: form.is_active === '1',
          },
        }),
        'Saved the tier.',
      ),
  );
  formAction(
    app,
    ctx,
    { ...base, path: `${page.path}/scopes/{name}`, params: nameParam, summary: 'Console: change a scope' },
    async (c, form, api) =>
      outcomeOf(
        await api(`/admin/system/scopes/${param(c, 'name')}`, {
          method: 'PUT',
          body: { required_tier: form.required_tier ?? '', is_active: form.is_active === '1' },
        }),
        'Saved the scope.',
      ),
  );
  formAction(
    app,
    ctx,
    { ...base, path: `${page.path}/endpoints`, summary: 'Console: create an endpoint override' },
    async (_c, form, api) => {
      const scopes = (form.required_scopes ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      return outcomeOf(
        await api('/admin/system/endpoints', {
          method: 'POST',
          body: {
            path_pattern: form.path_pattern ?? '',
            method: form.method || '*',
            required_tier: form.required_tier || null,
            required_scopes: scopes.length > 0 ? scopes : null,
            is_public: form.is_public === '1',
          },
        }),
        'Created the override.',
      );
    },
  );
  formAction(
    app,
    ctx,
    { ...base, path: `${page.path}/endpoints/{id}/delete`, params: idParam, summary: 'Console: delete an override' },
    async (c, _form, api) =>
      outcomeOf(await api(`/admin/system/endpoints/${param(c)}`, { method: 'DELETE' }), 'Deleted the override.'),
  );
}

function registerAnnouncements(app: OpenAPIHono, ctx: ConsoleContext): void {
  const page = ADMIN_PAGES.announcements;
  adminPage(app, ctx, page, async (_c, f, api) => {
    const list = await api<{ announcements: (Row & { current: boolean })[] }>('/admin/system/announcements', {
      method: 'GET',
    });
    return (
      <>
        <p>Current announcements show as banners on every page. Changes need config:write.</p>
        {list.ok ? (
          list.body.announcements.length === 0 ? (
            <p class="muted">No announcements.</p>
          ) : (
            list.body.announcements.map((a) => (
              <section class="notice" aria-label={`Announcement ${cell(a.title)}`}>
                <p>
                  <strong>{cell(a.title)}</strong> ({cell(a.severity)}, {a.current ? 'shown now' : 'not shown now'})
                </p>
                <p>{cell(a.body)}</p>
                <p class="muted">
                  From {cell(a.active_from) || 'always'} until {cell(a.active_until) || 'never'}
                </p>
                <div class="row">
                  <CsrfForm action={`${page.path}/${cell(a.id)}/toggle`} csrf={f.csrf}>
                    <input type="hidden" name="is_active" value={checked(a.is_active) ? '0' : '1'} />
                    <button type="submit" class="secondary">
                      {checked(a.is_active) ? 'Deactivate' : 'Activate'} {cell(a.title)}
                    </button>
                  </CsrfForm>
                  <CsrfForm action={`${page.path}/${cell(a.id)}/delete`} csrf={f.csrf}>
                    <button type="submit" class="secondary">
                      Delete {cell(a.title)}
                    </button>
                  </CsrfForm>
                </div>
              </section>
            ))
          )
        ) : (
          <Refused answer={list} />
        )}
        <h2>New announcement</h2>
        <CsrfForm action={page.path} csrf={f.csrf} class="stack narrow">
          <label for="an-title">Title</label>
          <input id="an-title" name="title" required />
          <label for="an-body">Text</label>
          <input id="an-body" name="body" />
          <label for="an-severity">Severity</label>
          <select id="an-severity" name="severity">
            {['info', 'warning', 'error', 'success'].map((s) => (
              <option value={s}>{s}</option>
            ))}
          </select>
          <label for="an-from">Shown from (UTC, empty: now)</label>
          <input id="an-from" name="active_from" type="datetime-local" />
          <label for="an-until">Shown until (UTC, empty: no end)</label>
          <input id="an-until" name="active_until" type="datetime-local" />
          <button type="submit">Create announcement</button>
        </CsrfForm>
      </>
    );
  });
  const base = { access: page.access, back: page.path };
  formAction(
    app,
    ctx,
    { ...base, path: page.path, summary: 'Console: create an announcement' },
    async (_c, form, api) => {
      const from = utcOf(form.active_from);
      const until = utcOf(form.active_until);
      if (from === 'invalid' || until === 'invalid') return { ok: false, text: 'A date is not a date and time' };
      return outcomeOf(
        await api('/admin/system/announcements', {
          method: 'POST',
          body: {
            title: form.title ?? '',
            body: form.body ?? '',
            severity: form.severity || 'info',
            ...(from ? { active_from: from } : {}),
            ...(until ? { active_until: until } : {}),
          },
        }),
        'Created the announcement.',
      );
    },
  );
  formAction(
    app,
    ctx,
    { ...base, path: `${page.path}/{id}/toggle`, params: idParam, summary: 'Console: (de)activate an announcement' },
    async (c, form, api) =>
      outcomeOf(
        await api(`/admin/system/announcements/${param(c)}`, {
          method: 'PATCH',
          body: { is_active: form.is_active === '1' },
        }),
        form.is_active === '1' ? 'Activated the announcement.' : 'Deactivated the announcement.',
      ),
  );
  formAction(
    app,
    ctx,
    { ...base, path: `${page.path}/{id}/delete`, params: idParam, summary: 'Console: delete an announcement' },
    async (c, _form, api) =>
      outcomeOf(
        await api(`/admin/system/announcements/${param(c)}`, { method: 'DELETE' }),
        'Deleted the announcement.',
      ),
  );
}

function registerFlags(app: OpenAPIHono, ctx: ConsoleContext): void {
  const page = ADMIN_PAGES.flags;
  adminPage(app, ctx, page, async (_c, f, api) => {
    const list = await api<{ items: Row[] }>('/admin/config/feature-flags', { method: 'GET' });
    return (
      <>
        <p>Flags are kept in this server's store. Changes need flags:write.</p>
        {list.ok ? (
          list.body.items.length === 0 ? (
            <p class="muted">No feature flags.</p>
          ) : (
            <div class="table-wrap">
              <table>
                <caption class="muted">Feature flags</caption>
                <thead>
                  <tr>
                    <th scope="col">Key</th>
                    <th scope="col">Description</th>
                    <th scope="col">Variations (default)</th>
                    <th scope="col">Rules</th>
                    <th scope="col">Enabled</th>
                    <th scope="col">Delete</th>
                  </tr>
                </thead>
                <tbody>
                  {list.body.items.map((fl) => {
                    const key = String(fl.key);
                    const on = checked(fl.enabled);
                    return (
                      <tr>
                        <td>
                          <code>{key}</code>
                        </td>
                        <td>{cell(fl.description)}</td>
                        <td>
                          {cell(fl.variations)} ({cell(fl.default_variation)})
                        </td>
                        <td>{Array.isArray(fl.rules) ? fl.rules.length : 0}</td>
                        <td>
                          <CsrfForm action={`${page.path}/${encodeURIComponent(key)}/toggle`} csrf={f.csrf}>
                            <input type="hidden" name="enabled" value={on ? '0' : '1'} />
                            <button type="submit" class="secondary" aria-label={`${on ? 'Disable' : 'Enable'} ${key}`}>
                              {on ? 'On: disable' : 'Off: enable'}
                            </button>
                          </CsrfForm>
                        </td>
                        <td>
                          <CsrfForm action={`${page.path}/${encodeURIComponent(key)}/delete`} csrf={f.csrf}>
                            <button type="submit" class="secondary" aria-label={`Delete ${key}`}>
                              Delete
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
          <Refused answer={list} />
        )}
        <h2>New flag</h2>
        <CsrfForm action={page.path} csrf={f.csrf} class="stack narrow">
          <label for="fl-key">Key</label>
          <input id="fl-key" name="key" required pattern="[A-Za-z0-9_\-]{1,128}" />
          <label for="fl-description">Description</label>
          <input id="fl-description" name="description" />
          <label for="fl-variations">Variations (JSON object)</label>
          <textarea id="fl-variations" name="variations" spellcheck={false}>
            {'{"on": true, "off": false}'}
          </textarea>
          <label for="fl-default">Default variation</label>
          <input id="fl-default" name="default_variation" value="off" required />
          <label>
            <input type="checkbox" name="enabled" value="1" /> Enabled
          </label>
          <button type="submit">Create flag</button>
        </CsrfForm>
      </>
    );
  });
  const base = { access: page.access, back: page.path };
  const keyParam = z.object({ key: z.string().min(1).max(128) });
  formAction(
    app,
    ctx,
    { ...base, path: page.path, summary: 'Console: create a feature flag' },
    async (_c, form, api) => {
      let variations: unknown;
      try {
        variations = JSON.parse(form.variations ?? '');
      } catch (err) {
        return { ok: false, text: `The variations are not JSON: ${(err as Error).message}` };
      }
      return outcomeOf(
        await api('/admin/config/feature-flags', {
          method: 'POST',
          body: {
            key: form.key ?? '',
            description: form.description ?? '',
            variations,
            default_variation: form.default_variation ?? '',
            enabled: form.enabled === '1',
          },
        }),
        `Created the flag ${form.key ?? ''}.`,
      );
    },
  );
  formAction(
    app,
    ctx,
    { ...base, path: `${page.path}/{key}/toggle`, params: keyParam, summary: 'Console: switch a feature flag' },
    async (c, form, api) =>
      outcomeOf(
        await api(`/admin/config/feature-flags/${param(c, 'key')}`, {
          method: 'PATCH',
          body: { enabled: form.enabled === '1' },
        }),
        form.enabled === '1' ? 'Enabled the flag.' : 'Disabled the flag.',
      ),
  );
  formAction(
    app,
    ctx,
    { ...base, path: `${page.path}/{key}/delete`, params: keyParam, summary: 'Console: delete a feature flag' },
    async (c, _form, api) =>
      outcomeOf(await api(`/admin/config/feature-flags/${param(c, 'key')}`, { method: 'DELETE' }), 'Deleted the flag.'),
  );
}

const isFormat = (v: string | undefined): v is BundleFormat => (BUNDLE_FORMATS as readonly string[]).includes(v ?? '');

/** A dry run's diff, section by section: what would be added, removed and changed. */
function DiffView({ diff }: { diff: Record<string, SectionDiff> }) {
  const sections = Object.entries(diff);
  const changes = sections.reduce((n, [, d]) => n + d.added.length + d.removed.length + d.changed.length, 0);
  return (
    <section id="diff" aria-label="What the import would change">
      <p>
        <strong>{changes === 0 ? 'The import changes nothing.' : `The import makes ${changes} changes.`}</strong>
      </p>
      <div class="table-wrap">
        <table>
          <caption class="muted">Changes by section</caption>
          <thead>
            <tr>
              <th scope="col">Section</th>
              <th scope="col">Added</th>
              <th scope="col">Removed</th>
              <th scope="col">Changed</th>
              <th scope="col">Unchanged</th>
            </tr>
          </thead>
          <tbody>
            {sections.map(([name, d]) => (
              <tr>
                <th scope="row">{name}</th>
                <td>{d.added.length}</td>
                <td>{d.removed.length}</td>
                <td>{d.changed.length}</td>
                <td>{d.unchanged}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {sections
        .filter(([, d]) => d.added.length + d.removed.length + d.changed.length > 0)
        .map(([name, d]) => (
          <details open>
            <summary>{name}</summary>
            <ul class="diff">
              {d.added.map((r) => (
                <li class="diff-added">+ {JSON.stringify(r)}</li>
              ))}
              {d.removed.map((r) => (
                <li class="diff-removed">− {JSON.stringify(r)}</li>
              ))}
              {d.changed.map((ch) => (
                <li class="diff-changed">
                  ~ {JSON.stringify(ch.key)}: {JSON.stringify(ch.before)} → {JSON.stringify(ch.after)}
                </li>
              ))}
            </ul>
          </details>
        ))}
    </section>
  );
}

function registerBundles(app: OpenAPIHono, ctx: ConsoleContext): void {
  const page = ADMIN_PAGES.config;
  const FormatSelect = ({ id, value }: { id: string; value?: string }) => (
    <select id={id} name="format">
      {BUNDLE_FORMATS.map((f) => (
        <option value={f} selected={f === (value ?? 'json')}>
          {f.toUpperCase()}
        </option>
      ))}
    </select>
  );
  const ImportForm = ({ csrf, text, format }: { csrf: string; text?: string; format?: string }) => (
    <CsrfForm action={`${page.path}/import`} csrf={csrf} multipart class="stack">
      <label for="bundle-text">Bundle (paste)</label>
      <textarea id="bundle-text" name="bundle" spellcheck={false}>
        {text ?? ''}
      </textarea>
      <label for="bundle-file">or upload a file</label>
      <input id="bundle-file" name="file" type="file" accept=".json,.yaml,.yml,.toml" />
      <label for="bundle-format">Format</label>
      <FormatSelect id="bundle-format" value={format} />
      <button type="submit">Show what it would change</button>
    </CsrfForm>
  );

  adminPage(app, ctx, page, async (_c, f, api) => {
    const snapshots = await api<{ snapshots: Row[] }>('/admin/system/config/snapshots', { method: 'GET' });
    return (
      <>
        <h2>Export</h2>
        <form method="get" action={`${page.path}/export`} class="row">
          <label for="export-format">Format</label>
          <FormatSelect id="export-format" />
          <button type="submit">Download the configuration</button>
        </form>
        <h2>Import</h2>
        <p>
          An import is first a dry run: the changes are shown, and only applied when you confirm them (config:write).
        </p>
        <ImportForm csrf={f.csrf} />
        <h2>Snapshots</h2>
        {snapshots.ok ? (
          snapshots.body.snapshots.length === 0 ? (
            <p class="muted">No snapshots yet: each applied import or revert takes one first.</p>
          ) : (
            <div class="table-wrap">
              <table>
                <caption class="muted">Configuration snapshots, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Snapshot</th>
                    <th scope="col">Taken</th>
                    <th scope="col">By</th>
                    <th scope="col">Why</th>
                    <th scope="col">Revert</th>
                  </tr>
                </thead>
                <tbody>
                  {snapshots.body.snapshots.map((s) => (
                    <tr>
                      <td>{cell(s.id)}</td>
                      <td>{cell(s.created_at ?? s.createdAt)}</td>
                      <td>{cell(s.created_by ?? s.createdBy)}</td>
                      <td>{cell(s.reason ?? s.description)}</td>
                      <td>
                        <CsrfForm action={`${page.path}/snapshots/${cell(s.id)}/revert`} csrf={f.csrf}>
                          <button type="submit" class="secondary" aria-label={`Revert to snapshot ${cell(s.id)}`}>
                            Revert to this
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
          <Refused answer={snapshots} />
        )}
      </>
    );
  });

  consoleRoute(
    app,
    { method: 'get', path: `${page.path}/export`, access: page.access, summary: 'Console: download the configuration' },
    async (c) => {
      const format = c.req.query('format');
      const chosen: BundleFormat = isFormat(format) ? format : 'json';
      const answer = await apiOf(c, ctx)(`/admin/system/config/export?format=${chosen}`, { method: 'GET' });
      if (!answer.ok) return c.text(answer.message, answer.status as 403);
      return c.body(answer.text, 200, {
        'content-type': `${BUNDLE_MEDIA_TYPES[chosen]}; charset=utf-8`,
        'content-disposition': `attachment; filename="flc-config.${chosen}"`,
      });
    },
  );

  // The dry run: changes nothing, so it answers with the diff and a form that applies the same bundle.
  consoleRoute(
    app,
    {
      method: 'post',
      path: `${page.path}/import`,
      access: page.access,
      bodyLimit: BUNDLE_FORM_LIMIT,
      summary: 'Console: the dry run of a configuration import',
    },
    async (c) => {
      const form = await formFields(c);
      const importPage = { title: 'Configuration import', path: page.path };
      const format = isFormat(form.format) ? form.format : 'json';
      const text = form.file?.trim() ? form.file : (form.bundle ?? '');
      if (!csrfMatches(c, form[CSRF_FIELD]))
        return render(
          c,
          ctx,
          importPage,
          (f) => (
            <>
              <FormError message={CSRF_REFUSED} />
              <ImportForm csrf={f.csrf} text={text} format={format} />
            </>
          ),
          403,
        );
      if (!text.trim())
        return render(
          c,
          ctx,
          importPage,
          (f) => (
            <>
              <FormError message="Paste a bundle or choose a file." />
              <ImportForm csrf={f.csrf} format={format} />
            </>
          ),
          422,
        );
      const answer = await apiOf(c, ctx)<{ diff: Record<string, SectionDiff> }>(
        `/admin/system/config/import?format=${format}&dryRun=true`,
        { method: 'POST', raw: { text, type: BUNDLE_MEDIA_TYPES[format] } },
      );
      if (!answer.ok)
        return render(
          c,
          ctx,
          importPage,
          (f) => (
            <>
              <FormError message={`${answer.message} (${answer.status})`} />
              <ImportForm csrf={f.csrf} text={text} format={format} />
            </>
          ),
          answer.status === 403 ? 403 : 422,
        );
      return render(c, ctx, importPage, (f) => (
        <>
          <p>This is a dry run: nothing has changed yet.</p>
          <DiffView diff={answer.body.diff} />
          <CsrfForm action={`${page.path}/apply`} csrf={f.csrf} class="stack">
            <input type="hidden" name="format" value={format} />
            <label for="apply-bundle">The bundle that will be applied</label>
            <textarea id="apply-bundle" name="bundle" readonly spellcheck={false}>
              {text}
            </textarea>
            <button type="submit">Apply these changes</button>
          </CsrfForm>
          <p>
            <a href={page.path}>Cancel</a>
          </p>
        </>
      ));
    },
  );
  formAction(
    app,
    ctx,
    {
      path: `${page.path}/apply`,
      access: page.access,
      back: page.path,
      bodyLimit: BUNDLE_FORM_LIMIT,
      summary: 'Console: apply a configuration import',
    },
    async (_c, form, api) => {
      const format = isFormat(form.format) ? form.format : 'json';
      const answer = await api<{ snapshotId: number }>(`/admin/system/config/import?format=${format}&dryRun=false`, {
        method: 'POST',
        raw: { text: form.bundle ?? '', type: BUNDLE_MEDIA_TYPES[format] },
      });
      return answer.ok
        ? { ok: true, text: `Applied the import; the configuration before it is snapshot ${answer.body.snapshotId}.` }
        : outcomeOf(answer, '');
    },
  );
  formAction(
    app,
    ctx,
    {
      path: `${page.path}/snapshots/{id}/revert`,
      params: idParam,
      access: page.access,
      back: page.path,
      summary: 'Console: revert to a configuration snapshot',
    },
    async (c, _form, api) => {
      const answer = await api<{ preRevertSnapshotId: number }>(`/admin/system/config/snapshots/${param(c)}/revert`, {
        method: 'POST',
      });
      return answer.ok
        ? {
            ok: true,
            text: `Reverted to snapshot ${c.req.param('id') ?? ''}; the configuration before is snapshot ${answer.body.preRevertSnapshotId}.`,
          }
        : outcomeOf(answer, '');
    },
  );
}
