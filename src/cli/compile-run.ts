// The work of `flc compile` (not its walk mode), shared by the oclif command and the bundled
// fast path: neither this module nor what it loads imports the CLI framework.
import { ProgressPrinter } from './progress.js';
import type { CompileFlags } from './compile-flags.js';

/** Compiles as the flags say: the list to `-o` (atomically) or stdout, progress and notes on stderr. */
export async function runCompile(flags: CompileFlags, version: string): Promise<void> {
  const { compileSettings, loadJobConfig } = await import('./compile-settings.js');
  const { runCompileJob } = await import('../node/compile-job.js');
  const note = (message: string) => process.stderr.write(`${message}\n`);
  const loaded = await loadJobConfig(flags, process.cwd());
  for (const warning of loaded.warnings) note(`Warning: ${warning}`);
  const progress = new ProgressPrinter(process.stderr, {
    tty: process.stderr.isTTY === true,
    verbose: flags.verbose === true,
    quiet: flags.quiet === true,
  });
  progress.start(loaded.config.sources.length);
  try {
    const { output, result } = await runCompileJob({
      ...compileSettings(flags, process.env, version),
      config: loaded.config,
      configFile: loaded.file,
      cwd: process.cwd(),
      onEvent: progress.handle,
    });
    progress.finish();
    if (flags.output) note(`flc: wrote ${result.ruleCount} rules (${result.lineCount} lines) to ${flags.output}`);
    else process.stdout.write(output);
  } finally {
    progress.finish();
  }
}
