import type { OpenAPIHono } from '@hono/zod-openapi';
import { ADMIN_PAGES, adminPage, offsetOf, utcOf } from './admin.js';
import type { ConsoleContext } from './frame.js';
import { cell, Refused, Rows } from './kit.js';

type Row = Record<string, unknown>;
const AUDIT_PAGE = 50;
const TABLE_PAGE = 50;
const ERRORS_PAGE = 50;
const AUDIT_FILTERS = ['actor_id', 'action', 'resource_type', 'resource_id'] as const;

/** The audit log with its filters, storage with the error log, metrics with health. */
export function registerAdminOpsPages(app: OpenAPIHono, ctx: ConsoleContext): void {
  const audit = ADMIN_PAGES.audit;
  adminPage(app, ctx, audit, async (c, _f, api) => {
    const q = c.req.query();
    const offset = offsetOf(c);
    const params = new URLSearchParams({ limit: String(AUDIT_PAGE), offset: String(offset) });
    for (const k of AUDIT_FILTERS) if (q[k]) params.set(k, q[k]);
    if (q.status) params.set('status', q.status);
    let badDate = false;
    for (const k of ['since', 'until'] as const) {
      const v = utcOf(q[k]);
      if (v === 'invalid') badDate = true;
      else if (v) params.set(k, v);
    }
    const logs = badDate
      ? { ok: false as const, status: 422, message: 'A date of the filter is not a date and time' }
      : await api<{ logs: Row[]; total: number }>(`/admin/system/audit?${params}`, { method: 'GET' });
    const keep = (o: number) => {
      const p = new URLSearchParams(Object.entries(q).filter(([k, v]) => k !== 'offset' && v));
      p.set('offset', String(o));
      return `${audit.path}?${p}`;
    };
    return (
      <>
        <form method="get" action={audit.path} class="filters" aria-label="Filters">
          {AUDIT_FILTERS.map((k) => (
            <div>
              <label for={`audit-${k}`}>{k.replace('_', ' ')}</label>
              <input id={`audit-${k}`} name={k} value={q[k] ?? ''} />
            </div>
          ))}
          <div>
            <label for="audit-status">status</label>
            <select id="audit-status" name="status">
              {['', 'success', 'failure', 'denied'].map((s) => (
                <option value={s} selected={(q.status ?? '') === s}>
                  {s || 'any'}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label for="audit-since">since (UTC)</label>
            <input id="audit-since" name="since" type="datetime-local" value={q.since ?? ''} />
          </div>
          <div>
            <label for="audit-until">until (UTC)</label>
            <input id="audit-until" name="until" type="datetime-local" value={q.until ?? ''} />
          </div>
          <button type="submit">Filter</button>
        </form>
        {logs.ok ? (
          <>
            <p>{logs.body.total} entries match.</p>
            <Rows
              caption="Audit log, newest first"
              rows={logs.body.logs}
              columns={[
                'created_at',
                'actor_email',
                'action',
                'resource_type',
                'resource_id',
                'status',
                'ip_address',
                'metadata',
              ]}
              empty="No entries match."
            />
            <nav aria-label="Pages of the audit log" class="row">
              {offset > 0 ? <a href={keep(Math.max(0, offset - AUDIT_PAGE))}>Newer</a> : null}
              {offset + AUDIT_PAGE < logs.body.total ? <a href={keep(offset + AUDIT_PAGE)}>Older</a> : null}
            </nav>
          </>
        ) : (
          <Refused answer={logs} />
        )}
      </>
    );
  });

  const storage = ADMIN_PAGES.storage;
  adminPage(app, ctx, storage, async (c, _f, api) => {
    const table = c.req.query('table');
    const offset = offsetOf(c);
    const [tables, errors, rows] = await Promise.all([
      api<{ engine: string; tables: { name: string; rows: number }[] }>('/api/admin/storage/tables', {
        method: 'GET',
      }),
      api<{ events: Row[]; total: number }>(`/api/admin/errors?limit=${ERRORS_PAGE}`, { method: 'GET' }),
      table
        ? api<{ columns: string[]; rows: Row[]; total: number }>(
            `/api/admin/storage/tables/${encodeURIComponent(table)}?limit=${TABLE_PAGE}&offset=${offset}`,
            { method: 'GET' },
          )
        : Promise.resolve(null),
    ]);
    return (
      <>
        <h2>Tables</h2>
        {tables.ok ? (
          <>
            <p>Engine: {tables.body.engine}.</p>
            <ul class="cards">
              {tables.body.tables.map((t) => (
                <li>
                  <a href={`${storage.path}?table=${encodeURIComponent(t.name)}`}>
                    {t.name}: {t.rows} rows
                  </a>
                </li>
              ))}
            </ul>
          </>
        ) : (
          <Refused answer={tables} />
        )}
        {rows && table ? (
          rows.ok ? (
            <>
              <h2>{table}</h2>
              <Rows caption={`Rows of ${table} (secrets redacted)`} rows={rows.body.rows} columns={rows.body.columns} />
              <nav aria-label={`Pages of ${table}`} class="row">
                {offset > 0 ? (
                  <a
                    href={`${storage.path}?table=${encodeURIComponent(table)}&offset=${Math.max(0, offset - TABLE_PAGE)}`}
                  >
                    Previous
                  </a>
                ) : null}
                {offset + TABLE_PAGE < rows.body.total ? (
                  <a href={`${storage.path}?table=${encodeURIComponent(table)}&offset=${offset + TABLE_PAGE}`}>Next</a>
                ) : null}
              </nav>
            </>
          ) : (
            <Refused answer={rows} />
          )
        ) : null}
        <h2>Error log</h2>
        {errors.ok ? (
          <>
            <p>{errors.body.total} browser error reports, newest first.</p>
            <Rows
              caption="Browser error reports"
              rows={errors.body.events}
              columns={['createdAt', 'severity', 'source', 'message', 'url']}
              empty="No error reports."
            />
          </>
        ) : (
          <Refused answer={errors} />
        )}
      </>
    );
  });

  adminPage(app, ctx, ADMIN_PAGES.metrics, async (_c, _f, api) => {
    const [health, metrics, prometheus] = await Promise.all([
      api<Row>('/api/health', { method: 'GET' }),
      api<Row>('/api/metrics', { method: 'GET' }),
      api('/api/metrics/prometheus', { method: 'GET' }),
    ]);
    // /api/health answers 503 with its body when the service is unavailable: that is still its report.
    return (
      <>
        <h2>Health</h2>
        {health.ok ? <Facts value={health.body} /> : <Refused answer={health} />}
        <h2>Metrics</h2>
        {metrics.ok ? <Facts value={metrics.body} /> : <Refused answer={metrics} />}
        <h2>Prometheus</h2>
        {prometheus.ok ? <pre tabindex={0}>{prometheus.text}</pre> : <Refused answer={prometheus} />}
      </>
    );
  });
}

/** An object's fields as a list; nested objects in their own lists. */
function Facts({ value }: { value: Row }) {
  return (
    <dl class="facts">
      {Object.entries(value)
        .filter(([k]) => k !== 'success')
        .map(([k, v]) => (
          <>
            <dt>{k}</dt>
            <dd>{v !== null && typeof v === 'object' && !Array.isArray(v) ? <Facts value={v as Row} /> : cell(v)}</dd>
          </>
        ))}
    </dl>
  );
}
