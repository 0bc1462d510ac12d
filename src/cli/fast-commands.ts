// The entry of dist/flc-fast.cjs: the data commands with everything they load in one CommonJS
// file, which bin/run.js compiles with a V8 code cache (see bundle-loader.cts). The commands are
// the same classes oclif loads from dist/commands; only the lookup is skipped. A compile whose
// words compile-flags.ts reads for certain runs without oclif at all, which is loaded only to
// report an error the way the command would.
import type { Command } from '@oclif/core';
import { readPlainCompileArgv } from './compile-flags.js';
import { reportError } from './exit-codes.js';

/**
 * For the walk's worker thread (walk-worker.ts), which runs the same code; loaded on demand, so a compile never
 * initialises AGTree.
 */
export const walkModules = async () => ({
  ...(await import('../core/ast/walk-json.js')),
  ...(await import('../core/ast/walk-tree.js')),
});

type FastCommandId = 'compile' | 'ast-walk' | 'validate-rule' | 'explain';

/** The command classes (which load oclif), when a run needs them. */
async function commandClass(id: FastCommandId): Promise<Command.Class> {
  if (id === 'compile') return (await import('../commands/compile.js')).default;
  if (id === 'ast-walk') return (await import('../commands/ast-walk.js')).default;
  if (id === 'explain') return (await import('../commands/explain.js')).default;
  return (await import('../commands/validate-rule.js')).default;
}

type PackageJson = { version: string; oclif: Record<string, unknown> } & Record<string, unknown>;

/**
 * Runs command `id` with `argv` as `execute()` would after finding it: same flags, output,
 * errors and exit codes. The configuration is oclif's, from `pjson`, minus command discovery
 * (which would import every command module to build a manifest where none is shipped).
 * Returns 'done'; a parse error is reported by the command's catch (BaseCommand), as under oclif.
 */
export async function runFast(
  id: FastCommandId,
  argv: string[],
  root: string,
  pjson: PackageJson,
  extra: { walkHelper?: unknown } = {},
): Promise<'done'> {
  const flags = id === 'compile' ? readPlainCompileArgv(argv) : null;
  if (flags) {
    const { runCompile } = await import('./compile-run.js');
    try {
      await runCompile(flags, pjson.version);
    } catch (error) {
      // What Compile's catch does with it.
      process.exitCode = reportError(error as Error, { command: 'flc compile' });
    }
    return 'done';
  }
  const [command, { flush, handle }] = await Promise.all([commandClass(id), import('@oclif/core')]);
  command.id = id;
  // `extra` rides along in the configuration's options (a walk worker bin/run.js started).
  const config = { root, pjson: { ...pjson, oclif: { ...pjson.oclif, commands: undefined } }, ...extra };
  try {
    await command.run(argv, config as never);
    // As execute() does: not awaited.
    void flush();
  } catch (error) {
    await handle(error as Error);
  }
  return 'done';
}
