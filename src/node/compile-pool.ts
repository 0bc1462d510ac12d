import { availableParallelism } from 'node:os';
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { Configuration } from '../core/config/schema.js';
import type { SourceReader } from '../core/load/source-reader.js';
import type { CompileEvent } from '../core/pipeline/events.js';
import type { RemovedLine } from '../core/pipeline/report.js';
import type { ValidateRuleRequest } from '../core/ast/validate-rule.js';
import type { Explanation } from '../core/explain/explain.js';
import { AbortedError, DeadlineError } from '../core/errors/index.js';
import { DEFAULT_ANSWER_LIMIT_BYTES, type ListOperation } from '../core/ast/answers.js';
import type {
  CompiledList,
  CompileTask,
  ListTask,
  PortMessage,
  ValidateRuleTask,
  WorkerOutcome,
} from './compile-worker.js';
import { fromWire, toWire } from './wire-error.js';
import { configuredLocations } from './configured-locations.js';

export interface CompilePoolOptions {
  /** Worker threads at most (`--compile-workers`); the number of cores by default. */
  size?: number;
  /** A compile's deadline in milliseconds, downloads included (`--compile-timeout`). */
  deadlineMs?: number;
  /** How long `validate-rule` may take to match a rule against its test URL. */
  matchBudgetMs?: number;
  /** How long an AST walk, a parse or a list validation may run (`--ast-timeout`). */
  listDeadlineMs?: number;
  /** The largest answer of those routes, in bytes (`--ast-answer-limit`). */
  maxAnswerBytes?: number;
}

export const POOL_DEFAULTS = {
  deadlineMs: 60_000,
  matchBudgetMs: 1_000,
  listDeadlineMs: 10_000,
  maxAnswerBytes: DEFAULT_ANSWER_LIMIT_BYTES,
} as const;

/** What a pooled compile gives back: the fields the server answers with. */
export interface PooledCompile {
  lines: string[];
  ruleCount: number;
  compiledAt: Date;
  /** Why the `explain` domain is blocked, or not, when one was given. */
  explanation?: Explanation;
}

export interface PooledCompileOptions {
  reader: SourceReader;
  compiler: string;
  now: () => Date;
  onEvent?: (e: CompileEvent) => void;
  signal?: AbortSignal;
  /** Each line the compile removes, with its source, line and reason (the report's `removed`). */
  onRemoved?: (line: RemovedLine) => void;
  /**
   * Removed lines reported at most (`onRemoved`); the worker only counts those past it and
   * reports their number (`onRemovedDropped`), so a huge report is never copied to this thread.
   */
  reportLimit?: number;
  onRemovedDropped?: (count: number) => void;
  /** A domain (checked by `explainDomain`) to explain in the worker: `lines` is then empty. */
  explain?: string;
}

// Run from the TypeScript sources (tests, `tsx`), the worker is TypeScript too and needs tsx's loader.
const WORKER = new URL(
  import.meta.url.endsWith('.ts') ? './compile-worker-from-source.mjs' : './compile-worker.js',
  import.meta.url,
).href;

/**
 * The server's worker pool (piscina): compiles and user-supplied pattern matching run off the
 * main thread, each with a deadline, so no request can hold the event loop. A task past its
 * deadline, cancelled, or cut short by `destroy()` ends its worker thread (piscina replaces it).
 * One pool per server; the queue and other heavy work can run their tasks on it too.
 */
/** What `/api/health` says of the pool: its state, its size, the tasks running and those waiting. */
export interface PoolHealth {
  status: 'ok' | 'busy' | 'closed';
  size: number;
  running: number;
  waiting: number;
}

export class CompilePool {
  readonly size: number;
  readonly deadlineMs: number;
  readonly matchBudgetMs: number;
  readonly listDeadlineMs: number;
  readonly maxAnswerBytes: number;
  private readonly pool: Piscina;
  private closing = false;
  /** Tasks given to piscina and not yet ended (running, or waiting for a worker). */
  private tasks = 0;

  constructor(opts: CompilePoolOptions = {}) {
    this.size = Math.max(1, opts.size ?? availableParallelism());
    this.deadlineMs = opts.deadlineMs ?? POOL_DEFAULTS.deadlineMs;
    this.matchBudgetMs = opts.matchBudgetMs ?? POOL_DEFAULTS.matchBudgetMs;
    this.listDeadlineMs = opts.listDeadlineMs ?? POOL_DEFAULTS.listDeadlineMs;
    this.maxAnswerBytes = opts.maxAnswerBytes ?? POOL_DEFAULTS.maxAnswerBytes;
    this.pool = new Piscina({
      filename: WORKER,
      minThreads: 0,
      maxThreads: this.size,
      idleTimeout: 30_000,
    });
  }

  /** Compiles `config` in a worker; the main thread reads its sources with `reader`. */
  async compile(config: Configuration, opts: PooledCompileOptions): Promise<PooledCompile> {
    const { port1, port2 } = new MessageChannel();
    const reads = new AbortController();
    let drained: () => void = () => undefined;
    const allEvents = new Promise<void>((resolve) => {
      drained = resolve;
    });
    // The worker closes its end after `done`; either says every event has arrived.
    port1.once('close', () => drained());
    port1.on('message', (m: PortMessage) => {
      if (m.type === 'done') drained();
      if (m.type === 'event') opts.onEvent?.(m.event as CompileEvent);
      if (m.type === 'removed') {
        for (const line of m.lines) opts.onRemoved?.(line);
        if (m.dropped) opts.onRemovedDropped?.(m.dropped);
      }
      if (m.type !== 'read') return;
      const answer = (message: PortMessage, transfer: ArrayBuffer[] = []) => port1.postMessage(message, transfer);
      const failed = (e: unknown) => answer({ type: 'read-result', id: m.id, error: toWire(e) });
      const { reader } = opts;
      if (m.bytes && reader.readBytes) {
        // The bytes move to the worker, not copied: their buffer is the compile's (ListBytes), and
        // when it is all theirs (not a slice of a larger one, as Node's small Buffers are) it is moved.
        reader.readBytes(m.location, reads.signal, m.options).then((given) => {
          const whole =
            given && given.bytes.byteOffset === 0 && given.bytes.byteLength === given.bytes.buffer.byteLength;
          const buffer = given?.bytes.buffer;
          answer(
            { type: 'read-result', id: m.id, bytes: given },
            whole && buffer instanceof ArrayBuffer ? [buffer] : [],
          );
        }, failed);
        return;
      }
      reader
        .read(m.location, reads.signal, m.options)
        .then((text) => answer({ type: 'read-result', id: m.id, text }), failed);
    });
    const task: CompileTask = {
      kind: 'compile',
      config,
      compiler: opts.compiler,
      nowMs: opts.now().getTime(),
      configured: configuredLocations(config, opts.reader),
      readsBytes: opts.reader.readBytes !== undefined,
      port: port2,
      report: opts.onRemoved !== undefined,
      ...(opts.reportLimit === undefined ? {} : { reportLimit: opts.reportLimit }),
      ...(opts.explain === undefined ? {} : { explain: opts.explain }),
    };
    try {
      const out = await this.run<CompiledList>(
        task,
        [port2],
        this.deadlineMs,
        'The compilation',
        opts.signal,
        () => allEvents,
      );
      const text = Buffer.from(out.bytes.buffer, out.bytes.byteOffset, out.bytes.byteLength).toString('utf8');
      return {
        lines: out.lineCount === 0 ? [] : text.split('\n'),
        ruleCount: out.ruleCount,
        compiledAt: new Date(out.compiledAtMs),
        ...(out.explanation ? { explanation: out.explanation } : {}),
      };
    } finally {
      reads.abort(new AbortedError('the compilation ended'));
      port1.close();
    }
  }

  /**
   * `validateRule` in a worker, stopped after the match budget (a regular expression can backtrack
   * for ever). The budget counts from when a worker starts the task, not from when it was queued
   * behind others or waited for a new thread: a busy server does not fail honest rules.
   */
  async validateRule(request: ValidateRuleRequest): Promise<unknown> {
    const { port1, port2 } = new MessageChannel();
    const budget = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    port1.once('message', () => {
      timer = setTimeout(() => budget.abort(), this.matchBudgetMs);
    });
    const task: ValidateRuleTask = { kind: 'validate-rule', request, port: port2 };
    const what = 'Matching the rule against testUrl';
    try {
      // Waiting for a worker is bounded too: ten budgets, at most the compile deadline.
      const overall = Math.min(this.deadlineMs, this.matchBudgetMs * 10);
      return await this.run(task, [port2], overall, what, budget.signal);
    } catch (e) {
      if (budget.signal.aborted) throw new DeadlineError(what, this.matchBudgetMs);
      throw e;
    } finally {
      clearTimeout(timer);
      port1.close();
    }
  }

  /**
   * The answer of `/api/ast/walk`, `/api/ast/parse` or `/api/validate` (`op`), built in a worker
   * as JSON bytes so that the main thread only sends them: stopped past the list deadline (from
   * when a worker starts it, like the match budget), refused past the answer limit.
   */
  async listAnswer(op: ListOperation, request: unknown): Promise<Uint8Array> {
    const { port1, port2 } = new MessageChannel();
    const budget = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    port1.once('message', () => {
      timer = setTimeout(() => budget.abort(), this.listDeadlineMs);
    });
    const task: ListTask = { kind: 'list', op, request, maxAnswerBytes: this.maxAnswerBytes, port: port2 };
    const what = op === 'walk' ? 'The walk' : op === 'parse' ? 'The parse' : 'The validation';
    try {
      // Waiting for a worker is bounded too, by the compile deadline.
      const overall = Math.max(this.deadlineMs, this.listDeadlineMs);
      return await this.run<Uint8Array>(task, [port2], overall, what, budget.signal);
    } catch (e) {
      if (budget.signal.aborted) throw new DeadlineError(what, this.listDeadlineMs);
      throw e;
    } finally {
      clearTimeout(timer);
      port1.close();
    }
  }

  /**
   * The pool's state, from its own counts (no task is run for it): `closed` once destroyed, `busy`
   * while every worker has a task (a new one would wait), `ok` otherwise.
   */
  health(): PoolHealth {
    const counts = { size: this.size, running: Math.min(this.tasks, this.size), waiting: this.pool.queueSize };
    if (this.closing) return { status: 'closed', ...counts };
    return { status: this.tasks >= this.size ? 'busy' : 'ok', ...counts };
  }

  /** Ends every worker: tasks in flight fail as cancelled (the server is shutting down). */
  async destroy(): Promise<void> {
    this.closing = true;
    await this.pool.destroy();
  }

  private async run<T>(
    task: CompileTask | ValidateRuleTask | ListTask,
    transferList: CompileTask['port'][],
    deadlineMs: number,
    what: string,
    signal?: AbortSignal,
    /** Waited for once the worker has answered (and so is alive to have sent it). */
    settled: () => Promise<void> = () => Promise.resolve(),
  ): Promise<T> {
    if (this.closing) throw new AbortedError(new Error('the server is shutting down'));
    const deadline = AbortSignal.timeout(deadlineMs);
    const both = signal ? AbortSignal.any([deadline, signal]) : deadline;
    let outcome: WorkerOutcome<T>;
    this.tasks += 1;
    try {
      outcome = (await this.pool.run(task, { transferList, signal: both })) as WorkerOutcome<T>;
    } catch (e) {
      if (signal?.aborted) throw new AbortedError(signal.reason);
      if (deadline.aborted) throw new DeadlineError(what, deadlineMs);
      if (this.closing) throw new AbortedError(new Error('the server is shutting down'));
      throw e;
    } finally {
      this.tasks -= 1;
    }
    await settled();
    if ('error' in outcome) throw fromWire(outcome.error);
    return outcome.ok;
  }
}
