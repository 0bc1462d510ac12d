/** Validate on packed lists: the WebAssembly kernel's verdicts, and the readable check for the rest. */
import { dropWithAbove } from '../transforms/lines.js';
import { ABOVE_INVALID } from '../transforms/validate.js';
import type { TransformContext } from '../transforms/types.js';
import { fullRuleProblem, SUPPORTED_MODIFIERS, type ValidityOptions } from '../rules/rule-validity.js';
import { isCommentAt, keepWherePacked, lineText, type PackedLines } from './packed.js';
import { align, copyList, KERNEL_BASE, PSL_NODE_SLOTS, pslNodeSet } from './kernel.js';

/**
 * `verdicts`' codes (compress-kernel.wat): the TypeScript decides (0), kept (1), or one of three
 * reasons to drop (2-4: an IP address, a character outside a domain name, an unsupported
 * modifier), which only the tests read: a report gives `fullRuleProblem`'s reason.
 */
const UNDECIDED = 0;
const KEPT = 1;

/** SUPPORTED_MODIFIERS for the kernel: each name's length in a byte, then its bytes; a 0 ends them. */
const MODIFIER_NAMES = Uint8Array.from([
  ...[...SUPPORTED_MODIFIERS].flatMap((name) => [name.length, ...new TextEncoder().encode(name)]),
  0,
]);

/**
 * Per line, what `fullRuleProblem` decides for the validators without allowIp where the
 * WebAssembly kernel can tell it on bytes (`verdicts` in compress-kernel.wat): 1 (kept) for
 * `||name^` and `@@||name^`, with supported modifiers or none, whose clean name cannot be its
 * own public suffix (the Public Suffix List's rules trie has no node for one of its labels:
 * `pslNodeSet`); DROPPED_* for a
 * plain IPv4 address in that shape, a pattern with a character that cannot be in a domain name,
 * and an unsupported modifier; UNDECIDED for the rest, on a copy of the list in the kernel's
 * memory. Null where the engine has no WebAssembly or no memory that large.
 */
export function kernelVerdicts(lines: PackedLines): Uint8Array | null {
  const n = lines.start.length;
  const mods = MODIFIER_NAMES;
  const inStart = align(KERNEL_BASE + lines.used);
  const inEnd = inStart + 4 * n;
  const flags = inEnd + 4 * n;
  const psl = align(flags + n);
  const modsAt = psl + 4 * PSL_NODE_SLOTS;
  // Before the copy: the set is built in the same memory.
  const set = pslNodeSet();
  const memory = copyList(lines, inStart, inEnd, modsAt + mods.length);
  if (memory === null) return null;
  const { buffer } = memory.memory;
  if (set !== null) new Int32Array(buffer, psl, PSL_NODE_SLOTS).set(set);
  new Uint8Array(buffer, modsAt, mods.length).set(mods);
  memory.kernel.verdicts(inStart, inEnd, n, flags, set === null ? 0 : psl, PSL_NODE_SLOTS - 1, modsAt);
  return new Uint8Array(buffer, flags, n);
}

/**
 * A validator's packed form, for the options without allowIp (IP rules are rewritten before the
 * check, which stays in string form): the kernel's verdicts, and `fullRuleProblem` of the lines
 * it leaves undecided (of every line where no kernel memory can be had). Walking from the end,
 * the comments and empty lines directly above a dropped rule go with it.
 */
export function validatePacked(opts: ValidityOptions) {
  return (lines: PackedLines, ctx: TransformContext): PackedLines => {
    const verdicts = kernelVerdicts(lines);
    const text = (i: number) => lineText(lines, i);
    // A report gives the reason of every dropped line, which only `fullRuleProblem` words.
    const problem = (i: number) =>
      verdicts === null || verdicts[i] === UNDECIDED || (ctx.reporting && verdicts[i] !== KEPT)
        ? fullRuleProblem(text(i), opts)
        : verdicts[i] === KEPT
          ? null
          : 'invalid';
    const { start, end, from } = lines;
    const commentOrEmpty = (i: number) => start[i] === end[i] || isCommentAt(lines, i);
    const keep = dropWithAbove(start.length, text, from, ctx, problem, 'invalid-rule', ABOVE_INVALID, commentOrEmpty);
    return keepWherePacked(lines, keep);
  };
}
