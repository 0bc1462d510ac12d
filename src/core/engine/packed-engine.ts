/**
 * The fast engine: a list travels packed (packed.ts: UTF-8 bytes and line ranges), and a
 * transformation runs its packed form where it has one. A step without one, a kernel form the
 * kernel has no room for, or a text that cannot be packed hands the list over to strings for the
 * rest of its scope (`fallback` says so, and the pipeline reports it).
 */
import type { Engine } from './engine.js';
import type { Transformation, TransformationName, TransformContext } from '../transforms/types.js';
import { compressPacked } from './compress.js';
import { deduplicatePacked } from './deduplicate.js';
import { validatePacked } from './validate.js';
import { VALIDATOR_OPTIONS } from '../rules/validator-verdicts.js';
import {
  convertToAsciiPacked,
  insertFinalNewLinePacked,
  removeCommentsPacked,
  removeEmptyLinesPacked,
  removeModifiersPacked,
  trimLinesPacked,
} from './line-steps.js';
import { stringEngine } from './engine.js';
import { loadListPacked } from './load-packed.js';
import { joinInKernel } from './kernel.js';
import {
  asLines,
  concatPacked,
  countPackedRules,
  isPacked,
  keepWherePacked,
  lineReader,
  lineText,
  type ListData,
  packStrings,
  type PackedLines,
  selectPacked,
  unpackLines,
} from './packed.js';

/**
 * The packed form of each transformation that has one: output equal to its `apply`, line for
 * line, and the same removed lines reported to `ctx`, with the same reasons, in the same order.
 * A form consumes the list it is given: it may overwrite its arrays (filtering moves kept lines
 * up in place) and write after its `used` bytes. Null from a kernel form (Compress, Deduplicate)
 * means the kernel has no room for the list, which it has left as it was.
 */
export const PACKED_FORMS: Partial<
  Record<TransformationName, (list: PackedLines, ctx: TransformContext) => PackedLines | null>
> = {
  TrimLines: trimLinesPacked,
  RemoveComments: removeCommentsPacked,
  RemoveEmptyLines: removeEmptyLinesPacked,
  InsertFinalNewLine: insertFinalNewLinePacked,
  ConvertToAscii: convertToAsciiPacked,
  RemoveModifiers: removeModifiersPacked,
  Compress: compressPacked,
  Deduplicate: deduplicatePacked,
  Validate: validatePacked(VALIDATOR_OPTIONS.Validate),
  ValidateAllowIp: validatePacked(VALIDATOR_OPTIONS.ValidateAllowIp),
  ValidateAllowPublicSuffix: validatePacked(VALIDATOR_OPTIONS.ValidateAllowPublicSuffix),
  ValidateAllowIpAndPublicSuffix: validatePacked(VALIDATOR_OPTIONS.ValidateAllowIpAndPublicSuffix),
};

const packedForm = (t: Transformation) => PACKED_FORMS[t.name];

/** Joined lines of a list as UTF-8: by the kernel, or as strings where it has no memory that large. */
const joined = (list: PackedLines) => joinInKernel(list) ?? stringEngine.bytes(unpackLines(list));

export const packedEngine: Engine<ListData> = {
  name: 'packed',
  load: loadListPacked,
  synthetic: packStrings,
  concat: (parts, tracked) =>
    parts.every(isPacked) ? concatPacked(parts as PackedLines[]) : stringEngine.concat(parts.map(asLines), tracked),
  count: (list) => (isPacked(list) ? list.start.length : list.text.length),
  text: (list, i) => (isPacked(list) ? lineText(list, i) : list.text[i]),
  reader: (list) => (isPacked(list) ? lineReader(list) : stringEngine.reader(list)),
  select: (list, set, exclude) =>
    isPacked(list) ? selectPacked(list, set, exclude) : stringEngine.select(list, set, exclude),
  origin: (list, i) => list.from?.[i],
  keep: (list, keep) => (isPacked(list) ? keepWherePacked(list, keep) : stringEngine.keep(list, keep)),
  apply(t, list, ctx) {
    const form = packedForm(t);
    if (!isPacked(list) || !form) return t.apply(asLines(list), ctx);
    // A kernel form the kernel has no room for leaves the list to the readable form.
    return form(list, ctx) ?? t.apply(unpackLines(list), ctx);
  },
  fallback(list, t) {
    if (isPacked(list)) return t && !packedForm(t) ? `${t.name} works on text` : null;
    if (t) return `${t.name} finds no room in the WebAssembly kernel's memory`;
    return 'its text (or a list it includes) is not well-formed Unicode, or no WebAssembly memory could be had for it';
  },
  lines: asLines,
  fromLines: (lines) => lines,
  bytes: (list) => (isPacked(list) ? joined(list) : stringEngine.bytes(list)),
  ruleCount: (list) => (isPacked(list) ? countPackedRules(list) : stringEngine.ruleCount(list)),
};
