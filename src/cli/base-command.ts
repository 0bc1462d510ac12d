import { Command } from '@oclif/core';
import { ConfigError, FlcError, InputError, PatternError } from '../core/errors/index.js';

/** Exit codes: 0 ok, 1 the operation failed, 2 the input (flags or configuration) is wrong. */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

/**
 * The one place CLI errors become an exit code and a one-line message
 * (oclif adds the JSON envelope under `--json`).
 */
export abstract class BaseCommand extends Command {
  protected override async catch(err: Error & { oclif?: { exit?: number } }): Promise<unknown> {
    if (err.oclif) return super.catch(err);
    if (err instanceof ConfigError || err instanceof PatternError || err instanceof InputError) return super.catch(this.asCliError(err, EXIT.usage));
    if (err instanceof FlcError) return super.catch(this.asCliError(err, EXIT.failure));
    return super.catch(this.asCliError(err, EXIT.failure));
  }

  private asCliError(err: Error, exit: number): Error {
    try {
      this.error(err.message, { exit, code: (err as FlcError).code });
    } catch (cliError) {
      // oclif reads `exitCode` when it reports an error as JSON, `oclif.exit` otherwise.
      return Object.assign(cliError as Error, { exitCode: exit });
    }
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
