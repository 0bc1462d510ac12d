import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { route } from '../routing/route.js';
import { streamSSE } from 'hono/streaming';
import type { Context } from 'hono';
import { randomUUID } from 'node:crypto';
import { sha256 } from '../hash.js';
import { compile, type CompileResult } from '../../core/pipeline/compile.js';
import { validateConfiguration } from '../../core/config/parse.js';
import type { Configuration } from '../../core/config/schema.js';
import type { CompileEvent } from '../../core/pipeline/events.js';
import { ConfigError } from '../../core/errors/index.js';
import type { AppDeps } from '../deps.js';
import { problemResponse } from '../problem.js';
import { CompileCache, configurationKey, recordingReader } from '../compile-cache.js';
import type { CompilePool } from '../../node/compile-pool.js';
import { callerOf } from '../access/gate.js';
import { depsForCaller, usesRuleSets } from '../rule-sets/rule-set-source.js';

/** The configuration defaults' limits (the specification's Limits table). */
export const COMPILE_LIMITS = {
  maxSources: 20,
  maxExclusions: 1000,
  bodyBytes: 1024 * 1024,
  batch: 10,
  streamsPerMinute: 10,
} as const;

export const compileRequest = z.object({ configuration: z.unknown(), challengeToken: z.string().optional() });
const compileResponse = z.object({
  success: z.literal(true),
  rules: z.array(z.string()),
  ruleCount: z.number().int(),
  compiledAt: z.string(),
  metrics: z.object({ totalDurationMs: z.number(), sourceCount: z.number().int(), ruleCount: z.number().int() }),
  cached: z.boolean().optional(),
  deduplicated: z.boolean().optional(),
});
const failure = z.object({
  success: z.literal(false),
  error: z.string(),
  errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});

export const batchRequest = z.object({
  requests: z
    .array(z.object({ id: z.string().min(1), configuration: z.unknown(), benchmark: z.boolean().optional() }))
    .min(1, 'requests must not be empty')
    .max(10, 'at most 10 requests in a batch')
    .refine((r) => new Set(r.map((x) => x.id)).size === r.length, 'request ids must be unique'),
});

/** Validates the configuration and applies the server's limits on it. */
export function checkedConfiguration(raw: unknown): Configuration {
  const { config } = validateConfiguration(raw);
  const issues = [];
  if (config.sources.length > COMPILE_LIMITS.maxSources) {
    issues.push({ path: 'sources', message: `at most ${COMPILE_LIMITS.maxSources} sources` });
  }
  const patterns = [config, ...config.sources].reduce(
    (n, s) => n + (s.exclusions?.length ?? 0) + (s.inclusions?.length ?? 0),
    0,
  );
  if (patterns > COMPILE_LIMITS.maxExclusions) {
    issues.push({
      path: 'exclusions',
      message: `at most ${COMPILE_LIMITS.maxExclusions} exclusion and inclusion patterns in all`,
    });
  }
  if (issues.length > 0) throw new ConfigError(issues);
  return config;
}

/** A URL without credentials, query or fragment, as network events show it. */
function sanitizeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '[invalid url]';
  }
}

export async function runCompile(
  deps: AppDeps,
  config: Configuration,
  onEvent?: (e: CompileEvent) => void,
  signal?: AbortSignal,
  onNetwork?: (event: 'network' | 'metric' | 'cache', data: object) => void,
  /** Where the compile runs: the server's worker pool unless another (a container) is given. */
  runner: Pick<CompilePool, 'compile'> | undefined = deps.pool,
) {
  const base = deps.makeReader({
    onResponse: onNetwork
      ? (r) => {
          const url = sanitizeUrl(r.url);
          onNetwork('network', {
            method: 'GET',
            url,
            statusCode: r.status,
            durationMs: r.durationMs,
            ...(r.bytes !== undefined ? { responseSize: r.bytes } : {}),
          });
          if (r.bytes && r.durationMs > 0) {
            onNetwork('metric', {
              metric: 'download speed',
              value: Math.round((r.bytes * 1000) / r.durationMs),
              unit: 'bytes/s',
              dimensions: { url },
            });
          }
        }
      : undefined,
    onCache: onNetwork
      ? (r) => {
          const key = sha256(r.url).slice(0, 16);
          onNetwork('cache', {
            eventId: randomUUID(),
            category: 'cache',
            operation: r.operation,
            key,
            ...(r.size !== undefined ? { size: r.size } : {}),
          });
        }
      : undefined,
  });
  const { reader, read } = recordingReader(base);
  const started = performance.now();
  try {
    const options = { reader, compiler: `flc v${deps.version}`, now: () => new Date(deps.now()), onEvent, signal };
    // In the server's worker pool, with its deadline; in-process only when the app is built without one.
    const result = runner ? await runner.compile(config, options) : await compile(config, options);
    return { result, totalDurationMs: Math.round(performance.now() - started), inputs: read };
  } finally {
    await base.close();
  }
}

export function resultBody(
  config: Configuration,
  {
    result,
    totalDurationMs,
  }: { result: Pick<CompileResult, 'lines' | 'ruleCount' | 'compiledAt'>; totalDurationMs: number },
) {
  return {
    rules: result.lines,
    ruleCount: result.ruleCount,
    compiledAt: result.compiledAt.toISOString(),
    metrics: { totalDurationMs, sourceCount: config.sources.length, ruleCount: result.ruleCount },
  };
}

/**
 * A batch's compiles one after another; each request succeeds or fails on its own. A cancelled
 * batch stops at once rather than failing its remaining requests one by one.
 */
export async function compileBatch(
  deps: AppDeps,
  requests: { id: string; configuration: unknown }[],
  signal?: AbortSignal,
) {
  const results = [];
  for (const request of requests) {
    try {
      const config = checkedConfiguration(request.configuration);
      const body = resultBody(config, await runCompile(deps, config, undefined, signal));
      results.push({
        id: request.id,
        success: true,
        rules: body.rules,
        ruleCount: body.ruleCount,
        compiledAt: body.compiledAt,
      });
    } catch (e) {
      if (signal?.aborted) throw e;
      results.push({ id: request.id, success: false, error: (e as Error).message });
    }
  }
  return results;
}

/** An SSE payload for a core event; diagnostics get the specification's enriched shape. */
export function ssePayload(e: CompileEvent, now: number): unknown {
  if (e.type !== 'diagnostic') {
    const { type: _type, ...rest } = e;
    return rest;
  }
  const d = e.diagnostic;
  return {
    eventId: randomUUID(),
    timestamp: new Date(now).toISOString(),
    category: d.code === 'source-skipped' ? 'download' : 'compilation',
    severity: d.severity === 'warning' ? 'warn' : d.severity,
    message: d.message,
    metadata: { code: d.code, ...(d.source ? { source: d.source } : {}) },
  };
}

/** `POST /api/compile`, `/api/compile/batch` and `/api/compile/stream` (also without the `/api` prefix). */
export function registerCompileRoutes(app: OpenAPIHono, deps: AppDeps): void {
  const cache = new CompileCache<z.infer<typeof compileResponse>>();

  app.openapi(
    route({
      method: 'post',
      path: '/api/compile/batch',
      access: { tier: 'free', scope: 'compile' },
      bodyLimit: COMPILE_LIMITS.bodyBytes,
      challenge: true,
      badBody: 400,
      summary: 'Compile up to 10 configurations',
      request: { body: { required: true, content: { 'application/json': { schema: batchRequest } } } },
      responses: {
        200: {
          description: 'One result per request, in order',
          content: {
            'application/json': {
              schema: z.object({ success: z.literal(true), results: z.array(z.record(z.string(), z.unknown())) }),
            },
          },
        },
        400: problemResponse('Malformed JSON, more than 10 requests, or duplicate ids'),
      },
    }),
    async (c) => {
      const own = depsForCaller(deps, callerOf(c).user?.id ?? null);
      const results = await compileBatch(own, c.req.valid('json').requests, c.req.raw.signal);
      return c.json({ success: true as const, results }, 200);
    },
  );

  app.openapi(
    route({
      method: 'post',
      path: '/api/compile',
      access: { tier: 'free', scope: 'compile' },
      bodyLimit: COMPILE_LIMITS.bodyBytes,
      challenge: true,
      badBody: 'envelope',
      summary: 'Compile a filter list and answer with its rules',
      request: { body: { required: true, content: { 'application/json': { schema: compileRequest } } } },
      responses: {
        200: { description: 'The compiled list', content: { 'application/json': { schema: compileResponse } } },
        422: {
          description: 'Invalid configuration, or a refused source (named)',
          content: { 'application/json': { schema: failure } },
        },
        502: problemResponse('A source failed upstream'),
      },
    }),
    async (c) => {
      const config = checkedConfiguration(c.req.valid('json').configuration);
      const owner = callerOf(c).user?.id ?? null;
      const own = depsForCaller(deps, owner);
      // Saved rule sets read differently for each caller: their compiles are never shared across users.
      const key = usesRuleSets(config) ? `${configurationKey(config)}\u0000${owner}` : configurationKey(config);
      const bypass = /no-cache|no-store/i.test(c.req.header('cache-control') ?? '');
      if (!bypass) {
        const reader = own.makeReader();
        try {
          const hit = await cache.lookup(key, deps.now(), (location) => reader.read(location));
          if (hit) {
            c.header('x-cache', 'HIT');
            return c.json({ ...hit, cached: true }, 200);
          }
        } finally {
          await reader.close();
        }
      }
      const { value, shared } = await cache.shared(key, async () => {
        // Not tied to this request's signal: another request may be waiting on it.
        const outcome = await runCompile(own, config);
        const body = { success: true as const, ...resultBody(config, outcome) };
        cache.store(key, outcome.inputs, body, deps.now());
        return body;
      });
      c.header('x-cache', 'MISS');
      if (shared) {
        c.header('x-request-deduplication', 'HIT');
        return c.json({ ...value, deduplicated: true }, 200);
      }
      return c.json(value, 200);
    },
  );

  const streamSpec = {
    method: 'post' as const,
    access: { tier: 'free', scope: 'compile' } as const,
    bodyLimit: COMPILE_LIMITS.bodyBytes,
    streamLimit: true,
    challenge: true,
    badBody: 'envelope' as const,
    summary: 'Compile with progress as server-sent events',
    description:
      'Events: source:start, source:complete, source:error, transformation:start, transformation:complete, ' +
      'progress, log, diagnostic, then result and done (or error). Served at /api/compile/stream and /compile/stream.',
    request: { body: { required: true, content: { 'application/json': { schema: compileRequest } } } },
    responses: {
      200: { description: 'An event stream', content: { 'text/event-stream': { schema: z.string() } } },
      422: { description: 'Invalid configuration', content: { 'application/json': { schema: failure } } },
    },
  };
  for (const path of ['/api/compile/stream', '/compile/stream']) {
    app.openapi(route({ ...streamSpec, path }), (c) =>
      streamCompile(c, depsForCaller(deps, callerOf(c).user?.id ?? null), c.req.valid('json').configuration),
    );
  }
}

/** One compilation as an event stream; a client that goes away cancels it. */
function streamCompile(c: Context, deps: AppDeps, rawConfiguration: unknown): Response {
  const config = checkedConfiguration(rawConfiguration);
  return streamSSE(c, async (sse) => {
    const controller = new AbortController();
    sse.onAbort(() => controller.abort(new Error('client disconnected')));
    // Core events arrive synchronously; writes are queued so they go out in order.
    let queue = Promise.resolve();
    const send = (event: string, data: unknown) => {
      queue = queue.then(() => sse.writeSSE({ event, data: JSON.stringify(data) }));
    };
    try {
      const outcome = await runCompile(
        deps,
        config,
        (e) => send(e.type, ssePayload(e, deps.now())),
        controller.signal,
        send,
      );
      const body = resultBody(config, outcome);
      send('result', { rules: body.rules, ruleCount: body.ruleCount, metrics: body.metrics });
      send('done', {});
    } catch (e) {
      send('error', { error: (e as Error).message });
    }
    await queue;
  });
}
