/** flc as a library: the core compiler API plus the Node adapters that read sources. */
import { createRequire } from 'node:module';
import { compile as compileWith, type CompileOptions, type CompileResult } from './core/pipeline/compile.js';
import { validateConfiguration } from './core/config/parse.js';
import { DEFAULT_HTTP, NodeSourceReader, userAgentOf } from './node/source-reader.js';

/**
 * Compiles a filter list. With only a configuration (the reference's API, `compile(config)` of
 * `@adguard/hostlist-compiler`), the configuration is validated, local files (relative to the working
 * directory) and URLs are read with the Node reader, and the list's lines come back. With options,
 * the sources are read through `options.reader` and the whole result comes back.
 */
export function compile(config: unknown): Promise<string[]>;
export function compile(config: Configuration, options: CompileOptions): Promise<CompileResult>;
export async function compile(config: unknown, options?: CompileOptions): Promise<string[] | CompileResult> {
  if (options) return compileWith(config as Configuration, options);
  const { config: valid, warnings } = validateConfiguration(config);
  for (const warning of warnings) process.emitWarning(warning, 'DeprecationWarning');
  const { version } = createRequire(import.meta.url)('../package.json') as { version: string };
  const reader = new NodeSourceReader({
    ...DEFAULT_HTTP,
    baseDir: process.cwd(),
    cacheDir: null,
    userAgent: userAgentOf(version),
  });
  try {
    return (await compileWith(valid, { reader, compiler: `flc v${version}` })).lines;
  } finally {
    await reader.close();
  }
}

export default compile;
export { DEFAULT_HTTP, NodeSourceReader, type NodeReaderOptions } from './node/source-reader.js';

export {
  configurationSchema,
  sourceSchema,
  validateConfiguration,
  parseConfigText,
  quickConfiguration,
  TRANSFORMATIONS,
  TRANSFORMATION_NAMES,
  VALIDATORS,
  OUTPUT_FORMATS,
  FORMATS,
  hostsAddresses,
  explain,
  explainDomain,
  concerns,
  parseExplainReport,
  FlcError,
  ConfigError,
  SourceError,
  DirectiveError,
  PatternError,
  AbortedError,
  InputError,
  validateRule,
  walkAst,
  walkTree,
  parseRules,
  validateList,
  NODE_TYPES,
} from './core/index.js';
import type { Configuration } from './core/index.js';
export type {
  CompileOptions,
  CompileResult,
  CompileEvent,
  CompileReport,
  KeptRule,
  RemovedLine,
  Explanation,
  ExplainInput,
  ExplainedRule,
  ExplainedRemoval,
  FormatSpec,
  Configuration,
  SourceConfig,
  IConfiguration,
  ISource,
  SourceType,
  SourceReader,
  Transformation,
  TransformationName,
  OutputFormat,
  Diagnostic,
  ValidateRuleResult,
  WalkResult,
} from './core/index.js';
