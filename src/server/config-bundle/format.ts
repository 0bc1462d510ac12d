import TOML from '@iarna/toml';
import { stringify as stringifyYaml } from 'yaml';
import { parseApart } from '../../node/parse-apart.js';
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

/** How deep a bundle may nest (a real one nests a handful of levels; the parsers recurse per level). */
export const MAX_BUNDLE_DEPTH = 100;

/**
 * An upper estimate of the text's nesting, read before any parser runs: open brackets and braces
 * outside quoted strings and comments, plus (YAML) a line's indentation and its compact `- `/`? `
 * markers. Over-counts rather than under-counts, at no more than a few levels for a real bundle.
 */
export function nestingDepth(text: string, format: BundleFormat): number {
  let deepest = 0;
  let flow = 0;
  let quote: '"' | "'" | null = null;
  let lineStart = true;
  let block = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quote) {
      if (ch === '\\' && quote === '"') i++;
      else if (ch === quote) quote = null;
      continue;
    }
    if (ch === '\n') {
      lineStart = true;
      block = 0;
      continue;
    }
    if (format === 'yaml' && lineStart) {
      if (ch === ' ' || ch === '\t') {
        block++;
        continue;
      }
      if ((ch === '-' || ch === '?') && (text[i + 1] === ' ' || text[i + 1] === '\t')) {
        block++;
        continue;
      }
      lineStart = false;
    }
    lineStart = false;
    const prev = i === 0 ? '\n' : text[i - 1];
    if ((ch === '"' || (ch === "'" && format !== 'json')) && /[\s:[{,=]/.test(prev)) quote = ch;
    else if (ch === '#' && format !== 'json' && /\s/.test(prev)) {
      const end = text.indexOf('\n', i);
      i = (end === -1 ? text.length : end) - 1;
    } else if (ch === '[' || ch === '{') flow++;
    else if ((ch === ']' || ch === '}') && flow > 0) flow--;
    deepest = Math.max(deepest, flow + block);
  }
  return deepest;
}

/**
 * The document in a bundle's text; bad syntax is a ConfigError naming where. A bundle nesting
 * deeper than MAX_BUNDLE_DEPTH is refused before it is parsed, with a message of its own (not the
 * parser's). YAML and TOML are parsed in a worker thread under a deadline (`parseApart`, one
 * document of `caller`'s at a time): their parsers are superlinear on hostile documents.
 */
export async function parseBundleText(text: string, format: BundleFormat, caller = ''): Promise<unknown> {
  const tooDeep = () =>
    new ConfigError([{ path: '', message: `nests deeper than ${MAX_BUNDLE_DEPTH} levels` }], { file: 'the bundle' });
  if (nestingDepth(text, format) > MAX_BUNDLE_DEPTH) throw tooDeep();
  if (format !== 'json') return parseApart(text, format, { caller, file: 'the bundle' });
  try {
    return JSON.parse(text);
  } catch (err) {
    // A parser running out of stack on a shape the estimate missed: the same refusal, never its internals.
    if (err instanceof RangeError || /Maximum call stack/.test(String((err as Error)?.message))) throw tooDeep();
    throw new ConfigError([{ path: '', message: `not valid JSON: ${(err as Error).message}` }], {
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
