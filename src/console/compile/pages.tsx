import type { Context } from 'hono';
import { type OpenAPIHono, z } from '@hono/zod-openapi';
import { streamSSE } from 'hono/streaming';
import { compile } from '../../core/pipeline/compile.js';
import { formatOf } from '../../core/config/parse.js';
import { ConfigError } from '../../core/errors/index.js';
import { OUTPUT_FORMATS } from '../../core/output/formats.js';
import { callerOf } from '../../server/access/gate.js';
import { checkedConfiguration, COMPILE_LIMITS, forCaller, streamedCompile } from '../../server/compile/service.js';
import type { AppDeps } from '../../server/deps.js';
import { clientMessage } from '../../server/problem.js';
import { challengeRefusal } from '../../server/challenge.js';
import type { CompilePool } from '../../node/compile-pool.js';
import { callApi } from '../api.js';
import { challengeSiteKey, type ConsoleContext, pageHandler, render } from '../frame.js';
import { CsrfForm, FormError } from '../layout.js';
import { consoleRoute } from '../pages.js';
import { CSRF_FIELD, csrfMatches, csrfToken, sessionToken } from '../session.js';
import { parseConfigTextApart } from '../../node/parse-apart.js';
import { BusyError } from '../../core/errors/index.js';
import { addEvent, addRemoved, RUN_LIMITS, type Run, type RunRefusal, Runs } from './runs.js';
import { Outcome, type ReportFilter, ReportTable, Step } from './views.js';

const ACCESS = { tier: 'free', scope: 'compile' } as const;
/** A configuration may be 1 MiB, as `POST /api/compile`'s body; the form's fields come on top. */
const FORM_LIMIT = COMPILE_LIMITS.bodyBytes + 64 * 1024;
const EXAMPLE = JSON.stringify(
  {
    name: 'My blocklist',
    sources: [{ source: 'https://example.org/hosts.txt', type: 'hosts' }],
    transformations: ['RemoveComments', 'Compress', 'Validate', 'Deduplicate', 'InsertFinalNewLine'],
  },
  null,
  2,
);
/** What a refused run start says, by its reason. */
const RUN_REFUSED: Record<RunRefusal, string> = {
  'owner-busy': 'Three of your compiles are still running; wait for one to end or cancel it.',
  'server-busy': 'The server is running as many console compiles as it takes; try again in a minute.',
  'format-compiled':
    'This configuration has been compiled in that format already; to compile it again, send the form again.',
};
const FILE_EXTENSION: Record<string, string> = { dnsmasq: 'conf', unbound: 'conf', rpz: 'zone' };

/**
 * Reads a configuration in the syntax given, or the one its text or file name shows; YAML and
 * TOML in a worker thread of their own, under a deadline (`parseConfigTextApart`).
 */
async function readConfiguration(text: string, syntax: string, caller: string, fileName?: string): Promise<unknown> {
  const who = { caller };
  if (syntax === 'json' || syntax === 'yaml' || syntax === 'toml') return parseConfigTextApart(text, syntax, who);
  if (fileName) return parseConfigTextApart(text, formatOf(fileName), who);
  if (text.trimStart().startsWith('{')) return parseConfigTextApart(text, 'json', who);
  // YAML reads most TOML as one string: a document that is not a mapping is tried as TOML.
  return parseConfigTextApart(text, 'auto', who);
}

/** The compile's runner: the server's pool (or, in-process, the core) with the removed lines reported to the run. */
function reportingRunner(deps: AppDeps, run: Run): Pick<CompilePool, 'compile'> {
  const onRemoved = (line: Parameters<typeof addRemoved>[1]) => addRemoved(run, line);
  return {
    compile: async (config, options) => {
      if (deps.pool)
        return deps.pool.compile(config, {
          ...options,
          onRemoved,
          // The run keeps RUN_LIMITS.removed lines: the worker sends no more, only their number.
          reportLimit: RUN_LIMITS.removed - run.removed.length,
          onRemovedDropped: (count) => {
            run.removedDropped += count;
          },
        });
      const result = await compile(config, { ...options, onRemoved });
      return { lines: result.lines, ruleCount: result.ruleCount, compiledAt: result.compiledAt };
    },
  };
}

const filterOf = (c: Context): ReportFilter => ({
  source: c.req.query('source') || undefined,
  step: c.req.query('step') || undefined,
  reason: c.req.query('reason') || undefined,
});

/** The compile page (`/console/compile`), its runs with their live progress, cancel, download and report. */
export function registerCompilePages(app: OpenAPIHono, ctx: ConsoleContext): void {
  const runs = new Runs(ctx.deps.now);
  const siteKey = challengeSiteKey(ctx.deps);
  const page = { title: 'Compile', path: '/console/compile', challenge: true };
  const runOf = (c: Context) => {
    const user = callerOf(c).user;
    return user ? runs.get(c.req.param('id') ?? '', user.id) : undefined;
  };
  const idParam = z.object({ id: z.string() });
  /** A form posted about one of the caller's runs: its fields and the run, or the refusal (403, 404). */
  const runForm = async (c: Context) => {
    const form = await c.req.parseBody();
    if (!csrfMatches(c, form[CSRF_FIELD])) return c.text('The form did not come from this site', 403);
    const run = runOf(c);
    if (!run) return c.text('No such compile', 404);
    return { form, run };
  };
  /** Starts a run of `checked` for `ownerId` (null past the per-user cap); its page shows the rest. */
  const launch = (
    ownerId: string,
    deps: AppDeps,
    checked: ReturnType<typeof checkedConfiguration>,
    from?: Run,
  ): Run | RunRefusal => {
    const run = runs.start(ownerId, checked.config.name, checked.config.format ?? 'adblock', checked.config, from);
    if (typeof run === 'string') return run;
    streamedCompile(
      deps,
      checked,
      (event, data) => addEvent(run, { event, data }),
      run.controller.signal,
      reportingRunner(ctx.deps, run),
    ).then(
      (body) => {
        run.result = {
          rules: body.rules,
          ruleCount: body.ruleCount,
          compiledAt: body.compiledAt,
          totalDurationMs: body.metrics.totalDurationMs,
        };
        runs.end(run, 'completed');
      },
      (err) => runs.end(run, run.controller.signal.aborted ? 'cancelled' : 'failed', clientMessage(err)),
    );
    return run;
  };

  const editor = async (c: Context, csrf: string, text: string, error: string | null, errors: string[] = []) => {
    const list = await callApi<{ ruleSets: { id: string; name: string }[] }>(c, ctx, '/api/rules?limit=100', {
      method: 'GET',
      token: sessionToken(c),
    });
    const ruleSets = list.ok ? list.body.ruleSets : [];
    return (
      <>
        {ruleSets.length > 0 ? (
          <form method="get" action="/console/compile" class="row">
            <label for="ruleSet">Start from a saved rule set</label>
            <select id="ruleSet" name="ruleSet">
              {ruleSets.map((r) => (
                <option value={r.id}>{r.name}</option>
              ))}
            </select>
            <button type="submit" class="secondary">
              Use
            </button>
          </form>
        ) : null}
        <FormError message={error} />
        {errors.length > 0 ? (
          <ul class="form-error" id="config-errors">
            {errors.map((e) => (
              <li>{e}</li>
            ))}
          </ul>
        ) : null}
        <CsrfForm action="/console/compile" csrf={csrf} multipart id="compile-form">
          <label for="config">Configuration (JSON, YAML or TOML)</label>
          <textarea id="config" name="config" spellcheck={false} rows={16}>
            {text}
          </textarea>
          <div class="filters">
            <div>
              <label for="syntax">Written in</label>
              <select id="syntax" name="syntax">
                <option value="auto">Detect</option>
                <option value="json">JSON</option>
                <option value="yaml">YAML</option>
                <option value="toml">TOML</option>
              </select>
            </div>
            <div>
              <label for="file">Or upload a file</label>
              <input id="file" name="file" type="file" accept=".json,.yaml,.yml,.toml,application/json,text/yaml" />
            </div>
            <div>
              <label for="format">Output format</label>
              <select id="format" name="format">
                <option value="">As the configuration says (adblock)</option>
                {OUTPUT_FORMATS.map((f) => (
                  <option value={f}>{f}</option>
                ))}
              </select>
            </div>
          </div>
          {siteKey ? <div class="cf-turnstile" data-sitekey={siteKey} /> : null}
          <button type="submit">Compile</button>
        </CsrfForm>
      </>
    );
  };

  consoleRoute(
    app,
    { method: 'get', path: '/console/compile', access: ACCESS, summary: 'Console: the compile form' },
    pageHandler(ctx, page, (c, f) => {
      const ruleSet = c.req.query('ruleSet');
      const text = ruleSet
        ? JSON.stringify(
            {
              name: 'From a saved rule set',
              sources: [{ source: `flc-ruleset:${ruleSet}` }],
              transformations: ['Deduplicate', 'InsertFinalNewLine'],
            },
            null,
            2,
          )
        : EXAMPLE;
      return editor(c, f.csrf, text, null);
    }),
  );

  consoleRoute(
    app,
    {
      method: 'post',
      path: '/console/compile',
      access: ACCESS,
      bodyLimit: FORM_LIMIT,
      summary: 'Console: start a compile (then its page shows it)',
    },
    async (c) => {
      const form = await c.req.parseBody();
      const field = (name: string) => (typeof form[name] === 'string' ? (form[name] as string) : '');
      const again = (status: 403 | 422 | 429, error: string | null, errors: string[] = []) =>
        render(c, ctx, page, (f) => editor(c, f.csrf, field('config'), error, errors), status);
      if (!csrfMatches(c, form[CSRF_FIELD]))
        return again(403, 'The form has expired or did not come from this site; send it again.');
      // The rule of `POST /api/compile` (a secret alone asks for a token too), the token from the widget.
      if (await challengeRefusal(ctx.deps.challenge, field('cf-turnstile-response'), c.req.raw.signal))
        return again(403, 'The bot challenge failed; try again.');
      const file = form.file instanceof File && form.file.size > 0 ? form.file : undefined;
      const caller = callerOf(c);
      const { deps, features } = forCaller(ctx.deps, caller);
      let checked: ReturnType<typeof checkedConfiguration>;
      try {
        const raw = await readConfiguration(
          file ? await file.text() : field('config'),
          field('syntax'),
          caller.user?.id ?? '',
          file?.name,
        );
        const format = field('format');
        const withFormat =
          format && raw && typeof raw === 'object' && !Array.isArray(raw) ? { ...(raw as object), format } : raw;
        checked = checkedConfiguration(withFormat, features);
      } catch (err) {
        if (err instanceof BusyError) return again(429, `${err.message}.`);
        if (err instanceof ConfigError)
          return again(
            422,
            'The configuration is not valid:',
            err.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)),
          );
        return again(422, clientMessage(err));
      }
      const run = launch(callerOf(c).user?.id ?? '', deps, checked);
      if (typeof run === 'string') return again(429, RUN_REFUSED[run]);
      return c.redirect(`/console/compile/runs/${run.id}`, 303);
    },
  );

  consoleRoute(
    app,
    {
      method: 'get',
      path: '/console/compile/runs/{id}',
      access: ACCESS,
      summary: "Console: a compile's progress, result and removal report",
      params: idParam,
    },
    pageHandler(ctx, { title: 'Compile', path: '/console/compile' }, (c, f) => {
      const run = runOf(c);
      if (!run)
        return (
          <p>
            This compile is unknown or no longer kept. <a href="/console/compile">Compile</a>
          </p>
        );
      const steps = run.events.map((event) => <Step event={event} />);
      const live =
        run.state === 'running'
          ? {
              'hx-ext': 'sse',
              'sse-connect': `/console/compile/runs/${run.id}/events?from=${run.events.length}`,
              'sse-close': 'end',
            }
          : {};
      return (
        <section {...live} aria-labelledby="progress-title">
          <p>
            <strong>{run.name}</strong>, {run.format} format
          </p>
          <h2 id="progress-title">Progress</h2>
          <ol class="steps" id="steps" sse-swap="step" hx-swap="beforeend" aria-live="polite">
            {steps}
          </ol>
          <Outcome run={run} csrf={f.csrf} filter={filterOf(c)} />
        </section>
      );
    }),
  );

  consoleRoute(
    app,
    {
      method: 'get',
      path: '/console/compile/runs/{id}/events',
      access: ACCESS,
      streamLimit: true,
      summary: "Console: a compile's progress as HTML fragments (server-sent events)",
      params: idParam,
    },
    async (c) => {
      const run = runOf(c);
      if (!run) return c.text('No such compile', 404);
      const csrf = csrfToken(c);
      let next = Math.max(0, Math.min(Number(c.req.query('from')) || 0, run.events.length));
      return streamSSE(c, async (sse) => {
        let changed = false;
        let wake: () => void = () => undefined;
        const listener = () => {
          changed = true;
          wake();
        };
        let gone = false;
        sse.onAbort(() => {
          gone = true;
          wake();
        });
        run.listeners.add(listener);
        try {
          while (!gone) {
            changed = false;
            while (next < run.events.length) {
              const html = String(await Promise.resolve(<Step event={run.events[next++]} />));
              if (html) await sse.writeSSE({ event: 'step', data: html });
            }
            if (run.state !== 'running') {
              const html = await Promise.resolve(<Outcome run={run} csrf={csrf} filter={{}} />);
              await sse.writeSSE({ event: 'end', data: String(html) });
              break;
            }
            if (!changed) await new Promise<void>((resolve) => (wake = resolve));
          }
        } finally {
          run.listeners.delete(listener);
        }
      });
    },
  );

  consoleRoute(
    app,
    {
      method: 'post',
      path: '/console/compile/runs/{id}/format',
      access: ACCESS,
      bodyLimit: 16 * 1024,
      summary: "Console: compile a run's configuration again in another output format",
      params: idParam,
    },
    async (c) => {
      const posted = await runForm(c);
      if (posted instanceof Response) return posted;
      const { form, run } = posted;
      const format = typeof form.format === 'string' ? form.format : '';
      if (!(OUTPUT_FORMATS as readonly string[]).includes(format))
        return c.text(`Unknown output format "${format}"; one of ${OUTPUT_FORMATS.join(', ')}`, 422);
      const caller = callerOf(c);
      const { deps, features } = forCaller(ctx.deps, caller);
      let checked: ReturnType<typeof checkedConfiguration>;
      try {
        checked = checkedConfiguration({ ...run.config, format }, features);
      } catch (err) {
        return c.text(clientMessage(err), 422);
      }
      const next = launch(caller.user?.id ?? '', deps, checked, run);
      if (typeof next === 'string') return c.text(RUN_REFUSED[next], next === 'format-compiled' ? 409 : 429);
      return c.redirect(`/console/compile/runs/${next.id}`, 303);
    },
  );

  consoleRoute(
    app,
    {
      method: 'post',
      path: '/console/compile/runs/{id}/cancel',
      access: ACCESS,
      bodyLimit: 16 * 1024,
      summary: 'Console: cancel a running compile',
      params: idParam,
    },
    async (c) => {
      const posted = await runForm(c);
      if (posted instanceof Response) return posted;
      const { run } = posted;
      run.controller.abort();
      return c.redirect(`/console/compile/runs/${run.id}`, 303);
    },
  );

  consoleRoute(
    app,
    {
      method: 'get',
      path: '/console/compile/runs/{id}/report',
      access: ACCESS,
      summary: "Console: a compile's removal report, filtered (an HTML fragment)",
      params: idParam,
    },
    async (c) => {
      const run = runOf(c);
      if (!run) return c.text('No such compile', 404);
      return c.html(<ReportTable run={run} filter={filterOf(c)} />);
    },
  );

  consoleRoute(
    app,
    {
      method: 'get',
      path: '/console/compile/runs/{id}/download',
      access: ACCESS,
      summary: 'Console: the compiled list as a file',
      params: idParam,
    },
    (c) => {
      const run = runOf(c);
      if (!run?.result) return c.text('No such compiled list', 404);
      const base = run.name.replaceAll(/[^\w.-]+/g, '-').replaceAll(/^-+|-+$/g, '') || 'list';
      return c.body(run.result.rules.join('\n'), 200, {
        'content-type': 'text/plain; charset=utf-8',
        'content-disposition': `attachment; filename="${base}.${FILE_EXTENSION[run.format] ?? 'txt'}"`,
      });
    },
  );
}
