import type { WalkResult } from './walk-tree.js';

/**
 * `{nodes, summary}` as JSON text in chunks of `batch` nodes, each chunk one native
 * `JSON.stringify` call, so a walk of a whole list is never one giant string.
 * (A memoising serialiser that reuses subtree text was tried: byte-identical, but
 * slower here — WeakMap lookups and rope flattening cost more than they save.)
 */
export function* walkResultJson(result: WalkResult, batch = 2000): Generator<string> {
  yield '{"nodes":[';
  for (let i = 0; i < result.nodes.length; i += batch) {
    const json = JSON.stringify(result.nodes.slice(i, i + batch));
    yield (i > 0 ? ',' : '') + json.slice(1, -1);
  }
  yield `],"summary":${JSON.stringify(result.summary)}}`;
}
