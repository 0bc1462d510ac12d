import type { Context } from 'hono';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from '@hono/zod-openapi';
import { type ConsoleContext, pageHandler } from './frame.js';
import { apiOf, formAction, OutcomeNotice, outcomeOf, Refused, takeOutcome } from './kit.js';
import { CsrfForm } from './layout.js';
import { consoleRoute } from './pages.js';
import { csrfToken } from './session.js';

/** The jobs pages: the queue routes' own rule. */
export const JOBS_ACCESS = { tier: 'free', scope: 'compile' } as const;
/** Jobs a page of the history lists. */
const PAGE = 20;
/** How often a page with a running job asks again for its state (htmx polling, no script of ours). */
const POLL = 'every 2s';
/** Characters of a result shown on the page (the whole result is a download). */
const RESULT_PREVIEW = 20_000;

interface JobView {
  requestId: string;
  kind: string;
  status: 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
  attempts: number;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  durationMs: number | null;
  result?: unknown;
  error?: string;
}
interface Step {
  index: number;
  name: string;
  state: string;
  attempts: number;
  durationMs: number | null;
  error?: string;
}

const live = (s: JobView['status']) => s === 'queued' || s === 'running';
const idParam = z.object({ id: z.string().min(1).max(100) });
const jobPath = (id: string) => `/console/jobs/${encodeURIComponent(id)}`;

/** `/console/jobs` (history) and `/console/jobs/{id}` (one job: state, steps, result, cancel). */
export function registerJobPages(app: OpenAPIHono, ctx: ConsoleContext): void {
  const page = { title: 'Jobs', path: '/console/jobs' };

  const history = async (c: Context) => {
    const offset = Math.max(0, Number.parseInt(c.req.query('offset') ?? '0', 10) || 0);
    const answer = await apiOf(c, ctx)<{ jobs: JobView[]; total: number }>(
      `/api/queue/history?limit=${PAGE}&offset=${offset}`,
      { method: 'GET' },
    );
    return { answer, offset };
  };

  consoleRoute(
    app,
    { method: 'get', path: page.path, access: JOBS_ACCESS, summary: 'Console: the history of queued jobs' },
    pageHandler(ctx, page, async (c) => {
      const [outcome, h] = await Promise.all([takeOutcome(c, ctx), history(c)]);
      return (
        <>
          <OutcomeNotice outcome={outcome} />
          <p>Async, batch and workflow compiles, newest first. A running job's row updates by itself.</p>
          {h.answer.ok ? <JobTable jobs={h.answer.body.jobs} offset={h.offset} /> : <Refused answer={h.answer} />}
          {h.answer.ok ? <Pager total={h.answer.body.total} offset={h.offset} /> : null}
        </>
      );
    }),
  );
  consoleRoute(
    app,
    { method: 'get', path: `${page.path}/table`, access: JOBS_ACCESS, summary: 'Console: the job table (polled)' },
    async (c) => {
      const h = await history(c);
      return c.html(
        h.answer.ok ? <JobTable jobs={h.answer.body.jobs} offset={h.offset} /> : <Refused answer={h.answer} />,
      );
    },
  );

  const jobState = async (c: Context, id: string) => {
    const api = apiOf(c, ctx);
    const job = await api<JobView>(`/api/queue/results/${encodeURIComponent(id)}`, { method: 'GET' });
    const steps =
      job.ok && job.body.kind === 'workflow'
        ? await api<{ steps: Step[] }>(`/api/workflow/${encodeURIComponent(id)}`, { method: 'GET' })
        : null;
    return { job, steps: steps?.ok ? steps.body.steps : null };
  };

  consoleRoute(
    app,
    {
      method: 'get',
      path: `${page.path}/{id}`,
      access: JOBS_ACCESS,
      summary: 'Console: one job, its steps and result',
      params: idParam,
    },
    pageHandler(ctx, { title: 'Job', path: page.path }, async (c, f) => {
      const id = c.req.param('id') ?? '';
      const [outcome, s] = await Promise.all([takeOutcome(c, ctx), jobState(c, id)]);
      if (!s.job.ok)
        return (
          <>
            <Refused answer={s.job} />
            <p>
              <a href={page.path}>All jobs</a>
            </p>
          </>
        );
      return (
        <>
          <OutcomeNotice outcome={outcome} />
          <JobDetail job={s.job.body} steps={s.steps} csrf={f.csrf} />
          <p>
            <a href={page.path}>All jobs</a>
          </p>
        </>
      );
    }),
  );
  consoleRoute(
    app,
    {
      method: 'get',
      path: `${page.path}/{id}/state`,
      access: JOBS_ACCESS,
      summary: 'Console: one job’s state (polled while it runs)',
      params: idParam,
    },
    async (c) => {
      const s = await jobState(c, c.req.param('id') ?? '');
      const csrf = csrfToken(c);
      return c.html(s.job.ok ? <JobDetail job={s.job.body} steps={s.steps} csrf={csrf} /> : <Refused answer={s.job} />);
    },
  );
  consoleRoute(
    app,
    {
      method: 'get',
      path: `${page.path}/{id}/result`,
      access: JOBS_ACCESS,
      summary: 'Console: download a job’s result',
      params: idParam,
    },
    async (c) => {
      const id = c.req.param('id') ?? '';
      const job = await apiOf(c, ctx)<JobView>(`/api/queue/results/${encodeURIComponent(id)}`, { method: 'GET' });
      if (!job.ok) return c.text(job.message, job.status as 404);
      if (job.body.result === undefined) return c.text('This job has no result (yet).', 404);
      return c.body(JSON.stringify(job.body.result, null, 2), 200, {
        'content-type': 'application/json; charset=utf-8',
        'content-disposition': `attachment; filename="flc-job-${id.replace(/[^A-Za-z0-9-]/g, '')}.json"`,
      });
    },
  );
  formAction(
    app,
    ctx,
    {
      path: `${page.path}/{id}/cancel`,
      access: JOBS_ACCESS,
      summary: 'Console: cancel a job',
      back: page.path,
      params: idParam,
    },
    async (c, _form, api) =>
      outcomeOf(
        await api(`/api/queue/cancel/${encodeURIComponent(c.req.param('id') ?? '')}`, { method: 'DELETE' }),
        `Cancelled the job ${c.req.param('id') ?? ''}.`,
      ),
  );
}

function JobTable({ jobs, offset }: { jobs: JobView[]; offset: number }) {
  const polling = jobs.some((j) => live(j.status));
  const attrs = polling
    ? { 'hx-get': `/console/jobs/table?offset=${offset}`, 'hx-trigger': POLL, 'hx-swap': 'outerHTML' }
    : {};
  return (
    <div class="table-wrap" id="jobs" {...attrs}>
      {jobs.length === 0 ? (
        <p class="muted">No jobs yet: start an async or batch compile and it is listed here.</p>
      ) : (
        <table>
          <caption class="muted">Your jobs</caption>
          <thead>
            <tr>
              <th scope="col">Job</th>
              <th scope="col">Kind</th>
              <th scope="col">State</th>
              <th scope="col">Created</th>
              <th scope="col">Duration</th>
            </tr>
          </thead>
          <tbody>
            {jobs.map((j) => (
              <tr>
                <td>
                  <a href={jobPath(j.requestId)}>
                    <code>{j.requestId}</code>
                  </a>
                </td>
                <td>{j.kind}</td>
                <td class={`state state-${j.status}`}>{j.status}</td>
                <td>{j.createdAt}</td>
                <td>{j.durationMs === null ? '' : `${j.durationMs} ms`}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function Pager({ total, offset }: { total: number; offset: number }) {
  if (total <= PAGE) return null;
  return (
    <nav aria-label="Pages of jobs" class="row">
      {offset > 0 ? <a href={`/console/jobs?offset=${Math.max(0, offset - PAGE)}`}>Newer</a> : null}
      <span class="muted">
        {offset + 1}–{Math.min(total, offset + PAGE)} of {total}
      </span>
      {offset + PAGE < total ? <a href={`/console/jobs?offset=${offset + PAGE}`}>Older</a> : null}
    </nav>
  );
}

/** A job's state, steps and result; while it runs it asks for itself again every 2 s. */
function JobDetail({ job, steps, csrf }: { job: JobView; steps: Step[] | null; csrf: string }) {
  const running = live(job.status);
  const attrs = running
    ? {
        'hx-get': `${jobPath(job.requestId)}/state`,
        'hx-trigger': POLL,
        'hx-swap': 'outerHTML',
      }
    : {};
  const result = job.result === undefined ? null : JSON.stringify(job.result, null, 2);
  const ruleCount = (job.result as { ruleCount?: unknown } | undefined)?.ruleCount;
  return (
    <section id="job" aria-live="polite" {...attrs}>
      <dl class="facts">
        <dt>Job</dt>
        <dd>
          <code>{job.requestId}</code>
        </dd>
        <dt>Kind</dt>
        <dd>{job.kind}</dd>
        <dt>State</dt>
        <dd class={`state state-${job.status}`}>{job.status}</dd>
        <dt>Attempts</dt>
        <dd>{job.attempts}</dd>
        <dt>Created</dt>
        <dd>{job.createdAt}</dd>
        <dt>Started</dt>
        <dd>{job.startedAt ?? '–'}</dd>
        <dt>Finished</dt>
        <dd>{job.finishedAt ?? '–'}</dd>
        {job.durationMs !== null ? (
          <>
            <dt>Duration</dt>
            <dd>{job.durationMs} ms</dd>
          </>
        ) : null}
        {typeof ruleCount === 'number' ? (
          <>
            <dt>Rules</dt>
            <dd>{ruleCount}</dd>
          </>
        ) : null}
      </dl>
      {job.error ? (
        <p class="form-error" role="alert">
          {job.error}
        </p>
      ) : null}
      {running ? (
        <CsrfForm action={`${jobPath(job.requestId)}/cancel`} csrf={csrf}>
          <button type="submit" class="secondary">
            Cancel this job
          </button>
        </CsrfForm>
      ) : null}
      {steps ? (
        <>
          <h2>Workflow steps</h2>
          <ol class="steps">
            {steps.map((s) => (
              <li>
                {s.name}: <span class={`state state-${s.state}`}>{s.state}</span>
                {s.attempts > 1 ? ` (${s.attempts} attempts)` : ''}
                {s.durationMs !== null ? ` · ${s.durationMs} ms` : ''}
                {s.error ? ` · ${s.error}` : ''}
              </li>
            ))}
          </ol>
        </>
      ) : null}
      {result !== null ? (
        <>
          <h2>Result</h2>
          <p>
            <a href={`${jobPath(job.requestId)}/result`} download>
              Download the result (JSON)
            </a>
          </p>
          <pre tabindex={0}>{result.length > RESULT_PREVIEW ? `${result.slice(0, RESULT_PREVIEW)}\n…` : result}</pre>
        </>
      ) : null}
    </section>
  );
}
