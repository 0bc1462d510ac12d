/** The public library API of flc's core: pure, no IO of its own. */
export { compile, type CompileOptions, type CompileResult } from './pipeline/compile.js';
export type { CompileEvent, EventSink, Scope } from './pipeline/events.js';
export type { CompileReport, RemovedLine, TransformationStat, SourceStat } from './pipeline/report.js';
export {
  REMOVAL_CODES,
  DIAGNOSTIC_CODES,
  type Diagnostic,
  type RemovalCode,
  type DiagnosticCode,
} from './pipeline/diagnostics.js';
export { PatternSet, compilePattern } from './pipeline/patterns.js';
export {
  configurationSchema,
  sourceSchema,
  transformationNameSchema,
  type Configuration,
  type SourceConfig,
} from './config/schema.js';
export {
  parseConfigText,
  validateConfiguration,
  quickConfiguration,
  formatOf,
  type ConfigFormat,
  type ValidatedConfig,
} from './config/parse.js';
export { normalizeAliases } from './config/aliases.js';
export { TRANSFORMATIONS, VALIDATORS, planTransformations } from './transforms/registry.js';
export {
  TRANSFORMATION_NAMES,
  type Transformation,
  type TransformationName,
  type TransformContext,
} from './transforms/types.js';
export type { Lines } from './transforms/lines.js';
export { loadList, type LoadContext } from './load/load-list.js';
export type { SourceReader } from './load/source-reader.js';
export { splitText } from './load/split.js';
export { evaluateCondition, resolveConditions } from './load/conditions.js';
export { OUTPUT_FORMATS, formatLines, type OutputFormat } from './output/format.js';
export { listHeader, sourceHeader } from './output/header.js';
export {
  FlcError,
  ConfigError,
  SourceError,
  DirectiveError,
  PatternError,
  AbortedError,
  type ConfigIssue,
} from './errors/index.js';
export {
  validateRule,
  validateRuleRequestSchema,
  formatDuration,
  type ValidateRuleResult,
  type ValidRuleResult,
  type InvalidRuleResult,
} from './ast/validate-rule.js';
export { walkAst, astWalkRequestSchema, type WalkResult, type WalkNode } from './ast/walk.js';
export { walkTree, type WalkInput } from './ast/walk-tree.js';
export {
  parseRules,
  validateList,
  parseRulesRequestSchema,
  validateListRequestSchema,
  type ParsedRule,
  type ListValidation,
} from './ast/list.js';
export { parseRule } from './ast/parse-rule.js';
export { detectSyntax, SYNTAXES, type Syntax } from './ast/syntax.js';
export { matchHostname, type MatchOutcome } from './ast/match.js';
export { NODE_TYPES, type NodeType } from './ast/node-types.js';
export { InputError } from './errors/input-error.js';
