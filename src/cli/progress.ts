import type { SingleBar } from 'cli-progress';
import { styleText } from 'node:util';
import type { CompileEvent, Scope } from '../core/pipeline/events.js';
import { writeAllSync } from '../node/atomic-write.js';

/**
 * Prints compile progress on stderr. On a terminal, a cli-progress bar counts the sources loaded
 * and shows the phase (downloading, then each transformation with the lines going in and out);
 * elsewhere (CI logs) plain lines. Verbose mode adds a line per transformation. Warnings are
 * printed whatever -q says.
 */
export class ProgressPrinter {
  private total = 0;
  private done = 0;
  private bar: SingleBar | null = null;
  /** Each source's lines as its last step left them, to say what the list's first count is made of. */
  private readonly sourceLines = new Map<number, number>();
  private joined = false;

  private stream: NodeJS.WriteStream | null = null;
  private label: string | null = null;

  /**
   * `out` may be given as a function, called when the printer first writes or asks whether it
   * writes to a terminal (`tty`, when not given): a quiet compile without warnings never opens
   * standard error (a pipe's stream loads the network modules).
   */
  constructor(
    private readonly out: NodeJS.WriteStream | (() => NodeJS.WriteStream),
    private readonly opts: { tty?: boolean; verbose: boolean; quiet: boolean },
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  private get output(): NodeJS.WriteStream {
    this.stream ??= typeof this.out === 'function' ? this.out() : this.out;
    return this.stream;
  }

  private get tty(): boolean {
    return this.opts.tty ?? this.output.isTTY === true;
  }

  /** `warning`, in yellow on a terminal that takes colors (`colors`). */
  private get warning(): string {
    this.label ??= colors(this.tty, this.env) ? styleText('yellow', 'warning', { validateStream: false }) : 'warning';
    return this.label;
  }

  /** Shows the bar where there is one (cli-progress, and the readline it loads, only then). */
  async start(total: number): Promise<void> {
    this.total = total;
    if (this.opts.quiet || total === 0 || !this.tty) return;
    const { SingleBar } = await import('cli-progress');
    this.bar = new SingleBar({
      stream: this.output,
      format: '[{bar}] {value}/{total} sources | {phase}',
      barsize: 24,
      hideCursor: true,
      clearOnComplete: true,
      fps: 10,
    });
    this.bar.start(total, 0, { phase: 'downloading' });
  }

  readonly handle = (e: CompileEvent): void => {
    // -q silences progress, never a warning.
    if (this.opts.quiet && !isWarning(e)) return;
    switch (e.type) {
      case 'source:start':
        this.phase(`downloading ${e.source}`);
        break;
      case 'source:complete':
        this.sourceLines.set(e.index, e.lineCount);
        this.done += 1;
        this.bar?.update(this.done, { phase: `loaded ${e.source}: ${e.lineCount} lines` });
        this.bar?.render();
        if (!this.bar) {
          this.line(
            `source ${e.index + 1}/${this.total} loaded: ${e.source} ` +
              `(${e.lineCount} line${e.lineCount === 1 ? '' : 's'}, ${Math.round(e.durationMs)} ms)`,
          );
        }
        break;
      case 'transformation:start':
        if (e.scope.kind === 'global' && !this.joined) this.joinedNote(e.inputCount);
        this.phase(`${where(e.scope)}: ${e.name}, ${e.inputCount} lines in`);
        break;
      case 'transformation:complete': {
        if (e.scope.kind === 'source') this.sourceLines.set(e.scope.index, e.outputCount);
        const counts = `${e.name} ${e.inputCount} -> ${e.outputCount} lines`;
        this.phase(`${where(e.scope)}: ${counts}`);
        if (this.opts.verbose) this.line(`${where(e.scope)}: ${counts} (${e.durationMs.toFixed(1)} ms)`);
        break;
      }
      case 'diagnostic': {
        const skipped = e.diagnostic.code === 'source-skipped' ? ' (skipped)' : '';
        this.line(`${this.warning}: ${e.diagnostic.message}${skipped}`);
        break;
      }
      case 'log':
        if (e.level === 'warn') this.line(`${this.warning}: ${e.message}`);
        // Info notes (a cached copy used, a retry) always; debug ones (where the engine goes on as strings) with -v.
        else if (this.opts.verbose || e.level === 'info') this.line(e.message);
        break;
      default:
        break;
    }
  };

  /**
   * A line of its own on this process's stderr, above the bar, written before this returns: `-v`
   * may print a line per removed rule during one transformation, which must not queue up.
   */
  note(message: string): void {
    if (this.bar) writeAllSync(2, '\r\x1b[K');
    writeAllSync(2, `${message}\n`);
  }

  /**
   * With -v, before the list's first step: the lines the sources give and the source header lines
   * (`!`, `! Source name:`, `! Source:`) the list's counts include besides, so the numbers add up.
   */
  private joinedNote(total: number): void {
    this.joined = true;
    if (!this.opts.verbose) return;
    const fromSources = [...this.sourceLines.values()].reduce((a, b) => a + b, 0);
    const n = this.sourceLines.size;
    this.line(
      `list: ${fromSources} lines from ${n} source${n === 1 ? '' : 's'} ` +
        `+ ${total - fromSources} source header lines = ${total} lines`,
    );
  }

  /** Removes the bar before the command's last words. */
  finish(): void {
    this.bar?.stop();
    this.bar = null;
  }

  /** Shows `text` now: cli-progress throttles its own redraws, and a step may run long after it. */
  private phase(text: string): void {
    this.bar?.update({ phase: text });
    this.bar?.render();
  }

  private line(message: string): void {
    if (this.bar) {
      this.output.write(`\r\x1b[K${message}\n`);
      this.bar.render();
    } else {
      this.output.write(`flc: ${message}\n`);
    }
  }
}

function where(scope: Scope): string {
  return scope.kind === 'global' ? 'list' : `source ${scope.index + 1}`;
}

/** Events that warn: a diagnostic (a skipped source among them), a warning logged. */
function isWarning(e: CompileEvent): boolean {
  return e.type === 'diagnostic' || (e.type === 'log' && e.level === 'warn');
}

/**
 * Whether what goes to a stream (a terminal: `tty`) is colored: as the color libraries decide,
 * from the stream written to, not from standard output (which a run with `-o` never opens).
 */
export function colors(tty: boolean, env: NodeJS.ProcessEnv): boolean {
  const forced = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0';
  return !env.NODE_DISABLE_COLORS && env.NO_COLOR === undefined && env.TERM !== 'dumb' && (forced || tty);
}
