import type { Lines } from './lines.js';
import type { PackedLines } from './packed.js';
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
  /**
   * The same transformation on a packed list, where it pays; the pipeline unpacks the
   * list for a transformation without one. Output equals `apply`'s line for line.
   * The list passed in is consumed: the transformation may overwrite its arrays (filtering
   * moves kept lines up in place) and write after its `used` bytes, so the caller passes a
   * list nothing else will read and uses only the list returned.
   */
  applyPacked?(lines: PackedLines, ctx: TransformContext): PackedLines;
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
