import { availableParallelism } from 'node:os';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { Configuration } from '../core/config/schema.js';
import type { SourceReader } from '../core/load/source-reader.js';
import type { CompileEvent } from '../core/pipeline/events.js';
import type { RemovedLine } from '../core/pipeline/report.js';
import type { ValidateRuleRequest } from '../core/ast/validate-rule.js';
import type { Explanation } from '../core/explain/explain.js';
import { AbortedError, DeadlineError, MemoryLimitError, TooManyCompilesError } from '../core/errors/index.js';
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
  /** Worker threads (`--compile-workers`); one less than the cores by default, so the main thread keeps one. */
  size?: number;
  /**
   * MB of heap a worker thread may use (`--max-memory`); a compile may read a sixth of it in
   * sources (a compile's heap is about six times its input), and fails past that.
   */
  maxMemoryMb?: number;
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
  maxMemoryMb: 512,
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

/** A caller's share of the pool: at most `limit` of their tasks (compiles or not) running or waiting at once. */
export interface PoolShare {
  key: string;
  limit: number;
  tier: string;
}

/** Whose task it is, and until when it is wanted (a request's signal: a client gone cancels it). */
export interface PoolCall {
  share?: PoolShare;
  signal?: AbortSignal;
}

export interface PooledCompileOptions {
  reader: SourceReader;
  compiler: string;
  now: () => Date;
  onEvent?: (e: CompileEvent) => void;
  signal?: AbortSignal;
  /** The caller's share of the pool: at most `limit` of their tasks running or waiting at once. */
  share?: PoolShare;
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

/** What `/api/health` says of the pool: its state, its size, the tasks running and those waiting. */
export interface PoolHealth {
  status: 'ok' | 'busy' | 'closed';
  size: number;
  running: number;
  waiting: number;
}

/**
 * The server's worker pool (piscina): compiles and user-supplied pattern matching run off the
 * main thread, each with a deadline counted from when a worker starts it (the wait for a worker
 * counts against none), so no request can hold the event loop. A task past its deadline, past
 * the worker's memory, cancelled, or cut short by `destroy()` ends its worker thread (piscina
 * replaces it). Its threads stay started, so a task after a quiet spell does not wait for one.
 * One pool per server; the queue and other heavy work can run their tasks on it too.
 */
export class CompilePool {
  readonly size: number;
  readonly deadlineMs: number;
  readonly matchBudgetMs: number;
  readonly listDeadlineMs: number;
  readonly maxAnswerBytes: number;
  readonly maxMemoryMb: number;
  private readonly pool: Piscina;
  private closing = false;
  /** Compiles running or waiting, per caller with a share. */
  private readonly shares = new Map<string, number>();
  /**
   * Tasks wait here and piscina gets only those a worker can start (piscina's own queue puts a
   * task it could not place, every cancellable one, behind later ones).
   */
  private readonly turns: FairTurns;

  constructor(opts: CompilePoolOptions = {}) {
    this.size = Math.max(1, opts.size ?? availableParallelism() - 1);
    this.maxMemoryMb = opts.maxMemoryMb ?? POOL_DEFAULTS.maxMemoryMb;
    this.turns = new FairTurns(this.size);
    this.deadlineMs = opts.deadlineMs ?? POOL_DEFAULTS.deadlineMs;
    this.matchBudgetMs = opts.matchBudgetMs ?? POOL_DEFAULTS.matchBudgetMs;
    this.listDeadlineMs = opts.listDeadlineMs ?? POOL_DEFAULTS.listDeadlineMs;
    this.maxAnswerBytes = opts.maxAnswerBytes ?? POOL_DEFAULTS.maxAnswerBytes;
    this.pool = new Piscina({
      filename: WORKER,
      minThreads: this.size,
      maxThreads: this.size,
      idleTimeout: 60_000,
      resourceLimits: { maxOldGenerationSizeMb: this.maxMemoryMb },
    });
  }

  /** Compiles `config` in a worker; the main thread reads its sources with `reader`. */
  async compile(config: Configuration, opts: PooledCompileOptions): Promise<PooledCompile> {
    const release = this.hold(opts.share, 'compiles');
    try {
      return await this.compileHeld(config, opts);
    } finally {
      release();
    }
  }

  private async compileHeld(config: Configuration, opts: PooledCompileOptions): Promise<PooledCompile> {
    const { port1, port2 } = new MessageChannel();
    const reads = new AbortController();
    // Sources past the budget stop the compile before the worker runs out of memory on them.
    let budget = (this.maxMemoryMb * 1024 * 1024) / 6;
    const overflow = new AbortController();
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
      /** False (and the compile stopped) once the sources read pass the budget. */
      const within = (size: number) => {
        budget -= size;
        if (budget < 0) overflow.abort();
        return budget >= 0;
      };
      const { reader } = opts;
      if (m.bytes && reader.readBytes) {
        // The bytes move to the worker, not copied: their buffer is the compile's (ListBytes), and
        // when it is all theirs (not a slice of a larger one, as Node's small Buffers are) it is moved.
        reader.readBytes(m.location, reads.signal, m.options).then((given) => {
          if (!within(given?.bytes.byteLength ?? 0)) return;
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
        .then((text) => within(text.length) && answer({ type: 'read-result', id: m.id, text }), failed);
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
      const signal = opts.signal ? AbortSignal.any([opts.signal, overflow.signal]) : overflow.signal;
      const out = await this.run<CompiledList>(
        task,
        port1,
        this.deadlineMs,
        'The compilation',
        signal,
        () => allEvents,
        opts.share,
      ).catch((e) => {
        if (!overflow.signal.aborted) throw e;
        const mib = Math.floor(this.maxMemoryMb / 6);
        const most = `the most a worker of ${this.maxMemoryMb} MB may compile`;
        throw new MemoryLimitError(`The sources of this compile come to more than ${mib} MiB, ${most}`);
      });
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
   * Counts one more task of `share`'s caller, refusing it past their cap: every kind of task
   * counts (a share that counted compiles only let one user fill the queue with walks or
   * validations, each as long as a compile). Answers the function that gives it back.
   */
  private hold(share: PoolShare | undefined, what: string): () => void {
    if (!share) return () => undefined;
    const held = this.shares.get(share.key) ?? 0;
    if (held >= share.limit) throw new TooManyCompilesError(share.limit, share.tier, what);
    this.shares.set(share.key, held + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (this.shares.get(share.key) ?? 1) - 1;
      if (left > 0) this.shares.set(share.key, left);
      else this.shares.delete(share.key);
    };
  }

  /** `validateRule` in a worker, stopped after the match budget (a regular expression can backtrack for ever). */
  async validateRule(request: ValidateRuleRequest, call: PoolCall = {}): Promise<unknown> {
    const release = this.hold(call.share, 'tasks');
    const { port1, port2 } = new MessageChannel();
    const task: ValidateRuleTask = { kind: 'validate-rule', request, port: port2 };
    try {
      return await this.run(
        task,
        port1,
        this.matchBudgetMs,
        'Matching the rule against testUrl',
        call.signal,
        undefined,
        call.share,
      );
    } finally {
      port1.close();
      release();
    }
  }

  /**
   * The answer of `/api/ast/walk`, `/api/ast/parse` or `/api/validate` (`op`), built in a worker
   * as JSON bytes so that the main thread only sends them: stopped past the list deadline,
   * refused past the answer limit.
   */
  async listAnswer(op: ListOperation, request: unknown, call: PoolCall = {}): Promise<Uint8Array> {
    const release = this.hold(call.share, 'tasks');
    const { port1, port2 } = new MessageChannel();
    const task: ListTask = { kind: 'list', op, request, maxAnswerBytes: this.maxAnswerBytes, port: port2 };
    const what = op === 'walk' ? 'The walk' : op === 'parse' ? 'The parse' : 'The validation';
    try {
      return await this.run<Uint8Array>(task, port1, this.listDeadlineMs, what, call.signal, undefined, call.share);
    } finally {
      port1.close();
      release();
    }
  }

  /**
   * The pool's state, from its own counts (no task is run for it): `closed` once destroyed, `busy`
   * while every worker has a task (a new one would wait), `ok` otherwise.
   */
  health(): PoolHealth {
    const counts = { size: this.size, running: this.turns.activeCount, waiting: this.turns.pendingCount };
    if (this.closing) return { status: 'closed', ...counts };
    return { status: counts.running >= this.size ? 'busy' : 'ok', ...counts };
  }

  /** Ends every worker: tasks in flight fail as cancelled (the server is shutting down). */
  async destroy(): Promise<void> {
    this.closing = true;
    await this.pool.destroy();
  }

  /** Runs `task`; its deadline starts with the worker's first message on `port` (it posts one on starting). */
  private async run<T>(
    task: CompileTask | ValidateRuleTask | ListTask,
    port: MessagePort,
    deadlineMs: number,
    what: string,
    signal?: AbortSignal,
    /** Waited for once the worker has answered (and so is alive to have sent it). */
    settled: () => Promise<void> = () => Promise.resolve(),
    /** Whose task it is: waiting tasks take their turns round-robin across callers. */
    share?: PoolShare,
  ): Promise<T> {
    if (this.closing) throw new AbortedError(new Error('the server is shutting down'));
    const deadline = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    port.once('message', () => {
      timer = setTimeout(() => deadline.abort(), deadlineMs);
    });
    const both = signal ? AbortSignal.any([deadline.signal, signal]) : deadline.signal;
    let outcome: WorkerOutcome<T>;
    try {
      const turn = this.turns.run(
        share?.key ?? '',
        () => {
          if (both.aborted) throw both.reason;
          return this.pool.run(task, { transferList: [task.port], signal: both }) as Promise<WorkerOutcome<T>>;
        },
        both,
      );
      // A task cancelled while it waits for its turn answers at once and leaves the line.
      turn.catch(() => undefined);
      outcome = await (signal ? Promise.race([turn, aborted(signal)]) : turn);
    } catch (e) {
      if (signal?.aborted) throw new AbortedError(signal.reason);
      if (deadline.signal.aborted) throw new DeadlineError(what, deadlineMs);
      if (this.closing) throw new AbortedError(new Error('the server is shutting down'));
      if ((e as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY')
        throw new MemoryLimitError(`${what} needed more than the ${this.maxMemoryMb} MB a worker may use`);
      throw e;
    } finally {
      clearTimeout(timer);
    }
    await settled();
    if ('error' in outcome) throw fromWire(outcome.error);
    return outcome.ok;
  }
}

/**
 * At most `size` tasks run at once. A turn that comes free goes to the waiting caller with the
 * fewest tasks running, then to the one served longest ago (first come, first served within one
 * caller): one caller's queued tasks delay another's by about one task, not all of them. A small
 * scheduler, because p-limit and p-queue have no notion of whose task it is.
 */
export class FairTurns {
  private running = 0;
  private served = 0;
  /** Each caller's waiting tasks. */
  private readonly waiting = new Map<string, (() => void)[]>();
  /** Each caller's running tasks and when it was last given a turn. */
  private readonly callers = new Map<string, { running: number; servedAt: number }>();

  constructor(private readonly size: number) {}

  get activeCount(): number {
    return this.running;
  }

  get pendingCount(): number {
    let count = 0;
    for (const queue of this.waiting.values()) count += queue.length;
    return count;
  }

  /**
   * Runs `work` in its turn. A task whose `signal` aborts while it waits leaves the line at once
   * (rejected with the signal's reason): a caller that went away holds no place, no memory and no
   * turn, however many tasks it sent and left.
   */
  async run<T>(caller: string, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    if (this.running < this.size && this.waiting.size === 0) this.start(caller);
    else await this.wait(caller, signal);
    try {
      return await work();
    } finally {
      this.end(caller);
    }
  }

  /** Waits in `caller`'s line until `end` gives it a turn, or leaves the line when `signal` aborts. */
  private wait(caller: string, signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const wake = () => {
        signal?.removeEventListener('abort', leave);
        resolve();
      };
      const leave = () => {
        const queue = this.waiting.get(caller);
        const at = queue ? queue.indexOf(wake) : -1;
        if (!queue || at < 0) return;
        queue.splice(at, 1);
        if (queue.length === 0) {
          this.waiting.delete(caller);
          this.forget();
        }
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', leave, { once: true });
      const queue = this.waiting.get(caller);
      if (queue) queue.push(wake);
      else this.waiting.set(caller, [wake]);
    });
  }

  /**
   * Forgets the callers with nothing here that were served before every caller now waiting: they
   * would come back first anyway. A caller served since is remembered, so that ending its task
   * and sending the next does not make it new (first in line): two callers taking turns at that
   * kept a third, served once, waiting for ever.
   */
  private forget(): void {
    let oldest = Number.POSITIVE_INFINITY;
    for (const waiting of this.waiting.keys()) oldest = Math.min(oldest, this.callers.get(waiting)?.servedAt ?? 0);
    for (const [caller, state] of this.callers)
      if (state.running === 0 && !this.waiting.has(caller) && state.servedAt < oldest) this.callers.delete(caller);
  }

  private start(caller: string): void {
    this.running++;
    const state = this.callers.get(caller) ?? { running: 0, servedAt: 0 };
    this.callers.set(caller, { running: state.running + 1, servedAt: ++this.served });
  }

  /** A turn ended: it goes to the waiting caller with the fewest running, then served longest ago. */
  private end(caller: string): void {
    this.running--;
    const state = this.callers.get(caller);
    if (state) state.running--;
    this.forget();
    let chosen: string | undefined;
    let best = { running: Number.POSITIVE_INFINITY, servedAt: Number.POSITIVE_INFINITY };
    for (const waiting of this.waiting.keys()) {
      const s = this.callers.get(waiting) ?? { running: 0, servedAt: 0 };
      if (s.running < best.running || (s.running === best.running && s.servedAt < best.servedAt)) {
        chosen = waiting;
        best = s;
      }
    }
    if (chosen === undefined) return;
    const queue = this.waiting.get(chosen) as (() => void)[];
    const wake = queue.shift() as () => void;
    if (queue.length === 0) this.waiting.delete(chosen);
    this.start(chosen);
    wake();
  }
}

/** Rejects when `signal` aborts. */
const aborted = (signal: AbortSignal) =>
  new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
