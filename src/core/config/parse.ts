import { z } from 'zod';
import { configurationSchema, sourceSchema, type Configuration } from './schema.js';
import { closest, didYouMean } from './suggest.js';
import { TRANSFORMATION_NAMES } from '../transforms/types.js';
import { normalizeAliases } from './aliases.js';
import { ConfigError, type ConfigIssue } from '../errors/config-error.js';

export { formatOf, parseConfigText, quickConfiguration, type ConfigFormat } from './read.js';

/** The keys an object at `path` may have: a source's or the configuration's. */
function knownKeys(path: readonly PropertyKey[]): string[] {
  const inSource = path.length === 2 && path[0] === 'sources';
  return Object.keys(inSource ? sourceSchema.shape : configurationSchema.shape);
}

/** The value at `path` in `raw`. */
function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let value = raw;
  for (const part of path) value = (value as Record<PropertyKey, unknown> | undefined)?.[part];
  return value;
}

/** The issues of a failed validation of `raw`, each with a suggestion where a name looks mistyped. */
export function issuesOf(error: z.ZodError, raw?: unknown): ConfigIssue[] {
  return error.issues.map((issue) => {
    const path = z.core.toDotPath(issue.path);
    if (issue.code === 'unrecognized_keys') {
      const keys = issue.keys
        .map((k) => {
          const match = closest(k, knownKeys(issue.path));
          return match === undefined ? `"${k}"` : `"${k}" (did you mean "${match}"?)`;
        })
        .join(', ');
      return { path, message: `unknown key${issue.keys.length > 1 ? 's' : ''} ${keys}` };
    }
    const input = valueAt(raw, issue.path);
    if (issue.code === 'invalid_value' && issue.path.includes('transformations') && typeof input === 'string') {
      const hint = didYouMean(input, TRANSFORMATION_NAMES) || ` Known: ${TRANSFORMATION_NAMES.join(', ')}.`;
      return { path, message: `unknown transformation "${input}".${hint}` };
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
  if (!result.success) throw new ConfigError(issuesOf(result.error, value), { file });
  return { config: result.data, warnings };
}
