import type { z } from 'zod';
import { configurationSchema, type Configuration } from './schema.js';
import { normalizeAliases } from './aliases.js';
import { ConfigError, type ConfigIssue } from '../errors/config-error.js';

export { formatOf, parseConfigText, quickConfiguration, type ConfigFormat } from './read.js';

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
