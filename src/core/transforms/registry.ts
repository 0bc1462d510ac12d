import type { Transformation, TransformationName } from './types.js';
import { convertToAscii } from './convert-to-ascii.js';
import { trimLines } from './trim-lines.js';
import { removeComments } from './remove-comments.js';
import { compress } from './compress.js';
import { removeModifiers } from './remove-modifiers.js';
import { invertAllow } from './invert-allow.js';
import { validators } from './validate.js';
import { deduplicate } from './deduplicate.js';
import { removeEmptyLines } from './remove-empty-lines.js';
import { insertFinalNewLine } from './insert-final-newline.js';

/**
 * Every transformation in execution order. The order is fixed whatever order a
 * configuration lists them in; it is the order of the reference compiler.
 */
export const TRANSFORMATIONS: readonly Transformation[] = [
  convertToAscii,
  trimLines,
  removeComments,
  compress,
  removeModifiers,
  invertAllow,
  ...validators,
  deduplicate,
  removeEmptyLines,
  insertFinalNewLine,
];

/** At most one of these (the Validate variants) may be selected for a list, and not at both levels. */
export const VALIDATORS: readonly TransformationName[] = validators.map((t) => t.name);

/** The validators among `list`, in its order (the schema asks for a list and at both levels). */
export function validatorsIn(list: readonly string[] | undefined): string[] {
  return (list ?? []).filter((t) => (VALIDATORS as readonly string[]).includes(t));
}

/** The selected transformations, in execution order. */
export function planTransformations(selected: readonly TransformationName[]): Transformation[] {
  const wanted = new Set(selected);
  return TRANSFORMATIONS.filter((t) => wanted.has(t.name));
}
