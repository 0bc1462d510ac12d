import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { jsonBody, jsonResponse, route, serializedJson, okBody, ok } from '../routing/route.js';
import { streamSSE } from 'hono/streaming';
import type { Context } from 'hono';
import type { AppDeps } from '../deps.js';
import { clientMessage, problemResponse } from '../problem.js';
import { CompileCache, configurationKey } from '../compile-cache.js';
import {
  checkTierRequest,
  COMPILE_ROUTE,
  compileBatch,
  compileRequest,
  compiledList,
  batchRequest,
  compileFor,
  forCaller,
  resultBody,
  runCompile,
  streamedCompile,
  warned,
} from '../compile/service.js';
import { callerOf } from '../access/gate.js';
import { usesRuleSets } from '../rule-sets/rule-set-source.js';
import type { ValidatedConfig } from '../../core/config/parse.js';

const compileResponse = compiledList.extend({
  cached: z.boolean().optional(),
  deduplicated: z.boolean().optional(),
});
const failure = z.object({
  success: z.literal(false),
  error: z.string(),
  errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});

/** `POST /api/compile`, `/api/compile/batch` and `/api/compile/stream` (also without the `/api` prefix). */
export function registerCompileRoutes(app: OpenAPIHono, deps: AppDeps): void {
  const cache = new CompileCache<Cached>((entry) => stringBytes(entry.rules) + 256, deps.compileCacheBytes);

  app.openapi(
    route({
      ...COMPILE_ROUTE,
      path: '/api/compile/batch',
      badBody: 400,
      summary: 'Compile up to 10 configurations',
      request: { body: jsonBody(batchRequest) },
      responses: {
        200: jsonResponse(
          'One result per request, in order',
          okBody({ results: z.array(z.record(z.string(), z.unknown())) }),
        ),
        400: problemResponse('Malformed JSON, more than 10 requests, or duplicate ids'),
      },
    }),
    async (c) => {
      const { requests } = c.req.valid('json');
      const own = forCaller(deps, callerOf(c));
      checkTierRequest(own.features, { batch: requests.length });
      const results = await compileBatch(storingAsAsked(c, own.deps), requests, c.req.raw.signal, own.features);
      return ok(c, { results });
    },
  );

  app.openapi(
    route({
      ...COMPILE_ROUTE,
      path: '/api/compile',
      badBody: 'envelope',
      summary: 'Compile a filter list and answer with its rules',
      request: { body: jsonBody(compileRequest) },
      responses: {
        200: jsonResponse('The compiled list', compileResponse),
        422: jsonResponse('Invalid configuration, or a refused source (named)', failure),
        502: problemResponse('A source failed upstream'),
      },
    }),
    async (c) => {
      const caller = callerOf(c);
      const { deps: own, config, warnings } = compileFor(deps, caller, c.req.valid('json').configuration);
      const owner = caller.user?.id ?? null;
      // Saved rule sets read differently for each caller: their compiles are never shared across users.
      const key = usesRuleSets(config) ? `${configurationKey(config)}\u0000${owner}` : configurationKey(config);
      const bypass = /no-cache|no-store/i.test(c.req.header('cache-control') ?? '');
      if (!bypass) {
        const reader = own.makeReader();
        try {
          const hit = await cache.lookup(key, deps.now(), (location, o) => reader.read(location, undefined, o));
          if (hit) {
            c.header('x-cache', 'HIT');
            return serializedJson(c, answerText(hit, { cached: true, ...warned(warnings) }));
          }
        } finally {
          await reader.close();
        }
      }
      const { value, shared } = await cache.shared(key, async () => {
        // Not tied to this request's signal: another request may be waiting on it.
        // `no-store`: neither the answer nor the lists downloaded for it are kept.
        const outcome = await runCompile(storingAsAsked(c, own), config);
        const body = { success: true as const, ...resultBody(config, outcome) };
        if (!isNoStore(c)) cache.store(key, outcome.inputs, packed(body), deps.now());
        return body;
      });
      c.header('x-cache', 'MISS');
      if (shared) c.header('x-request-deduplication', 'HIT');
      return c.json({ ...value, ...(shared ? { deduplicated: true } : {}), ...warned(warnings) }, 200);
    },
  );

  const streamSpec = {
    ...COMPILE_ROUTE,
    streamLimit: true,
    badBody: 'envelope' as const,
    summary: 'Compile with progress as server-sent events',
    description:
      'Events: source:start, source:complete, source:error, transformation:start, transformation:complete, ' +
      'progress, log, diagnostic, then result and done (or error). Served at /api/compile/stream and /compile/stream.',
    request: { body: jsonBody(compileRequest) },
    responses: {
      200: { description: 'An event stream', content: { 'text/event-stream': { schema: z.string() } } },
      422: jsonResponse('Invalid configuration', failure),
    },
  };
  for (const path of ['/api/compile/stream', '/compile/stream']) {
    app.openapi(route({ ...streamSpec, path }), (c) => {
      const { deps: own, ...checked } = compileFor(deps, callerOf(c), c.req.valid('json').configuration);
      return streamCompile(c, storingAsAsked(c, own), checked);
    });
  }
}

type Answer = z.infer<typeof compileResponse>;
/**
 * A cached answer keeps its list as its JSON text, one string: the collector traces one object
 * instead of hundreds of thousands, so a full cache does not lengthen the main thread's pauses, and
 * a hit writes that text as it is rather than splitting and serializing the list again.
 */
type Cached = Omit<Answer, 'rules'> & { rules: string };
const packed = (body: Answer): Cached => ({ ...body, rules: JSON.stringify(body.rules) });
/** The answer's JSON: its other fields and `extra`, then its list (a key's place in an object means nothing). */
const answerText = ({ rules, ...rest }: Cached, extra: object) =>
  `${JSON.stringify({ ...rest, ...extra }).slice(0, -1)},"rules":${rules}}`;
/** The memory a string takes: one byte a character, two when any is past U+00FF. */
const stringBytes = (text: string) => (/[\u0100-\uffff]/.test(text) ? 2 : 1) * text.length;

const isNoStore = (c: Context) => /no-store/i.test(c.req.header('cache-control') ?? '');

/** `deps`, with readers that add nothing to the response cache when the request says `Cache-Control: no-store`. */
const storingAsAsked = (c: Context, deps: AppDeps): AppDeps =>
  isNoStore(c) ? { ...deps, makeReader: (hooks) => deps.makeReader({ ...hooks, store: false }) } : deps;

/** One compilation as an event stream; a client that goes away cancels it. */
function streamCompile(c: Context, deps: AppDeps, checked: ValidatedConfig): Response {
  return streamSSE(c, async (sse) => {
    const controller = new AbortController();
    sse.onAbort(() => controller.abort(new Error('client disconnected')));
    // Core events arrive synchronously; writes are queued so they go out in order.
    let queue = Promise.resolve();
    const send = (event: string, data: unknown) => {
      queue = queue.then(() => sse.writeSSE({ event, data: JSON.stringify(data) }));
    };
    try {
      const body = await streamedCompile(deps, checked, send, controller.signal);
      send('result', { rules: body.rules, ruleCount: body.ruleCount, metrics: body.metrics });
      send('done', {});
    } catch (e) {
      send('error', { error: clientMessage(e) });
    }
    await queue;
  });
}
