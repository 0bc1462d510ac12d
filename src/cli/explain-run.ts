// The work of `flc explain`: a compile that keeps only the lines about the domain (or a report
// file read), then the core's answer, printed.
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { COMPILE_DEFAULTS, type CompileFlags } from './compile-flags.js';
import { InputError } from '../core/errors/index.js';
import {
  explain,
  explainCollector,
  explainDomain,
  type Explanation,
  type ExplainedRule,
} from '../core/explain/explain.js';
import type { OutputFormat } from '../core/output/formats.js';

export interface ExplainFlags {
  config?: string;
  'from-report'?: string;
  format?: OutputFormat;
  'no-cache'?: boolean;
}

/** The explanation for `domain`, from a compile of the configuration or from a report file. */
export async function runExplain(domain: string, flags: ExplainFlags, version: string): Promise<Explanation> {
  const name = explainDomain(domain);
  if (flags['from-report']) return explain(name, await readReport(flags['from-report']));
  const { compileSettings, loadJobConfig } = await import('./compile-settings.js');
  const { compile } = await import('../core/pipeline/compile.js');
  const { NodeSourceReader } = await import('../node/source-reader.js');
  const compileFlags: CompileFlags = { ...COMPILE_DEFAULTS, config: flags.config, format: flags.format };
  if (flags['no-cache']) compileFlags['no-cache'] = true;
  const loaded = await loadJobConfig(
    compileFlags,
    process.cwd(),
    'no configuration: pass -c FILE or --from-report FILE, or add flc.config.json here',
  );
  for (const warning of loaded.warnings) process.stderr.write(`Warning: ${warning}\n`);
  const settings = compileSettings(compileFlags, process.env, version);
  const reader = new NodeSourceReader({
    ...settings.http,
    baseDir: loaded.file ? dirname(loaded.file) : process.cwd(),
  });
  const collector = explainCollector(name);
  const result = await compile(loaded.config, {
    reader,
    compiler: settings.compiler,
    format: settings.format,
    packed: settings.packed,
    onKept: collector.onKept,
    onRemoved: collector.onRemoved,
  }).finally(() => reader.close());
  for (const d of result.diagnostics) {
    if (d.code === 'source-skipped') process.stderr.write(`warning: ${d.message} (skipped)\n`);
  }
  return explain(name, collector.input(settings.format ?? loaded.config.format ?? 'adblock'));
}

async function readReport(file: string) {
  const { parseExplainReport } = await import('../core/explain/report-input.js');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new InputError([
      `cannot read the report ${file}: ${code === 'ENOENT' ? 'no such file' : (e as Error).message}`,
    ]);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new InputError([`${file} is not JSON: ${(e as Error).message}`]);
  }
  return parseExplainReport(json, file);
}

const where = (r: Pick<ExplainedRule, 'source' | 'line'>) =>
  r.source === null ? '' : `  (${r.source}${r.line === null ? '' : `:${r.line}`})`;

function covers(r: ExplainedRule): string {
  const what = r.subdomains ? `${r.name} and its subdomains` : r.name;
  const modifiers = r.modifiers.length > 0 ? `, only with ${r.modifiers.map((m) => `$${m}`).join(', ')}` : '';
  return `${r.kind === 'allow' ? 'allows' : 'blocks'} ${what}${r.important ? ' ($important)' : ''}${modifiers}`;
}

/** The human answer: the verdict, the kept rules about the domain, the ones removed on the way. */
export function explanationText(e: Explanation): string {
  const lines = [`${e.domain}: ${e.blocked ? 'blocked' : 'not blocked'} (${e.format} format)`];
  if (e.decidedBy) lines.push(`decided by ${e.decidedBy.text}${where(e.decidedBy)}`);
  lines.push(e.rules.length > 0 ? 'kept rules about it:' : 'no kept rule is about it');
  for (const r of e.rules) lines.push(`  ${r.text}${where(r)}: ${covers(r)}`);
  if (e.removed.length > 0) lines.push('removed on the way:');
  for (const r of e.removed) lines.push(`  ${r.text}${where(r)}: ${r.transformation}: ${r.reason} (${r.code})`);
  return lines.join('\n');
}
