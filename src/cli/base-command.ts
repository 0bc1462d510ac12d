import { Command } from '@oclif/core';
import { asCliError } from './exit-codes.js';

/**
 * The commands' base: errors become an exit code and a one-line message (exit-codes.ts; oclif
 * adds the JSON envelope under `--json`), data goes to stdout and notes to stderr.
 */
export abstract class BaseCommand extends Command {
  protected override async catch(err: Error & { oclif?: { exit?: number } }): Promise<unknown> {
    return super.catch(asCliError(err, (message, options) => this.error(message, options)));
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
