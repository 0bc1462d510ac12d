// `flc compile`'s flag values without oclif: the defaults and checks its oclif definitions use
// (commands/compile.ts), and a reader for the plain argument lists CI scripts pass, so that the
// bundled fast path can compile without loading the CLI framework (bench/RESULTS.md says what that saves). Anything
// this reader does not take for certain goes to oclif, which parses it and reports every error.
import { OUTPUT_FORMATS, type OutputFormat } from '../core/output/formats.js';

export const INPUT_TYPES = ['hosts', 'adblock'] as const;
export const SOURCE_ERROR_MODES = ['fail', 'skip', 'stale'] as const;

export const COMPILE_DEFAULTS = {
  'input-type': 'hosts',
  timeout: 30,
  retries: 3,
  concurrency: 8,
  'ast-walk-depth': 50,
} as const;

/** `--timeout`: positive seconds, fractions allowed. */
export function parseTimeout(input: string): number {
  const seconds = Number(input);
  if (!(seconds > 0)) {
    // oclif passes this error on as it is: `oclif.exit` makes it a usage error (exit 2), as the help says.
    const message = `--timeout must be a positive number of seconds, got "${input}"`;
    throw Object.assign(new Error(message), { oclif: { exit: 2 } });
  }
  return seconds;
}

/** The flags a compile (not the walk mode) runs with. */
export interface CompileFlags {
  config?: string;
  input?: string[];
  'input-type': string;
  output?: string;
  verbose?: boolean;
  quiet?: boolean;
  report?: string;
  /** Unset: the configuration's `format`, else adblock. */
  format?: OutputFormat;
  'hosts-address'?: string[];
  timeout: number;
  retries: number;
  concurrency: number;
  'cache-dir'?: string;
  'no-cache'?: boolean;
  'on-source-error'?: string;
  // Publishing (publish-flags.ts); oclif reads these, the plain reader below leaves them to it.
  'diff-patches'?: string;
  'diff-name'?: string;
  'diff-resolution'?: 'h' | 'm' | 's';
  'diff-expiry'?: number;
  'diff-checksum'?: boolean;
  'diff-keep'?: string;
  'max-shrink'?: number;
  'min-rules'?: number;
  'max-stale'?: string;
  'compare-to'?: string;
  'check-dns'?: boolean;
  'dns-server'?: string[];
  'dns-concurrency'?: number;
  'dns-timeout'?: number;
  'dns-recheck'?: string;
  'dns-budget'?: string;
}

type ValueFlag = keyof CompileFlags;
// Maps, not object literals: a word like `--constructor` must find nothing.
const BOOLEANS = new Map<string, 'verbose' | 'quiet' | 'no-cache'>([
  ['verbose', 'verbose'],
  ['v', 'verbose'],
  ['quiet', 'quiet'],
  ['q', 'quiet'],
  ['no-cache', 'no-cache'],
]);
const VALUES = new Map<string, ValueFlag>([
  ['config', 'config'],
  ['c', 'config'],
  ['input', 'input'],
  ['i', 'input'],
  ['input-type', 'input-type'],
  ['t', 'input-type'],
  ['output', 'output'],
  ['o', 'output'],
  ['report', 'report'],
  ['format', 'format'],
  ['hosts-address', 'hosts-address'],
  ['timeout', 'timeout'],
  ['retries', 'retries'],
  ['concurrency', 'concurrency'],
  ['cache-dir', 'cache-dir'],
  ['on-source-error', 'on-source-error'],
]);
const CHOICES: Partial<Record<ValueFlag, readonly string[]>> = {
  'input-type': INPUT_TYPES,
  format: OUTPUT_FORMATS,
  'on-source-error': SOURCE_ERROR_MODES,
};
const MINIMUM: Partial<Record<ValueFlag, number>> = { retries: 0, concurrency: 1 };

/**
 * `argv` read as oclif reads it, when every word is `--name VALUE`, `--name=VALUE`, `-x VALUE`
 * or a boolean flag of a compile; null for anything else: walk mode, help, positional words,
 * grouped or attached short flags, values that start with `-` or are empty, a flag given twice,
 * `-c` with `-i`, and every value oclif would refuse. Null sends the words to oclif.
 */
export function readPlainCompileArgv(argv: readonly string[]): CompileFlags | null {
  const flags: CompileFlags = {
    'input-type': COMPILE_DEFAULTS['input-type'],
    timeout: COMPILE_DEFAULTS.timeout,
    retries: COMPILE_DEFAULTS.retries,
    concurrency: COMPILE_DEFAULTS.concurrency,
  };
  const given = new Set<string>();
  for (let k = 0; k < argv.length; k += 1) {
    const word = argv[k];
    let name: string;
    let inline: string | undefined;
    if (word.startsWith('--')) {
      const eq = word.indexOf('=');
      name = eq === -1 ? word.slice(2) : word.slice(2, eq);
      inline = eq === -1 ? undefined : word.slice(eq + 1);
    } else if (word.length === 2 && word[0] === '-') {
      name = word[1];
    } else {
      return null;
    }
    const boolean = BOOLEANS.get(name);
    const valued = VALUES.get(name);
    const key = boolean ?? valued;
    if (key === undefined || (given.has(key) && key !== 'input' && key !== 'hosts-address')) return null;
    given.add(key);
    if (boolean !== undefined) {
      if (inline !== undefined) return null;
      flags[boolean] = true;
      continue;
    }
    if (inline === undefined) k += 1;
    const value = inline ?? argv[k];
    if (value === undefined || value === '' || value.startsWith('-')) return null;
    if (!setValue(flags, valued!, value)) return null;
  }
  if (given.has('config') && given.has('input')) return null;
  return flags;
}

function setValue(flags: CompileFlags, key: ValueFlag, value: string): boolean {
  const choices = CHOICES[key];
  if (choices && !choices.includes(value)) return false;
  switch (key) {
    case 'input':
    case 'hosts-address':
      flags[key] = [...(flags[key] ?? []), value];
      return true;
    case 'timeout':
      try {
        flags.timeout = parseTimeout(value);
        return true;
      } catch {
        return false;
      }
    case 'retries':
    case 'concurrency':
      if (!/^\d{1,9}$/.test(value) || Number(value) < MINIMUM[key]!) return false;
      flags[key] = Number(value);
      return true;
    default:
      (flags as unknown as Record<string, string>)[key] = value;
      return true;
  }
}
