import type { Lines } from './lines.js';
import type { RemovalCode } from '../pipeline/diagnostics.js';

/** What a transformation may use besides its input. */
export interface TransformContext {
  /** True when removed lines are recorded (a report was requested). */
  readonly reporting: boolean;
  /** Records one removed line; only called when `reporting` is true. */
  removed(line: string, origin: number | undefined, code: RemovalCode, message: string): void;
}

export interface Transformation {
  readonly name: TransformationName;
  readonly summary: string;
  apply(lines: Lines, ctx: TransformContext): Lines;
}

export const TRANSFORMATION_NAMES = [
  'RemoveComments',
  'Compress',
  'RemoveModifiers',
  'Validate',
  'ValidateAllowIp',
  'ValidateAllowPublicSuffix',
  'ValidateAllowIpAndPublicSuffix',
  'Deduplicate',
  'InvertAllow',
  'RemoveEmptyLines',
  'TrimLines',
  'InsertFinalNewLine',
  'ConvertToAscii',
] as const;

export type TransformationName = (typeof TRANSFORMATION_NAMES)[number];
