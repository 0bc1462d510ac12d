// The entry of dist/flc-fast.cjs: the data commands with everything they load in one CommonJS
// file, which bin/run.js compiles with a V8 code cache (see bundle-loader.ts). The commands are
// the same classes oclif loads from dist/commands; only the lookup is skipped.
import { type Command, flush, handle } from '@oclif/core';
import AstWalk from '../commands/ast-walk.js';
import Compile from '../commands/compile.js';
import ValidateRule from '../commands/validate-rule.js';

/** For the walk's worker thread (walk-worker.ts), which runs the same code; loaded on demand, so a compile never initialises AGTree. */
export const walkModules = async () => ({ ...(await import('../core/ast/walk-json.js')), ...(await import('../core/ast/walk-tree.js')) });

export const FAST_COMMANDS = { compile: Compile, 'ast-walk': AstWalk, 'validate-rule': ValidateRule } as const;

type PackageJson = { oclif: Record<string, unknown> } & Record<string, unknown>;

/**
 * Runs command `id` with `argv` as `execute()` would after finding it: same flags, output,
 * errors and exit codes. The configuration is oclif's, from `pjson`, minus command discovery
 * (which would import every command module to build a manifest where none is shipped).
 * Returns 'usage' without printing anything when the arguments do not parse: oclif answers
 * those with the command's help, which needs the command list, so the caller runs `execute()`
 * (parsing has no side effects, so nothing has happened twice).
 */
export async function runFast(
  id: keyof typeof FAST_COMMANDS,
  argv: string[],
  root: string,
  pjson: PackageJson,
  extra: { walkHelper?: unknown } = {},
): Promise<'done' | 'usage'> {
  const command: Command.Class = FAST_COMMANDS[id];
  command.id = id;
  // `extra` rides along in the configuration's options (a walk worker bin/run.js started).
  const config = { root, pjson: { ...pjson, oclif: { ...pjson.oclif, commands: undefined } }, ...extra };
  try {
    await command.run(argv, config as never);
    // As execute() does: not awaited.
    void flush();
  } catch (error) {
    if ((error as { showHelp?: boolean }).showHelp) return 'usage';
    await handle(error as Error);
  }
  return 'done';
}
