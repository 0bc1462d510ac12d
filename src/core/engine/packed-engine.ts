/**
 * The fast engine: a list travels packed (transforms/packed.ts: UTF-8 bytes and line ranges),
 * and a transformation runs its packed form where it has one. A step without one, or a text
 * that cannot be packed, hands the list over to strings for the rest of its scope (`fallback`
 * says so, and the pipeline reports it).
 */
import type { Engine } from './engine.js';
import type { Transformation, TransformationName, TransformContext } from '../transforms/types.js';
import { compressPacked } from './compress.js';
import { deduplicatePacked } from './deduplicate.js';
import { validatePacked } from './validate.js';
import {
  convertToAsciiPacked,
  insertFinalNewLinePacked,
  removeCommentsPacked,
  removeEmptyLinesPacked,
  removeModifiersPacked,
  trimLinesPacked,
} from './line-steps.js';
import type { Lines } from '../transforms/lines.js';
import { stringEngine } from './engine.js';
import { loadListPacked } from '../load/load-list.js';
import { syntheticLines } from '../transforms/lines.js';
import { joinInKernel } from './kernel.js';
import {
  concatPacked,
  countPackedRules,
  isPacked,
  joinPacked,
  keepWherePacked,
  lineText,
  type ListData,
  packStrings,
  type PackedLines,
  unpackLines,
} from './packed.js';

const asLines = (list: ListData): Lines => (isPacked(list) ? unpackLines(list) : list);

/**
 * The packed form of each transformation that has one: output equal to its `apply`, line for
 * line, with the same provenance and removal records. A form consumes the list it is given: it
 * may overwrite its arrays (filtering moves kept lines up in place) and write after its `used`
 * bytes. The validators that rewrite IP rules first have none.
 */
export const PACKED_FORMS: Partial<
  Record<TransformationName, (list: PackedLines, ctx: TransformContext) => PackedLines>
> = {
  TrimLines: trimLinesPacked,
  RemoveComments: removeCommentsPacked,
  RemoveEmptyLines: removeEmptyLinesPacked,
  InsertFinalNewLine: insertFinalNewLinePacked,
  ConvertToAscii: convertToAsciiPacked,
  RemoveModifiers: removeModifiersPacked,
  Compress: compressPacked,
  Deduplicate: deduplicatePacked,
  Validate: validatePacked({ allowIp: false, allowPublicSuffix: false }),
  ValidateAllowPublicSuffix: validatePacked({ allowIp: false, allowPublicSuffix: true }),
};

const packedForm = (t: Transformation) => PACKED_FORMS[t.name];

export const packedEngine: Engine<ListData> = {
  name: 'packed',
  load: loadListPacked,
  synthetic: (text, tracked) => packStrings(text, tracked ? syntheticLines(text, true).from : undefined),
  concat(parts, tracked) {
    if (parts.every(isPacked)) return concatPacked(parts as PackedLines[], tracked);
    return stringEngine.concat(parts.map(asLines), tracked);
  },
  count: (list) => (isPacked(list) ? list.start.length : list.text.length),
  text: (list, i) => (isPacked(list) ? lineText(list, i) : list.text[i]),
  origin: (list, i) => list.from?.[i],
  keep: (list, keep) => (isPacked(list) ? keepWherePacked(list, keep) : stringEngine.keep(list, keep)),
  apply(t, list, ctx) {
    const form = packedForm(t);
    return isPacked(list) && form ? form(list, ctx) : t.apply(asLines(list), ctx);
  },
  fallback(list, t) {
    if (!isPacked(list)) return t ? null : 'its text (or a list it includes) is not well-formed Unicode';
    return t && !packedForm(t) ? `${t.name} works on text` : null;
  },
  lines: asLines,
  fromLines: (lines) => lines,
  bytes: (list) => (isPacked(list) ? (joinInKernel(list) ?? joinPacked(list)) : stringEngine.bytes(list)),
  ruleCount: (list) => (isPacked(list) ? countPackedRules(list) : stringEngine.ruleCount(list)),
};
