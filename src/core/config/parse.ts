import type { z } from 'zod';
import { configurationSchema, type Configuration } from './schema.js';
import { normalizeAliases } from './aliases.js';
import { ConfigError, type ConfigIssue } from '../errors/config-error.js';

export type ConfigFormat = 'json' | 'yaml' | 'toml';

/** The format a file name implies; JSON when nothing else fits. */
export function formatOf(fileName: string): ConfigFormat {
  const lower = fileName.toLowerCase();
  if (lower.endsWith('.yaml') || lower.endsWith('.yml')) return 'yaml';
  if (lower.endsWith('.toml')) return 'toml';
  return 'json';
}

/**
 * Parses configuration text; syntax errors become a ConfigError saying where.
 * The YAML and TOML parsers load on first use, keeping start-up light.
 */
export async function parseConfigText(text: string, format: ConfigFormat, file?: string): Promise<unknown> {
  try {
    if (format === 'yaml') return (await import('yaml')).parse(text, { prettyErrors: true });
    if (format === 'toml') return (await import('@iarna/toml')).default.parse(text);
    return JSON.parse(text);
  } catch (e) {
    const message = (e as Error).message.split('\n')[0];
    throw new ConfigError([{ path: '', message: `${format.toUpperCase()} syntax error: ${message}` }], { file, cause: e });
  }
}

function pathText(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

export function issuesOf(error: z.ZodError): ConfigIssue[] {
  return error.issues.map((issue) => {
    const path = pathText(issue.path);
    if (issue.code === 'unrecognized_keys') {
      const keys = issue.keys.map((k) => `"${k}"`).join(', ');
      return { path, message: `unknown key${issue.keys.length > 1 ? 's' : ''} ${keys}` };
    }
    if (issue.code === 'invalid_type' && issue.input === undefined) return { path, message: 'is required' };
    return { path, message: issue.message };
  });
}

export interface ValidatedConfig {
  config: Configuration;
  warnings: string[];
}

/** Validates a parsed configuration object, accepting the deprecated aliases with warnings. */
export function validateConfiguration(raw: unknown, file?: string): ValidatedConfig {
  const { value, warnings } = normalizeAliases(raw);
  const result = configurationSchema.safeParse(value);
  if (!result.success) throw new ConfigError(issuesOf(result.error), { file });
  return { config: result.data, warnings };
}

/** Quick mode (`flc compile -i`): the reference's fixed configuration over some inputs. */
export function quickConfiguration(inputs: readonly string[], type: 'hosts' | 'adblock' = 'hosts'): Configuration {
  return {
    name: 'Blocklist',
    sources: inputs.map((source) => ({ source, type })),
    transformations: ['RemoveComments', 'Deduplicate', 'Compress', 'Validate', 'TrimLines', 'InsertFinalNewLine'],
  };
}
