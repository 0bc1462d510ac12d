// Reading a configuration, apart from validating it (parse.ts), which loads the schema library.
import type { Configuration } from './schema.js';
import { ConfigError } from '../errors/config-error.js';

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

/** Quick mode (`flc compile -i`): the reference's fixed configuration over some inputs. */
export function quickConfiguration(inputs: readonly string[], type: 'hosts' | 'adblock' = 'hosts'): Configuration {
  return {
    name: 'Blocklist',
    sources: inputs.map((source) => ({ source, type })),
    transformations: ['RemoveComments', 'Deduplicate', 'Compress', 'Validate', 'TrimLines', 'InsertFinalNewLine'],
  };
}
