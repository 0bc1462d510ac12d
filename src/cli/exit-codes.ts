// The one place CLI errors become an exit code and oclif's one-line message; BaseCommand and the
// bundled fast path (fast-commands.ts) both report through it. No oclif import: the caller passes
// oclif's `error`, so the fast path loads the framework only when something went wrong.
import { ConfigError, FlcError, InputError, PatternError } from '../core/errors/index.js';

/** Exit codes: 0 ok, 1 the operation failed, 2 the input (flags or configuration) is wrong. */
const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

function exitCodeFor(err: Error): number {
  return err instanceof ConfigError || err instanceof PatternError || err instanceof InputError ? EXIT.usage : EXIT.failure;
}

type Raise = (message: string, options: { exit: number; code?: string }) => never;

/** oclif's error for `err` (which `raise`, oclif's `error`, makes), or `err` when it is one already. */
export function asCliError(err: Error & { oclif?: { exit?: number } }, raise: Raise): Error & { exitCode?: number } {
  if (err.oclif) return err;
  const exit = exitCodeFor(err);
  try {
    raise(err.message, { exit, code: (err as FlcError).code });
  } catch (cliError) {
    // oclif reads `exitCode` when it reports an error as JSON, `oclif.exit` otherwise.
    return Object.assign(cliError as Error, { exitCode: exit });
  }
}
