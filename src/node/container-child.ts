import { compile } from '../core/pipeline/compile.js';
import type { Configuration } from '../core/config/schema.js';
import { type ConfiguredLocations, forwardedResolve } from './configured-locations.js';
import type { ReadOptions } from '../core/load/source-reader.js';
import { fromWire, toWire, type WireError } from './wire-error.js';

/** Messages between the server and its container compile process. */
export type ContainerMessage =
  | { type: 'ready' }
  | { type: 'compile'; config: Configuration; compiler: string; nowMs: number; configured: ConfiguredLocations }
  | { type: 'read'; id: number; location: string; options?: ReadOptions }
  | { type: 'read-result'; id: number; text?: string; error?: WireError }
  | { type: 'event'; event: unknown }
  | { type: 'done'; text: string; lineCount: number; ruleCount: number; compiledAtMs: number }
  | { type: 'failed'; error: WireError };

/**
 * A compile in a process of its own (`flc serve`'s container compiles): started with a heap limit
 * and an empty environment, it has no store, no secrets and no network of its own; it asks the
 * server for every source (read there through the guarded reader) and sends back the events and
 * the list.
 */
const send = (m: ContainerMessage) => process.send?.(m);
const pending = new Map<number, { resolve: (text: string) => void; reject: (e: Error) => void }>();
let next = 0;

process.on('message', (m: ContainerMessage) => {
  if (m.type === 'read-result') {
    const waiter = pending.get(m.id);
    pending.delete(m.id);
    if (m.error) waiter?.reject(fromWire(m.error));
    else waiter?.resolve(m.text ?? '');
    return;
  }
  if (m.type !== 'compile') return;
  const reader = {
    resolve: forwardedResolve(m.configured),
    read: (location: string, _signal?: AbortSignal, options?: ReadOptions) =>
      new Promise<string>((resolve, reject) => {
        const id = next++;
        pending.set(id, { resolve, reject });
        send({ type: 'read', id, location, options });
      }),
  };
  compile(m.config, {
    reader,
    compiler: m.compiler,
    now: () => new Date(m.nowMs),
    onEvent: (event) => send({ type: 'event', event }),
  }).then(
    (result) =>
      send({
        type: 'done',
        text: result.lines.join('\n'),
        lineCount: result.lineCount,
        ruleCount: result.ruleCount,
        compiledAtMs: result.compiledAt.getTime(),
      }),
    (e) => send({ type: 'failed', error: toWire(e) }),
  );
});
// Listening now: the server sends the compile only after this.
send({ type: 'ready' });
