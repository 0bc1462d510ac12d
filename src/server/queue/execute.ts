import type { AppDeps } from '../deps.js';
import type { Job } from '../store/jobs.js';
import { checkedConfiguration, compileBatch, streamedCompile, tierFeatures } from '../compile/service.js';
import { clientMessage } from '../problem.js';
import { FlcError } from '../../core/errors/index.js';
import type { JobEmit } from './runner.js';
import { runWorkflow } from './workflow.js';
import { depsForCaller } from '../rule-sets/rule-set-source.js';

/** What a compile job carries: the configuration it was accepted with. */
export interface CompilePayload {
  configuration: unknown;
}

/** What a batch job carries: the batch request's items. */
export interface BatchPayload {
  requests: { id: string; configuration: unknown }[];
}

/**
 * Runs one queued job through the server's one compile path (`runCompile`, in the worker pool),
 * with its owner's reader, sending the events `/api/compile/stream` sends. The answer is the job's stored result.
 */
export function jobExecutor(server: AppDeps) {
  return async (job: Job, signal: AbortSignal, emit: JobEmit): Promise<unknown> => {
    // The job's owner's reader: their saved rule sets are what its `flc-ruleset:` sources read.
    const deps = depsForCaller(server, job.ownerId);
    // And their tier's features now (a job accepted before a tier changed runs under the change).
    const owner = await deps.store.userById(job.ownerId);
    const tier = (await deps.store.tiers()).find((t) => t.name === owner?.tier);
    const features = tierFeatures(tier ?? { name: owner?.tier ?? 'free', features: {} });
    if (job.kind === 'workflow') return runWorkflow(deps, job, signal, emit, features);
    if (job.kind === 'batch') {
      const results = await compileBatch(deps, (job.payload as BatchPayload).requests, signal, features);
      emit('result', { results });
      emit('done', {});
      return { success: true, results };
    }
    const checked = checkedConfiguration((job.payload as CompilePayload).configuration, features);
    try {
      const body = await streamedCompile(deps, checked, emit, signal);
      emit('result', { rules: body.rules, ruleCount: body.ruleCount, metrics: body.metrics });
      emit('done', {});
      return { success: true, ...body };
    } catch (e) {
      emit('error', { error: clientMessage(e) });
      // The stored error is what the owner reads: an internal one keeps its message in the log only.
      throw e instanceof FlcError ? e : new Error(clientMessage(e), { cause: e });
    }
  };
}
