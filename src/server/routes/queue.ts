import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { jsonBody, jsonResponse, route, okBody, ok } from '../routing/route.js';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { randomUUID } from 'node:crypto';
import type { AppDeps } from '../deps.js';
import { problemResponse, refuse } from '../problem.js';
import { callerOf } from '../access/gate.js';
import {
  batchRequest,
  checkedConfiguration,
  checkTierRequest,
  COMPILE_ROUTE,
  compileRequest,
  forCaller,
  tierFeatures,
} from '../compile/service.js';
import { FINISHED_STATES, type Job, type JobKind } from '../store/jobs.js';
import type { JobRunner } from '../queue/runner.js';
import { workflowStepNames } from '../queue/workflow.js';
import { pageOf, pageQuery } from './paging.js';

const accepted = okBody({ requestId: z.string(), status: z.literal('queued') });
const jobView = okBody({
  requestId: z.string(),
  kind: z.string(),
  status: z.enum(['queued', 'running', 'completed', 'failed', 'cancelled']),
  attempts: z.number().int(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  durationMs: z.number().nullable(),
  result: z.unknown().optional(),
  error: z.string().optional(),
});
const workflowStep = z.object({
  index: z.number().int(),
  name: z.string(),
  state: z.enum(['pending', 'running', 'completed', 'failed']),
  // A step's attempts, timing and error are a job's.
  ...jobView.pick({ attempts: true, startedAt: true, finishedAt: true, durationMs: true, error: true }).shape,
});
/** What the routes of one of the caller's jobs share: their access rule, the job's id, and its 404. */
const ownJobRoute = {
  access: { tier: 'free', scope: 'compile' },
  badBody: 'envelope',
  request: { params: z.object({ id: z.string() }) },
} as const;
const noJob = problemResponse('No such job of the caller');

/** A job as the owner sees it; the result only once it is there. */
function viewOf(job: Job) {
  return {
    success: true as const,
    requestId: job.id,
    kind: job.kind,
    status: job.state,
    attempts: job.attempts,
    createdAt: job.createdAt,
    startedAt: job.startedAt,
    finishedAt: job.finishedAt,
    durationMs: job.durationMs,
    ...(job.result !== null ? { result: job.result } : {}),
    ...(job.error !== null ? { error: job.error } : {}),
  };
}

/** `POST /api/compile/async`, `/api/compile/batch/async`, the `/api/queue/*` and `/api/workflow/*` routes. */
export function registerQueueRoutes(app: OpenAPIHono, deps: AppDeps, queue: JobRunner): void {
  /**
   * The caller's own job of `kind` (any kind unless said), else 404: another owner's job is as
   * unknown as one that never was.
   */
  async function ownJob(c: Context, id: string, kind?: JobKind): Promise<Job> {
    const user = callerOf(c).user;
    const job = await deps.store.jobs.job(id);
    if (!job || !user || job.ownerId !== user.id || (kind && job.kind !== kind))
      refuse(404, `No such ${kind ?? 'job'}`);
    return job;
  }

  /** Writes a job for the caller and wakes the queue; the 202 answer's fields. */
  async function enqueueJob(c: Context, kind: JobKind, payload: unknown) {
    const { user, tier: callerTier } = callerOf(c);
    if (!user) refuse(401, 'Authentication required');
    // An owner's jobs run in the order they came, so when their Nth newest job has not finished, none
    // of the newer ones has: one row tells whether N are queued or running.
    const { tier, maxQueuedJobs } = tierFeatures(callerTier);
    const nth = (await deps.store.jobs.history(user.id, 1, maxQueuedJobs - 1)).jobs[0];
    if (nth && !FINISHED_STATES.includes(nth.state))
      refuse(429, `At most ${maxQueuedJobs} queued jobs for the ${tier} tier (maxQueuedJobs): wait for one to finish`);
    const id = randomUUID();
    const createdAt = new Date(deps.now()).toISOString();
    await queue.enqueue({ id, ownerId: user.id, kind, payload, createdAt });
    return { success: true as const, requestId: id, status: 'queued' as const };
  }

  /** Refuses what the caller's tier would refuse of the configuration's compile, then queues it as a `kind` job. */
  async function enqueueCompile(c: Context, kind: 'compile' | 'workflow', configuration: unknown) {
    const { features } = forCaller(deps, callerOf(c));
    checkTierRequest(features, { async: true });
    checkedConfiguration(configuration, features);
    return enqueueJob(c, kind, { configuration });
  }

  app.openapi(
    route({
      ...COMPILE_ROUTE,
      path: '/api/compile/async',
      access: { tier: 'pro', scope: 'compile' },
      badBody: 'envelope',
      summary: 'Queue a compile; its result is read from /api/queue/results/:id',
      request: { body: jsonBody(compileRequest) },
      responses: { 202: jsonResponse('Queued', accepted), 422: problemResponse('Invalid configuration') },
    }),
    async (c) => c.json(await enqueueCompile(c, 'compile', c.req.valid('json').configuration), 202),
  );

  app.openapi(
    route({
      ...COMPILE_ROUTE,
      path: '/api/compile/batch/async',
      access: { tier: 'pro', scope: 'compile' },
      badBody: 400,
      summary: 'Queue a batch of up to 10 compiles as one job',
      request: { body: jsonBody(batchRequest) },
      responses: {
        202: jsonResponse('Queued', accepted),
        400: problemResponse('Malformed JSON, more than 10 requests, or duplicate ids'),
      },
    }),
    async (c) => {
      const requests = c.req.valid('json').requests.map(({ id, configuration }) => ({ id, configuration }));
      checkTierRequest(forCaller(deps, callerOf(c)).features, { async: true, batch: requests.length });
      return c.json(await enqueueJob(c, 'batch', { requests }), 202);
    },
  );

  app.openapi(
    route({
      method: 'get',
      path: '/api/queue/results/{id}',
      ...ownJobRoute,
      summary: "A queued job's state, and its result once it has one",
      responses: {
        200: jsonResponse('The job', jobView),
        404: noJob,
      },
    }),
    async (c) => {
      const job = await ownJob(c, c.req.valid('param').id);
      return c.json(viewOf(job), 200);
    },
  );

  app.openapi(
    route({
      method: 'delete',
      path: '/api/queue/cancel/{id}',
      ...ownJobRoute,
      summary: 'Cancel a queued or running job',
      responses: {
        200: jsonResponse('Cancelled', jobView),
        404: noJob,
        409: problemResponse('The job has already finished'),
      },
    }),
    async (c) => {
      const job = await ownJob(c, c.req.valid('param').id);
      const cancelled = await deps.store.jobs.cancel(job.id, job.ownerId, new Date(deps.now()).toISOString());
      queue.abort(job.id);
      const now = (await deps.store.jobs.job(job.id)) ?? job;
      if (!cancelled) refuse(409, `The job has already finished (${now.state})`);
      return c.json(viewOf(now), 200);
    },
  );

  app.openapi(
    route({
      method: 'get',
      path: '/api/queue/stats',
      access: { tier: 'free', scope: 'compile' },
      summary: "The queue's counts and timings (all jobs kept, every owner)",
      responses: {
        200: jsonResponse(
          'Statistics',
          z.object({
            pending: z.number(),
            completed: z.number(),
            failed: z.number(),
            cancelled: z.number(),
            totalProcessingTime: z.number(),
            averageProcessingTime: z.number(),
            processingRate: z.number(),
            queueLag: z.number(),
          }),
        ),
      },
    }),
    async (c) => c.json(await deps.store.jobs.stats(deps.now()), 200),
  );

  app.openapi(
    route({
      method: 'get',
      path: '/api/queue/history',
      access: { tier: 'free', scope: 'compile' },
      badBody: 'envelope',
      summary: "The caller's jobs, newest first (an administrator's `all=true`: everyone's)",
      request: {
        query: pageQuery(100, 20).extend({ all: z.enum(['true', 'false']).optional() }),
      },
      responses: {
        200: jsonResponse(
          'A page of jobs (without their results)',
          pageOf('jobs', jobView.extend({ ownerId: z.string().optional() })),
        ),
      },
    }),
    async (c) => {
      const { limit, offset, all } = c.req.valid('query');
      const user = callerOf(c).user;
      if (!user) refuse(401, 'Authentication required');
      const everyone = all === 'true' && user.role === 'admin';
      const page = await deps.store.jobs.history(everyone ? null : user.id, limit, offset);
      const jobs = page.jobs.map((j) => ({ ...viewOf(j), ...(everyone ? { ownerId: j.ownerId } : {}) }));
      return ok(c, { jobs, total: page.total, limit, offset });
    },
  );

  app.openapi(
    route({
      method: 'get',
      path: '/api/queue/events/{id}',
      ...ownJobRoute,
      summary: "A job's progress as server-sent events (the events of /api/compile/stream)",
      description:
        'While the job runs in the process that answers: the compile events, then result and done (or error). ' +
        'Then, or for a job that runs elsewhere: a status event on each change of state, and end with the final one.',
      responses: {
        200: { description: 'An event stream', content: { 'text/event-stream': { schema: z.string() } } },
        404: noJob,
      },
    }),
    async (c) => {
      const job = await ownJob(c, c.req.valid('param').id);
      return watchJob(c, deps, queue, job);
    },
  );

  // A workflow is a compile as durable, resumable steps.
  app.openapi(
    route({
      ...COMPILE_ROUTE,
      path: '/api/workflow/compile',
      access: { tier: 'pro', scope: 'compile' },
      badBody: 'envelope',
      summary: 'Start a compile workflow (fetch each source, transform, assemble, store)',
      request: { body: jsonBody(compileRequest) },
      responses: {
        202: jsonResponse('Queued', accepted.extend({ workflowId: z.string() })),
        422: problemResponse('Invalid configuration'),
      },
    }),
    async (c) => {
      const queued = await enqueueCompile(c, 'workflow', c.req.valid('json').configuration);
      return c.json({ ...queued, workflowId: queued.requestId }, 202);
    },
  );

  app.openapi(
    route({
      method: 'get',
      path: '/api/workflow/{id}',
      ...ownJobRoute,
      access: { tier: 'pro', scope: 'compile' },
      summary: "A workflow's state, each step's state and timing, and its result once it has one",
      responses: {
        200: jsonResponse('The workflow', jobView.extend({ workflowId: z.string(), steps: z.array(workflowStep) })),
        404: problemResponse('No such workflow of the caller'),
      },
    }),
    async (c) => {
      const job = await ownJob(c, c.req.valid('param').id, 'workflow');
      const recorded = await deps.store.jobs.steps(job.id);
      const sources = (job.payload as { configuration: { sources: { source: string }[] } }).configuration.sources;
      const steps = workflowStepNames(sources).map((name, index) => {
        const s = recorded.find((r) => r.index === index);
        return {
          index,
          name,
          state: s?.state ?? ('pending' as const),
          attempts: s?.attempts ?? 0,
          startedAt: s?.startedAt ?? null,
          finishedAt: s?.finishedAt ?? null,
          durationMs: s?.durationMs ?? null,
          ...(s?.error ? { error: s.error } : {}),
        };
      });
      return c.json({ ...viewOf(job), workflowId: job.id, steps }, 200);
    },
  );
}

/** Streams a job's events until it ends: its own events while it runs here, its state always. */
function watchJob(c: Context, deps: AppDeps, queue: JobRunner, job: Job): Response {
  return streamSSE(c, async (sse) => {
    let sending = Promise.resolve();
    const send = (event: string, data: unknown) => {
      sending = sending.then(() => sse.writeSSE({ event, data: JSON.stringify(data) }));
    };
    const unsubscribe = queue.subscribe(job.id, (event, data) => {
      if (event !== 'finished') send(event, data);
    });
    let last = '';
    try {
      while (!sse.aborted) {
        const now = await deps.store.jobs.job(job.id);
        if (!now) break;
        if (now.state !== last) {
          last = now.state;
          send('status', { requestId: now.id, status: now.state, attempts: now.attempts });
        }
        if (FINISHED_STATES.includes(now.state)) break;
        await sse.sleep(250);
      }
    } finally {
      unsubscribe();
    }
    await sending;
  });
}
