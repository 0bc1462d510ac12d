/**
 * The fast engine: a list travels packed (transforms/packed.ts: UTF-8 bytes and line ranges),
 * and a transformation runs its packed form where it has one. A step without one, or a text
 * that cannot be packed, hands the list over to strings for the rest of its scope (`fallback`
 * says so, and the pipeline reports it).
 */
import type { Engine } from './engine.js';
import type { Lines } from '../transforms/lines.js';
import { stringEngine } from './engine.js';
import { loadListPacked } from '../load/load-list.js';
import { syntheticLines } from '../transforms/lines.js';
import { joinInKernel } from '../transforms/kernel.js';
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
} from '../transforms/packed.js';

const asLines = (list: ListData): Lines => (isPacked(list) ? unpackLines(list) : list);

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
    return isPacked(list) && t.applyPacked ? t.applyPacked(list, ctx) : t.apply(asLines(list), ctx);
  },
  fallback(list, t) {
    if (!isPacked(list)) return t ? null : 'its text (or a list it includes) is not well-formed Unicode';
    return t && !t.applyPacked ? `${t.name} works on text` : null;
  },
  lines: asLines,
  fromLines: (lines) => lines,
  bytes: (list) => (isPacked(list) ? (joinInKernel(list) ?? joinPacked(list)) : stringEngine.bytes(list)),
  ruleCount: (list) => (isPacked(list) ? countPackedRules(list) : stringEngine.ruleCount(list)),
};
