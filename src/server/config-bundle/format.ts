import TOML from '@iarna/toml';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { ConfigError } from '../../core/errors/index.js';
import type { Bundle } from '../store/config-sections.js';

export const BUNDLE_FORMATS = ['json', 'yaml', 'toml'] as const;
export type BundleFormat = (typeof BUNDLE_FORMATS)[number];

export const BUNDLE_MEDIA_TYPES: Record<BundleFormat, string> = {
  json: 'application/json',
  yaml: 'application/yaml',
  toml: 'application/toml',
};

/** TOML has no null: fields that are null are left out (an import reads them back as null). */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== null)
        .map(([k, v]) => [k, withoutNulls(v)]),
    );
  return value;
}

export function serializeBundle(bundle: Bundle, format: BundleFormat): string {
  if (format === 'yaml') return stringifyYaml(bundle);
  if (format === 'toml') return TOML.stringify(withoutNulls(bundle) as TOML.JsonMap);
  return `${JSON.stringify(bundle, null, 2)}\n`;
}

/** The document in a bundle's text; bad syntax is a ConfigError naming where. */
export function parseBundleText(text: string, format: BundleFormat): unknown {
  try {
    if (format === 'yaml') return parseYaml(text);
    if (format === 'toml') return TOML.parse(text);
    return JSON.parse(text);
  } catch (err) {
    throw new ConfigError([{ path: '', message: `not valid ${format.toUpperCase()}: ${(err as Error).message}` }], {
      cause: err,
      file: 'the bundle',
    });
  }
}

/** The format a file name implies (`.yml`/`.yaml`, `.toml`, else JSON). */
export function formatOfFile(file: string): BundleFormat {
  if (/\.ya?ml$/i.test(file)) return 'yaml';
  if (/\.toml$/i.test(file)) return 'toml';
  return 'json';
}
