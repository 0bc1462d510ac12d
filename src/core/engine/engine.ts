/**
 * The compile engine: how the pipeline holds a list and runs a transformation over it. The
 * pipeline (pipeline/compile.ts) sees a list only through this interface and picks the engine
 * once per compile: `stringEngine`, the readable semantics every transformation's `apply`
 * defines, or `packedEngine` (packed-engine.ts), which holds lists as bytes and runs the fast
 * forms where they exist. Both give the same output, and report the same removed lines.
 */
import type { Lines } from '../transforms/lines.js';
import type { Transformation, TransformContext } from '../transforms/types.js';
import type { LoadContext } from '../load/load-list.js';
import { concatLines, keepWhere } from '../transforms/lines.js';
import { isComment } from '../rules/rule-text.js';
import { loadList } from '../load/load-list.js';

/**
 * A set's automaton on a line's bytes (pipeline/regex-dfa.ts), as the kernel reads it
 * (wasm/select.wat): from state `start`, the move on byte b from state s is
 * `table[s * DFA_ROW + b]`, the next state or a code (kernel-constants.ts, DFA); a line that ends
 * in state s matches when `ended[s]` is 1.
 */
export interface ByteAutomaton {
  readonly table: Int32Array;
  readonly ended: Uint8Array;
  readonly start: number;
}

/** An exclusion or inclusion set (pipeline/patterns.ts) as the filters' pass asks it. */
export interface LineSet {
  /** Whether some pattern matches the line; `unbroken`: the line is known to hold no line terminator. */
  has(line: string, unbroken?: boolean): boolean;
  /**
   * Per ASCII code unit, 0 when no pattern matches a line without line terminators that opens
   * with it; null when the patterns do not tell.
   */
  readonly openings: Uint8Array | null;
  /**
   * `has` of the ASCII line that starts at `at` in `text`, read where it stands: the line follows a
   * CR or LF or starts the text, and ends at one or at the text's end. Null when the set cannot.
   */
  readonly hasAt: ((text: string, at: number) => boolean) | null;
  /**
   * An automaton that answers `has` of a line of ASCII bytes without line terminators from its
   * bytes, with every state it can reach, when the set has one; else null. Made by the first call
   * with `make`; until then null.
   */
  byteAutomaton(make: boolean): ByteAutomaton | null;
}

export interface Engine<L> {
  readonly name: string;
  /** Reads one list with its `!#if` blocks and `!#include` directives resolved. */
  load(location: string, ctx: LoadContext): Promise<L>;
  /** Lines no source supplied (headers); `concat` gives them SYNTHETIC provenance beside tracked lines. */
  synthetic(text: string[]): L;
  concat(parts: L[], tracked: boolean): L;
  count(list: L): number;
  /** The text of line `i` (for reports). */
  text(list: L, i: number): string;
  /** `text` for a pass over every line of the list (the filters). */
  reader(list: L): (i: number) => string;
  /**
   * The filters' pass when no pattern need be named (no report): per line, 1 when whether `set`
   * matches it differs from `exclude`.
   */
  select(list: L, set: LineSet, exclude: boolean): Uint8Array;
  /** The provenance of line `i`, when the list carries it. */
  origin(list: L, i: number): number | undefined;
  /** The lines whose `keep` flag is 1; the list passed in is consumed. */
  keep(list: L, keep: Uint8Array): L;
  /** One transformation over the list, which is consumed. */
  apply(t: Transformation, list: L, ctx: TransformContext): L;
  /**
   * Why a list is not in this engine's fast form, as read or joined; with `t`, why `t` takes a list
   * in it out of it (asked before `t`), or took it out (asked of `t`'s output). Null when not.
   */
  fallback(list: L, t?: Transformation): string | null;
  /** The list as strings. */
  lines(list: L): Lines;
  /** A list of strings in this engine's form. */
  fromLines(lines: Lines): L;
  /** The list as written out: its lines joined with LF, UTF-8. */
  bytes(list: L): Uint8Array;
  /** Lines that are neither comments nor blank. */
  ruleCount(list: L): number;
}

const encoder = new TextEncoder();

/** The readable engine: a list is its lines as strings. */
export const stringEngine: Engine<Lines> = {
  name: 'strings',
  load: loadList,
  synthetic: (text) => ({ text }),
  concat: concatLines,
  count: (list) => list.text.length,
  text: (list, i) => list.text[i],
  reader: (list) => (i) => list.text[i],
  select(list, set, exclude) {
    const keep = new Uint8Array(list.text.length);
    for (let i = 0; i < keep.length; i += 1) if (set.has(list.text[i]) !== exclude) keep[i] = 1;
    return keep;
  },
  origin: (list, i) => list.from?.[i],
  keep: keepWhere,
  apply: (t, list, ctx) => t.apply(list, ctx),
  fallback: () => null,
  lines: (list) => list,
  fromLines: (lines) => lines,
  bytes: (list) => encoder.encode(list.text.join('\n')),
  ruleCount(list) {
    let n = 0;
    for (const l of list.text) if (l.trim().length > 0 && !isComment(l)) n += 1;
    return n;
  },
};
