import type { Store } from '../store/store.js';

/** How a bearer token's hash is looked up: as a session, or as an API key, each with its user. */
export type IdentityLookups = ReturnType<typeof batchedLookups>;

/** One query per lookup. */
export function directLookups(store: Store): IdentityLookups {
  return {
    session: async (hash) => (await store.sessionsWithUsers([hash])).get(hash),
    key: async (hash) => (await store.apiKeysWithUsers([hash])).get(hash),
  };
}

/** Lookups that share queries under load (see `batchedLookup`). */
export function batchedLookups(store: Store) {
  return {
    session: batchedLookup((hashes) => store.sessionsWithUsers(hashes)),
    key: batchedLookup((hashes) => store.apiKeysWithUsers(hashes)),
  };
}

/**
 * Looks keys up in batches, each answer coming from a query sent after its call was made: a call
 * joins the batch not sent yet, and while one batch's query runs, the calls made meanwhile gather
 * for the next. Under load many requests share one query, and none is answered from a query
 * older than itself, so a revocation or a ban committed by another server before a request
 * arrives is always seen by it.
 */
export function batchedLookup<V>(
  fetch: (keys: string[]) => Promise<Map<string, V>>,
): (key: string) => Promise<V | undefined> {
  let waiting: { keys: Set<string>; result: Promise<Map<string, V>> } | null = null;
  let running: Promise<unknown> = Promise.resolve();
  return (key) => {
    if (!waiting) {
      const keys = new Set<string>();
      const batch: { keys: Set<string>; result: Promise<Map<string, V>> } = {
        keys,
        result: running.then(() => {
          if (waiting === batch) waiting = null;
          return fetch([...keys]);
        }),
      };
      waiting = batch;
      running = batch.result.catch(() => undefined);
    }
    waiting.keys.add(key);
    return waiting.result.then((found) => found.get(key));
  };
}
