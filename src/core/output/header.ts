import type { Configuration } from '../config/schema.js';

/** The list header: title and metadata, the compile time, and the compiler. */
export function listHeader(config: Configuration, compiledAt: Date, compiler: string): string[] {
  const lines = ['!', `! Title: ${config.name}`];
  if (config.description) lines.push(`! Description: ${config.description}`);
  if (config.version) lines.push(`! Version: ${config.version}`);
  if (config.homepage) lines.push(`! Homepage: ${config.homepage}`);
  if (config.license) lines.push(`! License: ${config.license}`);
  lines.push(`! Last modified: ${compiledAt.toISOString()}`, '!', `! Compiled by ${compiler}`, '!');
  return lines;
}

/** The block that introduces one source's lines in the output. */
export function sourceHeader(source: { source: string; name?: string }): string[] {
  const lines = ['!'];
  if (source.name) lines.push(`! Source name: ${source.name}`);
  lines.push(`! Source: ${source.source}`, '!');
  return lines;
}
