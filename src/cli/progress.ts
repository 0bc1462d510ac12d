import { SingleBar } from 'cli-progress';
import kleur from 'kleur';
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

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly opts: { tty: boolean; verbose: boolean; quiet: boolean },
  ) {}

  start(total: number): void {
    this.total = total;
    if (!this.opts.tty || this.opts.quiet || total === 0) return;
    this.bar = new SingleBar({
      stream: this.out,
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
        this.done += 1;
        this.bar?.update(this.done, { phase: `loaded ${e.source}: ${e.lineCount} lines` });
        this.bar?.render();
        if (!this.bar) {
          this.line(
            `source ${e.index + 1}/${this.total} loaded: ${e.source} ` +
              `(${e.lineCount} lines, ${Math.round(e.durationMs)} ms)`,
          );
        }
        break;
      case 'transformation:start':
        this.phase(`${where(e.scope)}: ${e.name}, ${e.inputCount} lines in`);
        break;
      case 'transformation:complete': {
        const counts = `${e.name} ${e.inputCount} -> ${e.outputCount} lines`;
        this.phase(`${where(e.scope)}: ${counts}`);
        if (this.opts.verbose) this.line(`${where(e.scope)}: ${counts} (${e.durationMs.toFixed(1)} ms)`);
        break;
      }
      case 'diagnostic': {
        const skipped = e.diagnostic.code === 'source-skipped' ? ' (skipped)' : '';
        this.line(`${kleur.yellow('warning')}: ${e.diagnostic.message}${skipped}`);
        break;
      }
      case 'log':
        if (e.level === 'warn') this.line(`${kleur.yellow('warning')}: ${e.message}`);
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
      this.out.write(`\r\x1b[K${message}\n`);
      this.bar.render();
    } else {
      this.out.write(`flc: ${message}\n`);
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
