import { z } from '@hono/zod-openapi';
import { okBody } from '../routing/route.js';
import { randomUUID } from 'node:crypto';
import { sha256 } from '../hash.js';
import { compile, type CompileResult } from '../../core/pipeline/compile.js';
import { type ValidatedConfig, validateConfiguration } from '../../core/config/parse.js';
import type { Configuration } from '../../core/config/schema.js';
import type { CompileEvent } from '../../core/pipeline/events.js';
import { ConfigError, ForbiddenError, InputError } from '../../core/errors/index.js';
import type { AppDeps, ReaderHooks } from '../deps.js';
import type { Tier } from '../store/accounts.js';
import { recordingReader } from '../compile-cache.js';
import type { CompilePool, PoolShare } from '../../node/compile-pool.js';
import { clientMessage } from '../problem.js';
import { depsForCaller } from '../rule-sets/rule-set-source.js';
import { explain, explainCollector, explainDomain, type Explanation } from '../../core/explain/explain.js';

/**
 * The server's one compile service: what every compile entry point (REST, batch, server-sent
 * events, WebSocket, tRPC, the queue, workflows, containers) validates, limits and runs, so that
 * every source kind, limit, tier feature, event and error behaves the same on each.
 */

/** The configuration defaults' limits (the specification's Limits table). */
export const COMPILE_LIMITS = {
  maxSources: 20,
  maxExclusions: 1000,
  bodyBytes: 1024 * 1024,
  batch: 10,
  streamsPerMinute: 10,
} as const;

/** What the routes that compile or check a configuration share: a `compile`-scope POST, its body limit, a challenge. */
export const COMPILE_ROUTE = {
  method: 'post',
  access: { tier: 'free', scope: 'compile' },
  bodyLimit: COMPILE_LIMITS.bodyBytes,
  challenge: true,
} as const;

export const compileRequest = z.object({ configuration: z.unknown(), challengeToken: z.string().optional() });
export const batchRequest = z.object({
  requests: z
    .array(z.object({ id: z.string().min(1), configuration: z.unknown(), benchmark: z.boolean().optional() }))
    .min(1, 'requests must not be empty')
    .max(10, 'at most 10 requests in a batch')
    .refine((r) => new Set(r.map((x) => x.id)).size === r.length, 'request ids must be unique'),
});

/** A caller's share of the server where their tier's `features` do not say (docs/server.md, "Fair shares"). */
export const SHARE_DEFAULTS = { maxConcurrentCompiles: 3, maxQueuedJobs: 20 } as const;

/** A tier's compile features: its `features` column, the configuration defaults where it says nothing. */
export function tierFeatures(tier: Pick<Tier, 'name' | 'features'>) {
  const count = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 0;
  const n = (v: unknown, fallback: number) => (count(v) ? Math.min(v as number, fallback) : fallback);
  // Shares may be raised above the defaults (a paying tier), the configuration limits may not.
  const share = (v: unknown, fallback: number) => (count(v) && (v as number) > 0 ? (v as number) : fallback);
  return {
    tier: tier.name,
    maxSources: n(tier.features.maxSources, COMPILE_LIMITS.maxSources),
    maxBatch: n(tier.features.maxBatch, COMPILE_LIMITS.batch),
    asyncCompile: tier.features.asyncCompile !== false,
    maxConcurrentCompiles: share(tier.features.maxConcurrentCompiles, SHARE_DEFAULTS.maxConcurrentCompiles),
    maxQueuedJobs: share(tier.features.maxQueuedJobs, SHARE_DEFAULTS.maxQueuedJobs),
  };
}
export type TierFeatures = ReturnType<typeof tierFeatures>;

/**
 * `flc compile`'s publishing keys, refused rather than ignored: they act on files beside the output
 * and on the on-disk HTTP cache of the machine that publishes, which a server answering the list
 * in its response has not.
 */
function publishingRefusals(config: Configuration) {
  const refused = [];
  const cli = 'is an option of flc compile, which publishes the list; flc serve answers it';
  if (config.publish !== undefined) refused.push({ path: 'publish', message: `${cli} (use flc compile in CI)` });
  if (config.onSourceError === 'stale') {
    refused.push({ path: 'onSourceError', message: `"stale" ${cli} (here: "fail" or "skip")` });
  }
  if (config.maxStale !== undefined) refused.push({ path: 'maxStale', message: `${cli} with onSourceError "stale"` });
  return refused;
}

/** Validates the configuration and applies the server's limits and the caller's tier features on it. */
export function checkedConfiguration(raw: unknown, features: TierFeatures): ValidatedConfig {
  const { config, warnings } = validateConfiguration(raw);
  const issues = [];
  if (config.sources.length > features.maxSources) {
    const which = features.maxSources < COMPILE_LIMITS.maxSources ? ` for the ${features.tier} tier` : '';
    issues.push({ path: 'sources', message: `at most ${features.maxSources} sources${which}` });
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
  issues.push(...publishingRefusals(config));
  if (issues.length > 0) throw new ConfigError(issues);
  return { config, warnings };
}

/** Who asks for a compile: their account (none: anonymous) and their tier. */
type CompileCaller = { user: { id: string } | null; tier: Pick<Tier, 'name' | 'features'> };

/** The compile side of a request's caller: their reader (it reads their saved rule sets) and their tier's features. */
export function forCaller(deps: AppDeps, caller: CompileCaller) {
  const own = depsForCaller(deps, caller.user?.id ?? null);
  return { deps: { ...own, compileShare: poolShare(caller) }, features: tierFeatures(caller.tier) };
}

/** The caller's compile side (`forCaller`) and `raw` checked as a configuration their tier allows. */
export function compileFor(deps: AppDeps, caller: CompileCaller, raw: unknown) {
  const own = forCaller(deps, caller);
  return { deps: own.deps, ...checkedConfiguration(raw, own.features) };
}

/**
 * A caller's share of the worker pool: every task of theirs (compiles, walks, parses, validations,
 * rule matches) counts against their tier's `maxConcurrentCompiles`. Anonymous callers reach no
 * pool route.
 */
export function poolShare(caller: CompileCaller): PoolShare | undefined {
  const { maxConcurrentCompiles: limit, tier } = tierFeatures(caller.tier);
  return caller.user ? { key: caller.user.id, limit, tier } : undefined;
}

/** Refuses a batch larger than the tier allows, or an async compile the tier does not include. */
export function checkTierRequest(features: TierFeatures, request: { batch?: number; async?: boolean }): void {
  if (request.async && !features.asyncCompile)
    throw new ForbiddenError(`The ${features.tier} tier does not include async compiles`);
  if ((request.batch ?? 0) > features.maxBatch)
    throw new InputError([`at most ${features.maxBatch} requests in a batch for the ${features.tier} tier`]);
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

/** A reader's downloads (with their speed) and cache uses, as the network events of a compile. */
function networkHooks(send: (event: 'network' | 'metric' | 'cache', data: object) => void): ReaderHooks {
  return {
    onResponse: (r) => {
      const url = sanitizeUrl(r.url);
      send('network', {
        method: 'GET',
        url,
        statusCode: r.status,
        durationMs: r.durationMs,
        ...(r.bytes !== undefined ? { responseSize: r.bytes } : {}),
      });
      if (r.bytes && r.durationMs > 0) {
        send('metric', {
          metric: 'download speed',
          value: Math.round((r.bytes * 1000) / r.durationMs),
          unit: 'bytes/s',
          dimensions: { url },
        });
      }
    },
    onCache: (r) =>
      send('cache', {
        eventId: randomUUID(),
        category: 'cache',
        operation: r.operation,
        key: sha256(r.url).slice(0, 16),
        ...(r.size !== undefined ? { size: r.size } : {}),
      }),
  };
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
  const base = deps.makeReader(onNetwork && networkHooks(onNetwork));
  const { reader, read } = recordingReader(base);
  const started = performance.now();
  try {
    const options = {
      reader,
      compiler: `flc v${deps.version}`,
      now: () => new Date(deps.now()),
      onEvent,
      signal,
      share: deps.compileShare,
    };
    // In the server's worker pool, with its deadline; in-process only when the app is built without one.
    const result = runner ? await runner.compile(config, options) : await compile(config, options);
    return { result, totalDurationMs: Math.round(performance.now() - started), inputs: read };
  } finally {
    await base.close();
  }
}

/**
 * `POST /api/explain`: the compile `runCompile` runs (pool, deadline, the caller's reader), which
 * also answers why `domain` is blocked or not (the core's `explain`, as `flc explain` answers).
 */
export async function explainCompile(
  deps: AppDeps,
  config: Configuration,
  domain: string,
  signal?: AbortSignal,
): Promise<Explanation> {
  const name = explainDomain(domain);
  const pool = deps.pool;
  let explanation: Explanation | undefined;
  const runner: Pick<CompilePool, 'compile'> = {
    compile: async (c, options) => {
      if (pool) {
        const pooled = await pool.compile(c, { ...options, explain: name });
        explanation = pooled.explanation;
        return pooled;
      }
      const collector = explainCollector(name);
      const result = await compile(c, { ...options, onKept: collector.onKept, onRemoved: collector.onRemoved });
      explanation = explain(name, collector.input(c.format ?? 'adblock'));
      return { lines: [], ruleCount: result.ruleCount, compiledAt: result.compiledAt };
    },
  };
  await runCompile(deps, config, undefined, signal, undefined, runner);
  if (!explanation) throw new Error('the compile answered no explanation');
  return explanation;
}

/** A compile's answer as `POST /api/compile` (and every entry point answering a list) gives it. */
export const compiledList = okBody({
  rules: z.array(z.string()),
  ruleCount: z.number().int(),
  compiledAt: z.string(),
  metrics: z.object({ totalDurationMs: z.number(), sourceCount: z.number().int(), ruleCount: z.number().int() }),
});

/** A compile's outcome as `runCompile` answers it (the parts an answer shows). */
type Outcome = { result: Pick<CompileResult, 'lines' | 'ruleCount' | 'compiledAt'>; totalDurationMs: number };

export function resultBody(config: Configuration, { result, totalDurationMs }: Outcome) {
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
  signal: AbortSignal | undefined,
  features: TierFeatures,
) {
  const results = [];
  for (const request of requests) {
    try {
      const checked = checkedConfiguration(request.configuration, features);
      const { metrics: _metrics, ...answer } = await streamedCompile(deps, checked, undefined, signal);
      results.push({ id: request.id, success: true, ...answer });
    } catch (e) {
      if (signal?.aborted) throw e;
      results.push({ id: request.id, success: false, error: clientMessage(e) });
    }
  }
  return results;
}

/** The `warnings` field of an answer: present only when a configuration used a deprecated key. */
export const warned = (warnings: string[]) => (warnings.length > 0 ? { warnings } : {});

/** Where a compile's events go, in the shapes `/api/compile/stream` sends them (the WebSocket's too). */
export type EventSend = (event: string, data: unknown) => void;

/**
 * One compile as the entry points answering a list run it (REST batch, SSE, WebSocket, tRPC, the
 * queue, containers): with `send`, the deprecation warnings first, as `log` events of level
 * `warn`, then the core's events, downloads and cache uses; then the answer `POST /api/compile`
 * would give. `runner`: where it runs, the worker pool unless said.
 */
export async function streamedCompile(
  deps: AppDeps,
  { config, warnings }: ValidatedConfig,
  send?: EventSend,
  signal?: AbortSignal,
  runner?: Pick<CompilePool, 'compile'>,
) {
  for (const message of warnings) send?.('log', { level: 'warn', message });
  const onEvent = send && ((e: CompileEvent) => send(e.type, ssePayload(e, deps.now())));
  const outcome = await runCompile(deps, config, onEvent, signal, send, runner);
  return { ...resultBody(config, outcome), ...warned(warnings) };
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
