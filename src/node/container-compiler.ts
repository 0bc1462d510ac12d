import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Configuration } from '../core/config/schema.js';
import { AbortedError, DeadlineError, FlcError } from '../core/errors/index.js';
import type { CompileEvent } from '../core/pipeline/events.js';
import { configuredLocations } from './configured-locations.js';
import type { PooledCompile, PooledCompileOptions } from './compile-pool.js';
import type { ContainerMessage } from './container-child.js';
import { fromWire, toWire } from './wire-error.js';

export interface ContainerOptions {
  /** The child's V8 heap limit in MB (`--container-memory`). */
  memoryMb: number;
  /** How long a container compile may take, downloads included (`--container-timeout`). */
  timeoutMs: number;
  /** Container compiles at once; more are refused (`--containers`). */
  maxConcurrent: number;
}

export const CONTAINER_DEFAULTS: ContainerOptions = { memoryMb: 256, timeoutMs: 60_000, maxConcurrent: 2 };

const FROM_SOURCE = import.meta.url.endsWith('.ts');
const CHILD = fileURLToPath(new URL(FROM_SOURCE ? './container-child.ts' : './container-child.js', import.meta.url));

/** A container compile refused because as many as allowed are running. */
export class ContainersBusyError extends FlcError {
  constructor(max: number) {
    super('CONTAINERS_BUSY', `All ${max} container compiles are in use; try again shortly`);
    this.name = 'ContainersBusyError';
  }
}

/**
 * Compiles in a separate Node process per compile: a heap limit (`--max-old-space-size`), a time
 * limit (the process is killed), an empty environment (no store location, no secrets) and no
 * store; sources are read by the server's guarded reader and sent over IPC. A compile that runs
 * out of memory ends its own process only, and fails with a message that says so.
 * It has the pool's `compile` shape, so the server's one compile path (`runCompile`) drives it.
 */
export class ContainerCompiler {
  private running = 0;
  private probe: Promise<boolean> | undefined;

  constructor(readonly options: ContainerOptions = CONTAINER_DEFAULTS) {}

  get active(): number {
    return this.running;
  }

  /** Whether a child process can be started here (checked once). */
  available(): Promise<boolean> {
    this.probe ??= new Promise<boolean>((resolve) => {
      const child = spawn(process.execPath, [...this.nodeArgs(), '-e', '0'], { env: {}, stdio: 'ignore' });
      child.once('error', () => resolve(false));
      child.once('exit', (code) => resolve(code === 0));
    });
    return this.probe;
  }

  private nodeArgs(): string[] {
    return [`--max-old-space-size=${this.options.memoryMb}`, ...(FROM_SOURCE ? ['--import', 'tsx'] : [])];
  }

  async compile(config: Configuration, opts: PooledCompileOptions): Promise<PooledCompile> {
    if (this.running >= this.options.maxConcurrent) throw new ContainersBusyError(this.options.maxConcurrent);
    this.running += 1;
    try {
      return await this.inChild(config, opts);
    } finally {
      this.running -= 1;
    }
  }

  private inChild(config: Configuration, opts: PooledCompileOptions): Promise<PooledCompile> {
    const { memoryMb, timeoutMs } = this.options;
    const child: ChildProcess = spawn(process.execPath, [...this.nodeArgs(), CHILD], {
      env: {},
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'advanced',
    });
    const reads = new AbortController();
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => {
      if (stderr.length < 8192) stderr += d.toString('utf8');
    });
    return new Promise<PooledCompile>((resolve, reject) => {
      let settled = false;
      const end = (error: Error | null, value?: PooledCompile) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onAbort);
        reads.abort(new AbortedError('the container compile ended'));
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        if (error) reject(error);
        else resolve(value as PooledCompile);
      };
      const timer = setTimeout(() => end(new DeadlineError('The container compilation', timeoutMs)), timeoutMs);
      const onAbort = () => end(new AbortedError(opts.signal?.reason));
      if (opts.signal?.aborted) return onAbort();
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      const post = (m: ContainerMessage) => {
        if (child.connected) child.send(m);
      };
      child.on('message', (m: ContainerMessage) => {
        if (m.type === 'ready')
          post({
            type: 'compile',
            config,
            compiler: opts.compiler,
            nowMs: opts.now().getTime(),
            configured: configuredLocations(config, opts.reader),
          });
        if (m.type === 'event') opts.onEvent?.(m.event as CompileEvent);
        if (m.type === 'read')
          opts.reader.read(m.location, reads.signal, m.options).then(
            (text) => post({ type: 'read-result', id: m.id, text }),
            (e) => post({ type: 'read-result', id: m.id, error: toWire(e) }),
          );
        if (m.type === 'failed') end(fromWire(m.error));
        if (m.type === 'done')
          end(null, {
            lines: m.lineCount === 0 ? [] : m.text.split('\n'),
            ruleCount: m.ruleCount,
            compiledAt: new Date(m.compiledAtMs),
          });
      });
      child.once('error', (e) => end(new FlcError('CONTAINER_FAILED', `The container could not start: ${e.message}`)));
      child.once('exit', (code, signal) => {
        if (/heap out of memory|Allocation failed/i.test(stderr))
          return end(
            new FlcError(
              'MEMORY_LIMIT_EXCEEDED',
              `The container compilation ran out of memory (its limit is ${memoryMb} MB) and was stopped`,
            ),
          );
        end(
          new FlcError(
            'CONTAINER_FAILED',
            `The container compilation ended unexpectedly (${signal ?? `exit ${code}`})`,
          ),
        );
      });
    });
  }
}
