import type { AppDeps, ReaderFactory } from '../deps.js';
import type { Job, WorkflowStep } from '../store/jobs.js';
import { checkedConfiguration, resultBody, streamedCompile, type TierFeatures, warned } from '../compile/service.js';
import type { CompilePayload } from './execute.js';
import type { JobEmit } from './runner.js';
import { clientMessage } from '../problem.js';

/** The steps of a workflow over `n` sources, in order. */
export const workflowStepNames = (sources: { source: string }[]) => [
  ...sources.map((s) => `fetch ${s.source}`),
  'transform',
  'assemble',
  'store',
];

/** A reader that answers the locations a workflow has already fetched from its steps' outputs. */
function prefetched(texts: Map<string, string>, make: ReaderFactory): ReaderFactory {
  return (hooks) => {
    const inner = make(hooks);
    return {
      resolve: (ref, base) => inner.resolve(ref, base),
      read: (location, signal, options) => {
        const text = texts.get(location);
        return text === undefined ? inner.read(location, signal, options) : Promise.resolve(text);
      },
      close: () => inner.close(),
    };
  };
}

/**
 * A compile as durable steps: fetch each source, transform (the compile, through `runCompile`
 * over the fetched texts), assemble the answer, store it. Each step's state, timing and output are
 * recorded as it ends; a workflow taken again after a crash skips the steps already completed
 * and goes on from the first that is not. The `store` step hands the result to the queue, which
 * writes it with the job's final state in one statement.
 */
export async function runWorkflow(
  deps: AppDeps,
  job: Job,
  signal: AbortSignal,
  emit: JobEmit,
  features: TierFeatures,
): Promise<unknown> {
  const checked = checkedConfiguration((job.payload as CompilePayload).configuration, features);
  const { config } = checked;
  const names = workflowStepNames(config.sources);
  const done = new Map<number, WorkflowStep>();
  for (const s of await deps.store.jobs.steps(job.id)) if (s.state === 'completed') done.set(s.index, s);
  const iso = () => new Date(deps.now()).toISOString();

  const step = async <T>(index: number, work: () => Promise<T>): Promise<T> => {
    const name = names[index];
    const prior = done.get(index);
    if (prior) {
      emit('workflow:step', { index, name, state: 'skipped' });
      return prior.output as T;
    }
    await deps.store.jobs.startStep(job.id, index, name, iso());
    emit('workflow:step', { index, name, state: 'running' });
    const started = performance.now();
    const end = async (outcome: { state: 'completed'; output: T } | { state: 'failed'; error: string }) => {
      const durationMs = Math.round(performance.now() - started);
      await deps.store.jobs.endStep(job.id, index, { ...outcome, at: iso(), durationMs });
      return durationMs;
    };
    try {
      const output = await work();
      emit('workflow:step', { index, name, state: 'completed', durationMs: await end({ state: 'completed', output }) });
      return output;
    } catch (e) {
      if (!signal.aborted) {
        const error = clientMessage(e);
        await end({ state: 'failed', error });
        emit('workflow:step', { index, name, state: 'failed', error });
      }
      throw e;
    }
  };

  const texts = new Map<string, string>();
  const reader = deps.makeReader();
  try {
    for (const [i, s] of config.sources.entries()) {
      const location = reader.resolve(s.source, null);
      texts.set(location, await step(i, () => reader.read(location, signal)));
    }
  } finally {
    await reader.close();
  }
  const n = config.sources.length;
  const compiled = await step(n, async () => {
    const body = await streamedCompile(
      { ...deps, makeReader: prefetched(texts, deps.makeReader) },
      checked,
      emit,
      signal,
    );
    return {
      lines: body.rules,
      ruleCount: body.ruleCount,
      compiledAt: body.compiledAt,
      totalDurationMs: body.metrics.totalDurationMs,
    };
  });
  const body = await step(n + 1, async () => ({
    success: true as const,
    ...resultBody(config, {
      result: { lines: compiled.lines, ruleCount: compiled.ruleCount, compiledAt: new Date(compiled.compiledAt) },
      totalDurationMs: compiled.totalDurationMs,
    }),
    ...warned(checked.warnings),
  }));
  await deps.store.jobs.startStep(job.id, n + 2, names[n + 2], iso());
  emit('result', { rules: body.rules, ruleCount: body.ruleCount, metrics: body.metrics });
  emit('done', {});
  return body;
}
