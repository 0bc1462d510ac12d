/** What the package (src/index.ts) exports of the core: pure, no IO of its own. */
export type { CompileOptions, CompileResult } from './pipeline/compile.js';
export type { CompileEvent } from './pipeline/events.js';
export type { CompileReport, KeptRule, RemovedLine } from './pipeline/report.js';
export {
  explain,
  explainDomain,
  concerns,
  type Explanation,
  type ExplainInput,
  type ExplainedRule,
  type ExplainedRemoval,
} from './explain/explain.js';
export { parseExplainReport } from './explain/report-input.js';
export type { Diagnostic } from './pipeline/diagnostics.js';
export { configurationSchema, sourceSchema, type Configuration, type SourceConfig } from './config/schema.js';
export type { IConfiguration, ISource, SourceType } from './config/reference-types.js';
export { parseConfigText, validateConfiguration, quickConfiguration } from './config/parse.js';
export { TRANSFORMATIONS, VALIDATORS } from './transforms/registry.js';
export { TRANSFORMATION_NAMES, type Transformation, type TransformationName } from './transforms/types.js';
export type { SourceReader } from './load/source-reader.js';
export { OUTPUT_FORMATS, FORMATS, type OutputFormat, type FormatSpec } from './output/formats.js';
export { hostsAddresses } from './output/format.js';
export {
  FlcError,
  ConfigError,
  SourceError,
  DirectiveError,
  PatternError,
  AbortedError,
  InputError,
} from './errors/index.js';
export { validateRule, type ValidateRuleResult } from './ast/validate-rule.js';
export { walkAst } from './ast/walk.js';
export { walkTree, type WalkResult } from './ast/walk-tree.js';
export { parseRules, validateList } from './ast/list.js';
export { NODE_TYPES } from './ast/node-types.js';
