import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { route, jsonBody, jsonResponse } from '../routing/route.js';
import type { AppDeps } from '../deps.js';
import { problemResponse } from '../problem.js';
import { COMPILE_LIMITS, compileRequest } from '../compile/service.js';
import { accepted, enqueueCompile, jobView, ownJob, viewOf } from './queue.js';
import type { JobRunner } from '../queue/runner.js';
import { workflowStepNames } from '../queue/workflow.js';

const step = z.object({
  index: z.number().int(),
  name: z.string(),
  state: z.enum(['pending', 'running', 'completed', 'failed']),
  // A step's attempts, timing and error are a job's.
  ...jobView.pick({ attempts: true, startedAt: true, finishedAt: true, durationMs: true, error: true }).shape,
});

/** `POST /api/workflow/compile` and `GET /api/workflow/:id`: a compile as durable, resumable steps. */
export function registerWorkflowRoutes(app: OpenAPIHono, deps: AppDeps, queue: JobRunner): void {
  app.openapi(
    route({
      method: 'post',
      path: '/api/workflow/compile',
      access: { tier: 'pro', scope: 'compile' },
      bodyLimit: COMPILE_LIMITS.bodyBytes,
      badBody: 'envelope',
      summary: 'Start a compile workflow (fetch each source, transform, assemble, store)',
      request: { body: jsonBody(compileRequest) },
      responses: {
        202: jsonResponse('Queued', accepted.extend({ workflowId: z.string() })),
        422: problemResponse('Invalid configuration'),
      },
    }),
    async (c) => {
      const accepted = await enqueueCompile(c, deps, queue, 'workflow', c.req.valid('json').configuration);
      return c.json({ ...accepted, workflowId: accepted.requestId }, 202);
    },
  );

  app.openapi(
    route({
      method: 'get',
      path: '/api/workflow/{id}',
      access: { tier: 'pro', scope: 'compile' },
      badBody: 'envelope',
      summary: "A workflow's state, each step's state and timing, and its result once it has one",
      request: { params: z.object({ id: z.string() }) },
      responses: {
        200: jsonResponse('The workflow', jobView.extend({ workflowId: z.string(), steps: z.array(step) })),
        404: problemResponse('No such workflow of the caller'),
      },
    }),
    async (c) => {
      const job = await ownJob(deps, c, c.req.valid('param').id, 'workflow');
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
