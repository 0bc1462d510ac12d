import { OUTPUT_FORMATS } from '../../core/output/formats.js';
import type { RemovedLine } from '../../core/pipeline/report.js';
import { CsrfForm } from '../layout.js';
import type { Run, RunEvent } from './runs.js';

/** Rows of the report table shown at most (the count says how many matched). */
export const REPORT_ROWS = 500;

const ms = (n: unknown) => (typeof n === 'number' ? `${Math.round(n)} ms` : '');
type Data = Record<string, unknown>;
const scopeOf = (scope: unknown) => {
  const s = (scope ?? {}) as { kind?: string; index?: number };
  return s.kind === 'source' ? `source ${(s.index ?? 0) + 1}` : 'whole list';
};

/** One line of a run's progress for an event of `/api/compile/stream`; null for the events not shown. */
export function describeEvent({ event, data }: RunEvent): string | null {
  const d = (data ?? {}) as Data;
  switch (event) {
    case 'source:start':
      return `Source ${Number(d.index) + 1}: reading ${d.source}`;
    case 'source:complete':
      return `Source ${Number(d.index) + 1}: ${d.lineCount} lines in ${ms(d.durationMs)}`;
    case 'source:error':
      return `Source ${Number(d.index) + 1} failed${d.skipped ? ' (skipped)' : ''}: ${d.error}`;
    case 'transformation:complete':
      return `${d.name} (${scopeOf(d.scope)}): ${d.inputCount} → ${d.outputCount} lines in ${ms(d.durationMs)}`;
    case 'network':
      return `Download ${d.url}: HTTP ${d.statusCode}, ${d.responseSize ?? '?'} bytes in ${ms(d.durationMs)}`;
    case 'cache':
      return `Cache ${d.operation} (${d.key})`;
    case 'log':
      return `${String(d.level ?? 'info')}: ${d.message}`;
    case 'diagnostic':
      return `${String(d.severity ?? 'info')}: ${d.message}`;
    default:
      return null;
  }
}

/** A progress line as the list shows it (and as an SSE `step` event carries it). */
export function Step({ event }: { event: RunEvent }) {
  const text = describeEvent(event);
  return text === null ? null : <li class={`step step-${event.event.replace(':', '-')}`}>{text}</li>;
}

/** The report filters: each value present in the run's removed lines. */
export interface ReportFilter {
  source?: string;
  step?: string;
  reason?: string;
}

const sourceOf = (line: RemovedLine) => line.source ?? '(generated)';

/** The removed lines matching `filter`. */
export function filterReport(removed: readonly RemovedLine[], filter: ReportFilter): RemovedLine[] {
  return removed.filter(
    (l) =>
      (!filter.source || sourceOf(l) === filter.source) &&
      (!filter.step || l.transformation === filter.step) &&
      (!filter.reason || l.code === filter.reason),
  );
}

const distinct = (values: string[]) => [...new Set(values)].sort();

function Choice(props: { id: string; label: string; values: string[]; chosen?: string }) {
  return (
    <div>
      <label for={props.id}>{props.label}</label>
      <select id={props.id} name={props.id}>
        <option value="">All</option>
        {props.values.map((v) => (
          <option value={v} selected={v === props.chosen}>
            {v}
          </option>
        ))}
      </select>
    </div>
  );
}

/** The report table of the lines matching the filter (the htmx fragment of a filter change). */
export function ReportTable({ run, filter }: { run: Run; filter: ReportFilter }) {
  const rows = filterReport(run.removed, filter);
  return (
    <div id="report-table" class="table-wrap">
      <p class="muted" role="status">
        {rows.length} of {run.removed.length} removed lines
        {rows.length > REPORT_ROWS ? ` (the first ${REPORT_ROWS} shown)` : ''}
        {run.removedDropped > 0 ? `; ${run.removedDropped} more were removed than the report keeps` : ''}
      </p>
      <table>
        <caption class="muted">Removed rules: where each came from and why it went</caption>
        <thead>
          <tr>
            <th scope="col">Source</th>
            <th scope="col">Line</th>
            <th scope="col">Step</th>
            <th scope="col">Reason</th>
            <th scope="col">Rule</th>
          </tr>
        </thead>
        <tbody>
          {rows.slice(0, REPORT_ROWS).map((l) => (
            <tr>
              <td>{sourceOf(l)}</td>
              <td>{l.line ?? ''}</td>
              <td>{l.transformation}</td>
              <td>
                {l.code}: {l.reason}
              </td>
              <td>
                <code>{l.text}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The removal report: filters (a GET form, live with htmx) and the table. */
export function Report({ run, filter }: { run: Run; filter: ReportFilter }) {
  const base = `/console/compile/runs/${run.id}`;
  return (
    <section aria-labelledby="report-title">
      <h2 id="report-title">Removal report</h2>
      <form
        method="get"
        action={base}
        class="filters"
        hx-get={`${base}/report`}
        hx-target="#report-table"
        hx-swap="outerHTML"
        hx-trigger="change, submit"
      >
        <Choice id="source" label="Source" values={distinct(run.removed.map(sourceOf))} chosen={filter.source} />
        <Choice
          id="step"
          label="Step"
          values={distinct(run.removed.map((l) => l.transformation))}
          chosen={filter.step}
        />
        <Choice id="reason" label="Reason" values={distinct(run.removed.map((l) => l.code))} chosen={filter.reason} />
        <div>
          <button type="submit" class="secondary">
            Filter
          </button>
        </div>
      </form>
      <ReportTable run={run} filter={filter} />
    </section>
  );
}

/** What a run came to: running (with Cancel), its result and report, its error, or cancelled. */
export function Outcome({ run, csrf, filter }: { run: Run; csrf: string; filter: ReportFilter }) {
  const base = `/console/compile/runs/${run.id}`;
  // Each format once from one form: those its configuration has not been compiled in yet.
  const others = OUTPUT_FORMATS.filter((f) => !run.formats.has(f));
  if (run.state === 'running')
    return (
      <div id="outcome" sse-swap="end" hx-swap="outerHTML">
        <p role="status">
          Compiling… <a href={base}>Refresh</a>
        </p>
        <CsrfForm action={`${base}/cancel`} csrf={csrf}>
          <button type="submit" class="secondary" id="cancel">
            Cancel
          </button>
        </CsrfForm>
      </div>
    );
  return (
    <div id="outcome">
      {run.state === 'completed' && run.result ? (
        <>
          <p role="status" class="state state-completed" id="result">
            Done: {run.result.ruleCount} rules ({run.result.rules.length} lines, {run.format} format) in{' '}
            {run.result.totalDurationMs} ms.
          </p>
          <p>
            <a href={`${base}/download`} download>
              Download the list
            </a>{' '}
            · <a href="/console/compile">Compile again</a>
          </p>
          {others.length > 0 ? (
            <CsrfForm action={`${base}/format`} csrf={csrf} class="inline">
              <label for="other-format">Another output format</label>
              <select id="other-format" name="format">
                {others.map((f) => (
                  <option value={f}>{f}</option>
                ))}
              </select>
              <button type="submit" class="secondary" id="compile-format">
                Compile in this format
              </button>
            </CsrfForm>
          ) : null}
          <Report run={run} filter={filter} />
        </>
      ) : run.state === 'cancelled' ? (
        <p role="status" class="state state-failed" id="result">
          Cancelled. <a href="/console/compile">Compile again</a>
        </p>
      ) : (
        <p role="alert" class="state state-failed" id="result">
          Failed: {run.error ?? 'unknown error'}. <a href="/console/compile">Compile again</a>
        </p>
      )}
    </div>
  );
}
