/** Validate on packed lists: verdicts on bytes, and from the WebAssembly kernel where the list is in its memory. */
import { dropFromEnd } from '../transforms/lines.js';
import { StringTable } from '../transforms/string-table.js';
import {
  IP_NOT_ALLOWED,
  NON_DOMAIN_CHARACTERS,
  ruleProblemAt,
  SUPPORTED_MODIFIERS,
  type ValidityOptions,
} from '../rules/rule-validity.js';
import { isCommentAt, keepWherePacked, type PackedLines } from './packed.js';
import { align, holding, PSL_NODE_SLOTS, pslNodeSet } from './kernel.js';

/** `verdicts`' codes (compress-kernel.wat): the TypeScript decides, kept (1), and three reasons to drop. */
const UNDECIDED = 0;
const DROPPED_IP = 2;
const DROPPED_CHARACTERS = 3;
const DROPPED_MODIFIER = 4;

/** Slots of `modifierSet`: a power of two, at most a quarter full. */
const MODIFIER_SLOTS = 64;
let modifiers: Int32Array | null = null;

/**
 * SUPPORTED_MODIFIERS as the kernel's hash set (slots as in `pslNodeSet`): those ruleProblemAt
 * can meet as a single `$name` of `[a-z0-9_-]`, whatever is not in it being unsupported.
 */
function modifierSet(): Int32Array {
  if (modifiers !== null) return modifiers;
  const set = new Int32Array(MODIFIER_SLOTS);
  for (const name of SUPPORTED_MODIFIERS) {
    if (!/^[a-z0-9_-]+$/.test(name)) continue;
    const value = StringTable.hash(name) | 1;
    let i = StringTable.home(value) & (MODIFIER_SLOTS - 1);
    while (set[i] !== 0 && set[i] !== value) i = (i + 1) & (MODIFIER_SLOTS - 1);
    set[i] = value;
  }
  modifiers = set;
  return set;
}

/**
 * Per line, what `ruleProblemAt` decides on bytes, by the WebAssembly kernel (`verdicts` in
 * compress-kernel.wat), for the validators without allowIp: 1 (kept) for `||name^` and `@@||name^`
 * with a clean name that cannot be its own public suffix (it ends in `.com`, `.org`, `.net`,
 * `.edu`, `.gov` or `.de`, or the Public Suffix List's rules trie has no node for one of its
 * labels: `pslNodeSet`); DROPPED_* for a plain IPv4 address in that shape, a character that
 * cannot be in a domain name, and one unsupported modifier; UNDECIDED for the rest. The sets are
 * copied after the codes. Only for a list in a kernel memory (Compress's output, in place); null
 * otherwise, and every line gets `ruleProblemAt`.
 */
export function kernelVerdicts(lines: PackedLines): Uint8Array | null {
  const memory = holding(lines);
  if (memory === undefined) return null;
  const n = lines.start.length;
  const mods = align(memory.scratch + n);
  if (memory.scratchEnd - mods < 4 * MODIFIER_SLOTS) return null;
  new Int32Array(memory.buffer, mods, MODIFIER_SLOTS).set(modifierSet());
  const psl = mods + 4 * MODIFIER_SLOTS;
  const set = pslNodeSet();
  let at = 0;
  if (set !== null && memory.scratchEnd - psl >= 4 * PSL_NODE_SLOTS) {
    new Int32Array(memory.buffer, psl, PSL_NODE_SLOTS).set(set);
    at = psl;
  }
  memory.kernel.verdicts(
    lines.start.byteOffset,
    lines.end.byteOffset,
    n,
    memory.scratch,
    at,
    PSL_NODE_SLOTS - 1,
    mods,
    MODIFIER_SLOTS - 1,
  );
  return new Uint8Array(memory.buffer, memory.scratch, n);
}

/**
 * The problem a decided verdict stands for: null for a kept line (1), else the reason. A report
 * compiles on strings, so the modifier's name, which it would show, is not looked up.
 */
function verdictProblem(verdict: number): string | null {
  if (verdict === DROPPED_IP) return IP_NOT_ALLOWED;
  if (verdict === DROPPED_CHARACTERS) return NON_DOMAIN_CHARACTERS;
  if (verdict === DROPPED_MODIFIER) return 'unsupported modifier';
  return null;
}

/**
 * A validator's packed form, for the options without allowIp (IP rules are rewritten before the
 * check, which stays in string form). Walking from the end, the comments and empty lines
 * directly above a dropped rule go with it.
 */
export function validatePacked(opts: ValidityOptions) {
  return (lines: PackedLines): PackedLines => {
    const { bytes, start, end } = lines;
    const verdicts = kernelVerdicts(lines);
    const keep = dropFromEnd(
      start.length,
      (i) =>
        verdicts === null || verdicts[i] === UNDECIDED
          ? ruleProblemAt(bytes, start[i], end[i], opts)
          : verdictProblem(verdicts[i]),
      (i) => start[i] === end[i] || isCommentAt(lines, i),
      null,
    );
    return keepWherePacked(lines, keep);
  };
}
