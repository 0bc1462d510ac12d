import { dirname } from 'node:path';
import { compile, type CompileResult } from '../core/pipeline/compile.js';
import type { Configuration } from '../core/config/schema.js';
import type { EventSink } from '../core/pipeline/events.js';
import type { OutputFormat } from '../core/output/formats.js';
import { NodeSourceReader, type NodeReaderOptions } from './source-reader.js';
import { writeFileAtomic } from './atomic-write.js';

export interface CompileJob {
  config: Configuration;
  /** The configuration file, whose folder relative sources resolve against; else the cwd. */
  configFile?: string;
  cwd: string;
  output?: string;
  reportFile?: string;
  format: OutputFormat;
  compiler: string;
  http: Omit<NodeReaderOptions, 'baseDir'>;
  now?: () => Date;
  onEvent?: EventSink;
  signal?: AbortSignal;
}

/**
 * Compiles with the Node reader, then writes the list and the report atomically.
 * Returns the list's bytes as well, for stdout when there is no output file.
 */
export async function runCompileJob(job: CompileJob): Promise<{ output: Uint8Array; result: CompileResult }> {
  const onLog = (message: string) => job.onEvent?.({ type: 'log', level: 'info', message });
  const reader = new NodeSourceReader({
    onLog,
    ...job.http,
    baseDir: job.configFile ? dirname(job.configFile) : job.cwd,
  });
  let result: CompileResult;
  try {
    result = await compile(job.config, {
      reader,
      compiler: job.compiler,
      now: job.now,
      onEvent: job.onEvent,
      signal: job.signal,
      report: job.reportFile !== undefined,
      format: job.format,
    });
  } finally {
    await reader.close();
  }
  const output = result.bytes();
  if (job.output) await writeFileAtomic(job.output, output);
  if (job.reportFile) await writeFileAtomic(job.reportFile, `${JSON.stringify(result.report, null, 2)}\n`);
  return { output, result };
}
