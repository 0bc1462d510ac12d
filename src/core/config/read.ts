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
    // The parser's whole message: YAML's and TOML's carry the line, the column and a code frame.
    let message = (e as Error).message.trimEnd();
    if (format === 'json') message = jsonWhere(message, text);
    throw new ConfigError([{ path: '', message: `${format.toUpperCase()} syntax error: ${message}` }], {
      file,
      cause: e,
    });
  }
}

/**
 * V8's JSON message says where only as a character position (Node 20) or with the line and
 * column too (Node 22): this adds the line and column where missing, and a code frame.
 */
function jsonWhere(message: string, text: string): string {
  const position = /at position (\d+)/.exec(message);
  let line: number;
  let column: number;
  if (position) {
    const at = Math.min(Number(position[1]), text.length);
    const before = text.slice(0, at).split('\n');
    line = before.length;
    column = before[before.length - 1].length + 1;
  } else if (/Unexpected end of JSON input/.test(message)) {
    const lines = text.split('\n');
    line = lines.length;
    column = lines[lines.length - 1].length + 1;
  } else {
    return message;
  }
  const where = /\(line \d+ column \d+\)/.test(message) ? message : `${message} (line ${line} column ${column})`;
  return `${where}\n${codeFrame(text, line, column)}`;
}

/** The lines around `line` (1-based), numbered, with a caret under `column`. */
export function codeFrame(text: string, line: number, column: number): string {
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
