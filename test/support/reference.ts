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
 * one for a report of every removed line as well, which keeps each line's provenance.
 */
export const ENGINES = ['packed', 'strings', 'packed+report'] as const;
export type Engine = (typeof ENGINES)[number];

async function flcCompile(config: Configuration, packed: boolean, report: boolean) {
  const reader = new NodeSourceReader({ ...DEFAULT_HTTP, baseDir: '/', cacheDir: null, userAgent: 'flc-test' });
  try {
    return await compile(config, { reader, compiler: 'flc vtest', packed, report });
  } finally {
    await reader.close();
  }
}

/** flc's output for the same configuration, from one engine. */
export async function flcOutput(config: Configuration, engine: Engine = 'packed'): Promise<string[]> {
  const result = await flcCompile(config, engine !== 'strings', engine === 'packed+report');
  return stripVolatile(result.lines);
}

/** flc's report of the removed lines and of each step's counts (not its time), from one engine. */
export async function flcReport(config: Configuration, packed: boolean) {
  const { report } = await flcCompile(config, packed, true);
  const steps = report!.transformations.map((t) => `${t.scope}:${t.name}:${t.inputCount}->${t.outputCount}`);
  return { removed: report!.removed, steps, sources: report!.sources.map((s) => [s.source, s.lineCount, s.error]) };
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
