import type { MessagePort } from 'node:worker_threads';
import { compile } from '../core/pipeline/compile.js';
import type { Configuration } from '../core/config/schema.js';
import type { ListBytes, ReadOptions, SourceReader } from '../core/load/source-reader.js';
import { validateRule, type ValidateRuleRequest } from '../core/ast/validate-rule.js';
import type { ListOperation } from '../core/ast/answers.js';
import type { RemovedLine } from '../core/pipeline/report.js';
import { type ConfiguredLocations, forwardedResolve } from './configured-locations.js';
import { fromWire, toWire, type WireError } from './wire-error.js';
import { explain, explainCollector, type Explanation } from '../core/explain/explain.js';

/** A compile: sources are read by the main thread (its reader and address policy) over `port`. */
export interface CompileTask {
  kind: 'compile';
  config: Configuration;
  compiler: string;
  nowMs: number;
  /** The configured sources as the server's reader resolved them. */
  configured: ConfiguredLocations;
  /** Whether the server's reader has `readBytes`: the worker's reader then asks for bytes too. */
  readsBytes: boolean;
  port: MessagePort;
  /** Post the removed lines (`removed` messages, in batches) for the caller's report. */
  report?: boolean;
  /** Removed lines posted at most; those past it are only counted (`dropped`), never sent. */
  reportLimit?: number;
  /** A domain (checked by `explainDomain`): the compile answers why it is blocked or not, not the list. */
  explain?: string;
}

export interface ValidateRuleTask {
  kind: 'validate-rule';
  request: ValidateRuleRequest;
  /** Told when the worker starts the task: the match budget counts from then. */
  port: MessagePort;
}

/** `/api/ast/walk`, `/api/ast/parse` or `/api/validate`: the answer comes back as JSON bytes. */
export interface ListTask {
  kind: 'list';
  op: ListOperation;
  request: unknown;
  /** The answer's bound in bytes: past it the task fails with AnswerTooLargeError. */
  maxAnswerBytes: number;
  /** Told when the worker starts the task: the deadline counts from then. */
  port: MessagePort;
}

export type WorkerOutcome<T> = { ok: T } | { error: WireError };

export interface CompiledList {
  /** The list's lines joined with LF, UTF-8 (one buffer crosses threads faster than a million strings). */
  bytes: Uint8Array;
  lineCount: number;
  ruleCount: number;
  compiledAtMs: number;
  /** The answer for the task's `explain` domain, when it has one. */
  explanation?: Explanation;
}

/** Messages on a compile's port. */
export type PortMessage =
  /** `bytes`: the list as `readBytes` gives it (its buffer transferred), else as text. */
  | { type: 'read'; id: number; location: string; options?: ReadOptions; bytes?: boolean }
  | { type: 'read-result'; id: number; text?: string; bytes?: ListBytes | null; error?: WireError }
  | { type: 'event'; event: unknown }
  /** Lines the compile removed, with why (only when the task asked for its report). */
  | { type: 'removed'; lines: RemovedLine[]; dropped?: number }
  /** The last message of a compile: every event has been posted before it. */
  | { type: 'done' }
  /** The first message of every task: its deadline counts from here. */
  | { type: 'started' };

/** The server's reader, as the worker sees it: each read asked of the main thread over `port`. */
function forwardedReader(task: CompileTask): SourceReader {
  type Answer = Extract<PortMessage, { type: 'read-result' }>;
  const pending = new Map<number, { resolve: (m: Answer) => void; reject: (e: Error) => void }>();
  let next = 0;
  task.port.on('message', (m: PortMessage) => {
    if (m.type !== 'read-result') return;
    const waiter = pending.get(m.id);
    pending.delete(m.id);
    if (m.error) waiter?.reject(fromWire(m.error));
    else waiter?.resolve(m);
  });
  const ask = (location: string, options: ReadOptions | undefined, bytes: boolean) =>
    new Promise<Answer>((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve, reject });
      task.port.postMessage({ type: 'read', id, location, options, bytes } satisfies PortMessage);
    });
  return {
    resolve: forwardedResolve(task.configured),
    read: async (location, _signal, options) => (await ask(location, options, false)).text ?? '',
    ...(task.readsBytes
      ? { readBytes: async (location, _signal, options) => (await ask(location, options, true)).bytes ?? null }
      : {}),
  } satisfies SourceReader;
}

function compileInWorker(task: CompileTask): Promise<CompiledList> {
  // Removed lines go in batches: one message each would cost more than the compile on large lists.
  // Past `reportLimit` they are counted here, not sent: the main thread never copies more.
  let removed: RemovedLine[] = [];
  let sent = 0;
  let dropped = 0;
  const limit = task.reportLimit ?? Number.POSITIVE_INFINITY;
  const flush = () => {
    if (removed.length > 0 || dropped > 0)
      task.port.postMessage({ type: 'removed', lines: removed, dropped } satisfies PortMessage);
    removed = [];
    dropped = 0;
  };
  // Explained here, not on the main thread: a rule's regular expression is matched against the domain.
  const collector = task.explain === undefined ? undefined : explainCollector(task.explain);
  const report = task.report
    ? (line: RemovedLine) => {
        if (sent >= limit) {
          dropped += 1;
          return;
        }
        sent += 1;
        if (removed.push(line) >= 1000) flush();
      }
    : undefined;
  return compile(task.config, {
    reader: forwardedReader(task),
    compiler: task.compiler,
    now: () => new Date(task.nowMs),
    onEvent: (event) => task.port.postMessage({ type: 'event', event } satisfies PortMessage),
    onKept: collector?.onKept,
    onRemoved:
      collector && report
        ? (line) => {
            collector.onRemoved(line);
            report(line);
          }
        : (collector?.onRemoved ?? report),
  }).then((result) => {
    flush();
    const compiled = { ruleCount: result.ruleCount, compiledAtMs: result.compiledAt.getTime() };
    if (!collector) return { ...compiled, bytes: result.bytes(), lineCount: result.lineCount };
    // The answer is the explanation: the list is neither written out nor sent back.
    const explanation = explain(task.explain!, collector.input(task.config.format ?? 'adblock'));
    return { ...compiled, bytes: new Uint8Array(0), lineCount: 0, explanation };
  });
}

/**
 * The worker of the server's pool (compile-pool.ts): the work user input can make slow (a
 * compile's patterns and transformations, a rule's regular expression against a test URL)
 * runs here, so that it can be stopped at its deadline by ending the thread.
 */
export default async function run(task: CompileTask | ValidateRuleTask | ListTask): Promise<WorkerOutcome<unknown>> {
  try {
    // Loaded on a worker's first such task (a thread started for a compile does not wait for it),
    // before the deadline starts.
    const answers = task.kind === 'list' ? await import('../core/ast/answers.js') : undefined;
    // The main thread closes the channel when the task ends.
    task.port.postMessage({ type: 'started' } satisfies PortMessage);
    if (task.kind === 'list') return { ok: answers!.listAnswerBytes(task.op, task.request, task.maxAnswerBytes) };
    if (task.kind === 'validate-rule') return { ok: validateRule(task.request) };
    try {
      return { ok: await compileInWorker(task) };
    } finally {
      // The task's result travels on another channel than the events: this tells the main thread
      // that it has them all, so a result never overtakes the last events.
      task.port.postMessage({ type: 'done' } satisfies PortMessage);
      task.port.close();
    }
  } catch (e) {
    return { error: toWire(e) };
  }
}
