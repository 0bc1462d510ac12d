import { callerOf } from '../access/gate.js';
import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { route, jsonBody, jsonResponse, okBody, ok } from '../routing/route.js';
import type { AppDeps } from '../deps.js';
import { problemResponse, refuse } from '../problem.js';
import { COMPILE_ROUTE, compileFor, streamedCompile, compiledList, compileRequest } from '../compile/service.js';
import { type ContainerCompiler, ContainersBusyError } from '../../node/container-compiler.js';

const limits = z.object({ memoryMb: z.number(), timeoutMs: z.number(), maxConcurrent: z.number() });

/** `POST /api/compile/container` and `GET /api/container/status`. */
export function registerContainerRoutes(app: OpenAPIHono, deps: AppDeps, container: ContainerCompiler): void {
  app.openapi(
    route({
      ...COMPILE_ROUTE,
      path: '/api/compile/container',
      badBody: 'envelope',
      summary: 'Compile in a separate process with a memory and a time limit',
      request: { body: jsonBody(compileRequest) },
      responses: {
        200: jsonResponse(
          'The compiled list, as POST /api/compile answers it, with the limits it ran under',
          compiledList.extend({ container: limits }),
        ),
        422: problemResponse('Invalid configuration, a refused source, or a limit exceeded (named)'),
        503: problemResponse('Every container is in use'),
      },
    }),
    async (c) => {
      const { deps: own, ...checked } = compileFor(deps, callerOf(c), c.req.valid('json').configuration);
      try {
        const body = await streamedCompile(own, checked, undefined, c.req.raw.signal, container);
        return ok(c, { ...body, container: container.options });
      } catch (e) {
        if (!(e instanceof ContainersBusyError)) throw e;
        c.header('retry-after', '5');
        refuse(503, e.message);
      }
    },
  );

  app.openapi(
    route({
      method: 'get',
      path: '/api/container/status',
      access: 'public',
      summary: 'Whether container compiles (a separate process per compile) are available, and their limits',
      responses: {
        200: jsonResponse(
          'Status',
          okBody({
            status: z.string(),
            containerized: z.boolean(),
            runtime: z.string(),
            uptimeSeconds: z.number(),
            memoryRssBytes: z.number(),
            available: z.boolean(),
            isolation: z.literal('process'),
            limits,
            running: z.number().int(),
          }),
        ),
      },
    }),
    async (c) =>
      ok(c, {
        status: 'running',
        // Compiles are isolated in processes, not in a container runtime such as Docker.
        containerized: false,
        runtime: `node ${process.version}`,
        uptimeSeconds: Math.round((deps.now() - deps.startedAt) / 1000),
        memoryRssBytes: process.memoryUsage.rss(),
        available: await container.available(),
        isolation: 'process' as const,
        limits: container.options,
        running: container.active,
      }),
  );
}
