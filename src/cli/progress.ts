import kleur from 'kleur';
import type { CompileEvent } from '../core/pipeline/events.js';

const BAR_WIDTH = 24;

/**
 * Prints compile progress on stderr: a redrawn bar on a terminal, plain lines
 * otherwise (CI logs). Verbose mode adds one line per transformation.
 */
export class ProgressPrinter {
  private total = 0;
  private done = 0;
  private barShown = false;

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly opts: { tty: boolean; verbose: boolean; quiet: boolean },
  ) {}

  start(total: number): void {
    this.total = total;
  }

  readonly handle = (e: CompileEvent): void => {
    if (this.opts.quiet) return;
    switch (e.type) {
      case 'source:complete':
        this.done += 1;
        this.line(`source ${e.index + 1}/${this.total} loaded: ${e.source} (${e.lineCount} lines, ${Math.round(e.durationMs)} ms)`);
        break;
      case 'source:error':
        this.done += 1;
        this.line(`${kleur.red(e.skipped ? 'skipped' : 'failed')}: source ${e.source}: ${e.error}`, true);
        break;
      case 'transformation:complete':
        if (this.opts.verbose) {
          const where = e.scope.kind === 'global' ? 'list' : `source ${e.scope.index + 1}`;
          this.line(`${where}: ${e.name} ${e.inputCount} -> ${e.outputCount} lines (${e.durationMs.toFixed(1)} ms)`);
        }
        break;
      case 'diagnostic':
        this.line(`${kleur.yellow('warning')}: ${e.diagnostic.message}`, true);
        break;
      case 'log':
        if (e.level !== 'debug' || this.opts.verbose) this.line(e.message);
        break;
      default:
        break;
    }
  };

  /** Clears the bar before the command's last words. */
  finish(): void {
    if (this.barShown) this.out.write('\r\x1b[K');
    this.barShown = false;
  }

  private line(message: string, always = false): void {
    if (this.opts.tty) {
      if (always || this.opts.verbose) {
        this.finish();
        this.out.write(`${message}\n`);
      }
      this.drawBar();
    } else {
      this.out.write(`flc: ${message}\n`);
    }
  }

  private drawBar(): void {
    if (this.total === 0) return;
    const filled = Math.round((this.done / this.total) * BAR_WIDTH);
    const bar = '#'.repeat(filled) + '-'.repeat(BAR_WIDTH - filled);
    this.out.write(`\r\x1b[K[${bar}] ${this.done}/${this.total} sources`);
    this.barShown = true;
  }
}
