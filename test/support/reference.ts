import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { compile } from '../../src/core/pipeline/compile.js';
import type { Configuration } from '../../src/core/config/schema.js';
import { NodeSourceReader, DEFAULT_HTTP } from '../../src/node/source-reader.js';

const require = createRequire(import.meta.url);
const referencePath = require.resolve('@adguard/hostlist-compiler');
// The reference logs through consola v2; silence it so test output stays readable.
createRequire(referencePath)('consola').level = -1;
const referenceCompile = require('@adguard/hostlist-compiler') as (config: unknown) => Promise<string[]>;

/** Lines that legitimately differ between two runs: the compile time and the compiler. */
export function stripVolatile(lines: string[]): string[] {
  return lines.filter((l) => !l.startsWith('! Last modified:') && !l.startsWith('! Compiled by'));
}

/** The reference compiler's output for a configuration (sources must be absolute paths). */
export async function referenceOutput(config: unknown): Promise<string[]> {
  return stripVolatile(await referenceCompile(structuredClone(config)));
}

/**
 * flc's two engines, as `compile` chooses them: the packed one (the default; it works on bytes
 * where it can) and the plain TypeScript one (`packed: false`); `packed+report` asks the packed
 * one for a report of every removed line, which `compile` then runs on strings (packed lists keep
 * no provenance): it checks that choice, and the string engine's provenance-keeping paths.
 */
export const ENGINES = ['packed', 'strings', 'packed+report'] as const;
export type Engine = (typeof ENGINES)[number];

/** flc's output for the same configuration, from one engine. */
export async function flcOutput(config: Configuration, engine: Engine = 'packed'): Promise<string[]> {
  const reader = new NodeSourceReader({ ...DEFAULT_HTTP, baseDir: '/', cacheDir: null, userAgent: 'flc-test' });
  try {
    const result = await compile(config, {
      reader,
      compiler: 'flc vtest',
      packed: engine !== 'strings',
      report: engine === 'packed+report',
    });
    return stripVolatile(result.lines);
  } finally {
    await reader.close();
  }
}

/** The first differing line, for readable failures. */
export function firstDifference(a: string[], b: string[]): string | null {
  for (let i = 0; i < Math.max(a.length, b.length); i += 1) {
    if (a[i] !== b[i]) return `line ${i}: reference ${JSON.stringify(a[i])} vs flc ${JSON.stringify(b[i])}`;
  }
  return null;
}

const requireTransformation = createRequire(join(dirname(referencePath), 'transformations/validate.js'));
type ListFn = (rules: string[]) => string[];
/** The reference's own four Validate transformations, each over a list of rules. */
export const referenceValidators: Record<string, ListFn> = {
  Validate: requireTransformation('./validate.js').validate,
  ValidateAllowIp: requireTransformation('./validate-allow-ip.js').validateAllowIp,
  ValidateAllowPublicSuffix: requireTransformation('./validate-allow-public-suffix.js').validateAllowPublicSuffix,
  ValidateAllowIpAndPublicSuffix: requireTransformation('./validate-allow-ip-and-public-suffix.js')
    .validateAllowIpAndPublicSuffix,
};
