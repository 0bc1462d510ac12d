import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { formatOf, parseConfigText, validateConfiguration, type ValidatedConfig } from '../core/config/parse.js';
import { ConfigError } from '../core/errors/index.js';

export interface LoadedConfig extends ValidatedConfig {
  file: string;
}

export const SEARCH_PLACES = [
  'package.json',
  '.flcrc',
  '.flcrc.json',
  '.flcrc.yaml',
  '.flcrc.yml',
  '.flcrc.toml',
  'flc.config.json',
  'flc.config.yaml',
  'flc.config.yml',
  'flc.config.toml',
];

/** Reads and validates one configuration file (JSON, YAML or TOML by extension). */
export async function loadConfigFile(file: string): Promise<LoadedConfig> {
  const path = resolve(file);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : (e as Error).message;
    throw new ConfigError([{ path: '', message: `cannot read ${file}: ${why}` }], { cause: e });
  }
  return { ...validateConfiguration(await parseConfigText(text, formatOf(path), file), file), file: path };
}

/** Finds a configuration in `cwd` the cosmiconfig way; null when there is none. */
export async function discoverConfig(cwd: string): Promise<LoadedConfig | null> {
  const loader = (format: 'json' | 'yaml' | 'toml') => (file: string, text: string) =>
    parseConfigText(text, format, file);
  const { cosmiconfig } = await import('cosmiconfig');
  const explorer = cosmiconfig('flc', {
    searchPlaces: SEARCH_PLACES,
    searchStrategy: 'none',
    loaders: {
      '.json': loader('json'),
      '.yaml': loader('yaml'),
      '.yml': loader('yaml'),
      '.toml': loader('toml'),
      noExt: loader('yaml'),
    },
  });
  const found = await explorer.search(cwd);
  if (!found) return null;
  if (found.isEmpty)
    throw new ConfigError([{ path: '', message: 'the configuration file is empty' }], { file: found.filepath });
  return { ...validateConfiguration(found.config, found.filepath), file: found.filepath };
}
