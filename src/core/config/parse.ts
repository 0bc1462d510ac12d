import { z } from 'zod';
import type { ParseError } from 'jsonc-parser';
import { configurationSchema, sourceSchema, type Configuration } from './schema.js';
import { closest, didYouMean } from './suggest.js';
import { TRANSFORMATION_NAMES } from '../transforms/types.js';
import { normalizeAliases } from './aliases.js';
import { ConfigError, type ConfigIssue } from '../errors/index.js';

/** The issues of a failed validation of `raw`, each with a suggestion where a name looks mistyped. */
function issuesOf(error: z.ZodError, raw: unknown): ConfigIssue[] {
  return error.issues.map((issue) => ({ ...issueOf(issue, raw), ...inSource(issue.path, raw) }));
}

/** Which source an issue is about, by name or path, for messages that group one mistake over many. */
function inSource(path: PropertyKey[], raw: unknown): Pick<ConfigIssue, 'source'> {
  const [key, index] = path;
  if (key !== 'sources' || typeof index !== 'number') return {};
  const source = ((raw as { sources?: unknown[] }).sources?.[index] ?? {}) as Record<string, unknown>;
  const named = [source.name, source.source].find((v) => typeof v === 'string' && v.trim() !== '');
  const label = typeof named === 'string' ? named : `sources[${index}]`;
  return { source: { label, path: z.core.toDotPath(path.slice(2)) } };
}

function issueOf(issue: z.core.$ZodIssue, raw: unknown): ConfigIssue {
  const path = z.core.toDotPath(issue.path);
  if (issue.code === 'unrecognized_keys') {
    const ofSource = issue.path.length === 2 && issue.path[0] === 'sources';
    const known = Object.keys(ofSource ? sourceSchema.shape : configurationSchema.shape);
    const keys = issue.keys
      .map((k) => {
        const match = closest(k, known);
        return match === undefined ? `"${k}"` : `"${k}" (did you mean "${match}"?)`;
      })
      .join(', ');
    return { path, message: `unknown key${issue.keys.length > 1 ? 's' : ''} ${keys}` };
  }
  // The value at the issue's path (zod's final issues leave it out).
  const input = issue.path.reduce<unknown>((v, part) => (v as Record<PropertyKey, unknown> | undefined)?.[part], raw);
  if (issue.code === 'invalid_value' && issue.path.includes('transformations') && typeof input === 'string') {
    const hint = didYouMean(input, TRANSFORMATION_NAMES) || ` Known: ${TRANSFORMATION_NAMES.join(', ')}.`;
    return { path, message: `unknown transformation "${input}".${hint}` };
  }
  if (issue.code === 'invalid_type' && input === undefined) return { path, message: 'is required' };
  return { path, message: issue.message };
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
    // The parser's whole message: YAML's and TOML's carry the line, the column and a code frame.
    let message = (e as Error).message.trimEnd();
    if (format === 'json') message = jsonWhere(message, text, await jsonErrorOffset(text));
    throw new ConfigError([{ path: '', message: `${format.toUpperCase()} syntax error: ${message}` }], {
      file,
      cause: e,
    });
  }
}

/**
 * Where JSON.parse stopped, as a character offset: V8's messages say it for some errors only
 * ("Unexpected token ']', …" has no position), so jsonc-parser (VS Code's JSON scanner, in
 * strict JSON mode) finds the first error; the message stays V8's.
 */
async function jsonErrorOffset(text: string): Promise<number> {
  const { parse } = await import('jsonc-parser');
  const errors: ParseError[] = [];
  parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  return errors[0]?.offset ?? text.length;
}

/**
 * V8's JSON message says where as a character position (Node 20), with the line and column too
 * (Node 22), or not at all: this adds the line and column where missing, and a code frame.
 */
function jsonWhere(raw: string, text: string, offset: number): string {
  // V8 quotes the text around the error, line breaks and all: the code frame below shows it better.
  const message = raw.replace(/, (?:"|\.\.\.)[\s\S]*" is not valid JSON$/, '');
  const position = /at position (\d+)/.exec(message);
  const before = text.slice(0, position ? Number(position[1]) : offset).split('\n');
  const line = before.length;
  const column = before[before.length - 1].length + 1;
  const where = /\(line \d+ column \d+\)/.test(message) ? message : `${message} (line ${line} column ${column})`;
  return `${where}\n${codeFrame(text, line, column)}`;
}

/** The lines around `line` (1-based), numbered, with a caret under `column`. */
function codeFrame(text: string, line: number, column: number): string {
  const lines = text.split('\n');
  const first = Math.max(1, line - 2);
  const last = Math.min(lines.length, line + 1);
  const width = String(last).length;
  const out: string[] = [];
  for (let n = first; n <= last; n += 1) {
    out.push(`${n === line ? '>' : ' '} ${String(n).padStart(width)} | ${lines[n - 1].replace(/\r$/, '')}`);
    if (n === line) out.push(`  ${' '.repeat(width)} | ${' '.repeat(Math.max(0, column - 1))}^`);
  }
  return out.join('\n');
}

/** Quick mode (`flc compile -i`): the reference's fixed configuration over some inputs. */
export function quickConfiguration(inputs: readonly string[], type: 'hosts' | 'adblock' = 'hosts'): Configuration {
  return {
    name: 'Blocklist',
    sources: inputs.map((source) => ({ source, type })),
    transformations: ['RemoveComments', 'Deduplicate', 'Compress', 'Validate', 'TrimLines', 'InsertFinalNewLine'],
  };
}
