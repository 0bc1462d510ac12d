// The work of `flc compile` (not its walk mode), shared by the oclif command and the bundled
// fast path: neither this module nor what it loads imports the CLI framework.
import { ProgressPrinter } from './progress.js';
import type { CompileFlags } from './compile-flags.js';
import type { RemovedLine } from '../core/pipeline/report.js';
import { dirname } from 'node:path';
import { InputError } from '../core/errors/index.js';
import { preparePublishing } from './publish-run.js';

/**
 * Compiles as the flags say: the list to `-o` (a regular file atomically, a device or pipe in
 * place) or stdout, progress and notes on stderr. Output targets are checked before any download.
 */
export async function runCompile(flags: CompileFlags, version: string): Promise<void> {
  const { compileSettings, loadJobConfig } = await import('./compile-settings.js');
  const { compile } = await import('../core/pipeline/compile.js');
  const { NodeSourceReader } = await import('../node/source-reader.js');
  const { openOutput, outputTarget, writeOutput } = await import('../node/atomic-write.js');
  const { removedLineText, streamedReport } = await import('./removed-lines.js');
  const note = (message: string) => process.stderr.write(`${message}\n`);
  // `-` (and /dev/stdout) names standard output, where the list goes without -o.
  const listTarget = await outputTarget(flags.output ?? '-', 'list');
  const reportTarget = flags.report === undefined ? null : await outputTarget(flags.report, 'report');
  if (reportTarget?.kind === 'stdio' && listTarget.kind === 'stdio' && reportTarget.stream === listTarget.stream) {
    throw new InputError([`--report ${flags.report} needs -o FILE: the list itself goes to standard output`]);
  }
  const loaded = await loadJobConfig(flags, process.cwd());
  for (const warning of loaded.warnings) note(`Warning: ${warning}`);
  const progress = new ProgressPrinter(() => process.stderr, {
    verbose: flags.verbose === true,
    quiet: flags.quiet === true,
  });
  await progress.start(loaded.config.sources.length);
  const reportStream = reportTarget ? openOutput(reportTarget) : null;
  const report = reportStream ? streamedReport(reportStream) : null;
  const verbose = flags.verbose === true;
  const onRemoved =
    report || verbose
      ? (line: RemovedLine) => {
          report?.removed(line);
          if (verbose) progress.note(removedLineText(line));
        }
      : undefined;
  try {
    const settings = compileSettings(flags, process.env, version);
    const publishing = await preparePublishing(flags, loaded.config, listTarget, settings.http.cacheDir, note);
    const onEvent = publishing.watch(progress.handle);
    const reader = new NodeSourceReader({
      onLog: (message) => onEvent({ type: 'log', level: 'info', message }),
      ...settings.http,
      keepLastGood: publishing.keepLastGood,
      baseDir: loaded.file ? dirname(loaded.file) : process.cwd(),
      stdin: process.stdin,
    });
    const result = await compile(loaded.config, {
      reader,
      compiler: settings.compiler,
      now: settings.now,
      onEvent,
      report: report !== null,
      onRemoved,
      onKept: report ? report.kept : undefined,
      format: settings.format,
      hostsAddresses: settings.hostsAddresses,
      packed: settings.packed,
      ...publishing.compileOptions,
    }).finally(() => reader.close());
    progress.finish();
    // With a publishing option, the list is published (publish.ts), else written as it is.
    const published = await publishing.publish(result);
    if (!published.handled) await writeOutput(listTarget, result.bytes());
    if (report && reportStream && result.report) {
      report.finish(result.report, published.changes ? { changes: published.changes } : {});
      await reportStream.commit();
    }
    if (listTarget.kind !== 'stdio' && !flags.quiet && !published.unchanged) {
      const rules = `${result.ruleCount} rule${result.ruleCount === 1 ? '' : 's'}`;
      const lines = result.lineCount + published.headerLines;
      note(`flc: wrote ${rules} (${lines} line${lines === 1 ? '' : 's'}) to ${flags.output}`);
    }
  } catch (error) {
    reportStream?.abort();
    throw error;
  } finally {
    progress.finish();
  }
}
