import { Command, Errors } from '@oclif/core';
import { asCliError, reportError } from './exit-codes.js';

/**
 * The commands' base: errors become an exit code and one line per failure (exit-codes.ts; oclif
 * adds the JSON envelope under `--json`), data goes to stdout and notes to stderr.
 */
export abstract class BaseCommand extends Command {
  protected override async catch(err: Error & { oclif?: { exit?: number } }): Promise<unknown> {
    if (err instanceof Errors.ExitError) throw err;
    if (this.jsonEnabled()) return super.catch(asCliError(err, (message, options) => this.error(message, options)));
    const code = reportError(err, {
      command: `${this.config.bin} ${this.id ?? ''}`.trim(),
      flags: Object.keys(this.ctor.flags ?? {}),
    });
    process.exitCode = code;
    // Printed already: oclif's handler only exits with the code.
    this.exit(code);
  }

  /** Writes data to stdout. */
  protected out(text: string): void {
    process.stdout.write(`${text}\n`);
  }

  /** `--json` output goes through the same stream as all other data. */
  override logJson(json: unknown): void {
    this.out(JSON.stringify(json, null, 2));
  }

  /** Writes a line to stderr (stdout is for data only). */
  protected note(message: string): void {
    process.stderr.write(`${message}\n`);
  }
}
