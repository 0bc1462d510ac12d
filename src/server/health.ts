import { setTimeout as delay } from 'node:timers/promises';
import type { Store } from './store/store.js';
import type { CompilePool } from '../node/compile-pool.js';
import { z } from '@hono/zod-openapi';

/** How long the store may take to answer the probe's read before it counts as unavailable. */
export const HEALTH_PROBE_MS = 2_000;

/** `/api/health`'s answer. */
export const health = z.object({
  status: z.enum(['ok', 'degraded', 'unavailable']),
  version: z.string(),
  timestamp: z.string(),
  uptimeSeconds: z.number(),
  checks: z.object({
    store: z.object({
      status: z.enum(['ok', 'degraded', 'unavailable']),
      engine: z.string(),
      latencyMs: z.number(),
      error: z.string().optional(),
    }),
    workers: z
      .object({
        status: z.enum(['ok', 'busy', 'closed']),
        size: z.number(),
        running: z.number(),
        waiting: z.number(),
      })
      .optional(),
  }),
});
/** What the checks found: the answer without the server's version and times. */
type HealthReport = Pick<z.infer<typeof health>, 'status' | 'checks'>;

/**
 * The server's state as `/api/health` reports it: the store must answer a read within the probe
 * time; the worker pool reports its own counts. A store that fails or does not answer, or a pool
 * that is closed (the server is stopping), makes the server `unavailable`; a store whose writes
 * meet a busy database (another process holds its lock), or a pool whose every worker has a task,
 * makes it `degraded`: it serves, writes waiting and failing with 503, or a compile waiting.
 */
export async function checkHealth(store: Store, pool: CompilePool | undefined): Promise<HealthReport> {
  const storeCheck = await checkStore(store);
  const workers = pool?.health();
  const down = storeCheck.status === 'unavailable' || workers?.status === 'closed';
  const degraded = storeCheck.status === 'degraded' || workers?.status === 'busy';
  const status: HealthReport['status'] = down ? 'unavailable' : degraded ? 'degraded' : 'ok';
  return { status, checks: { store: storeCheck, ...(workers ? { workers } : {}) } };
}

async function checkStore(store: Store): Promise<HealthReport['checks']['store']> {
  const started = performance.now();
  const timer = new AbortController();
  const late = delay(HEALTH_PROBE_MS, 'late' as const, { signal: timer.signal }).catch(() => 'late' as const);
  const read = store.latestHealth().then(
    () => 'answered' as const,
    () => 'failed' as const,
  );
  const answer = await Promise.race([read, late]);
  timer.abort();
  const latencyMs = Math.round(performance.now() - started);
  if (answer === 'answered' && !(await store.probeWrites()))
    return { status: 'degraded', engine: store.engine, latencyMs, error: 'writes fail: the database is busy' };
  if (answer === 'answered') return { status: 'ok', engine: store.engine, latencyMs };
  // The store's own message may name its location: the probe says only what happened.
  const error = answer === 'late' ? 'no answer in time' : 'the store failed';
  return { status: 'unavailable', engine: store.engine, latencyMs, error };
}
