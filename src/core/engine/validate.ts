/** Validate on packed lists: the WebAssembly kernel's verdicts, and the readable check for the rest. */
import { dropWithAbove } from '../transforms/lines.js';
import { normalizeIpRule } from '../rules/ip-normalize.js';
import { isWhitespaceCode } from '../rules/rule-text.js';
import { rewriteSome } from './line-steps.js';
import { ABOVE_INVALID } from '../transforms/validate.js';
import type { TransformContext } from '../transforms/types.js';
import { fullRuleProblem, SUPPORTED_MODIFIERS, type ValidityOptions } from '../rules/rule-validity.js';
import { copyPlan, isCommentAt, keepWherePacked, lineText, type PackedLines } from './packed.js';
import { align, copyList, KERNEL_BASE, PSL_NODE_SLOTS, pslNodeSet } from './kernel.js';
import { VERDICT } from './kernel-constants.js';

const { UNDECIDED, KEPT } = VERDICT;

/** SUPPORTED_MODIFIERS for the kernel: each name's length in a byte, then its bytes; a 0 ends them. */
const MODIFIER_NAMES = Uint8Array.from([
  ...[...SUPPORTED_MODIFIERS].flatMap((name) => [name.length, ...new TextEncoder().encode(name)]),
  0,
]);

/**
 * Per line, what `fullRuleProblem` decides where the WebAssembly kernel can tell it on bytes
 * (`verdicts` in wasm/validate.wat), whatever allowPublicSuffix: 1 (kept) for `||name^` and
 * `@@||name^`, with supported modifiers or none, whose clean name cannot be its own public suffix
 * (the Public Suffix List's rules trie has no node for one of its labels: `pslNodeSet`);
 * DROPPED_* for a plain IPv4 address in that shape (kept with `allowIp`), a pattern with a
 * character that cannot be in a domain name, and an unsupported modifier; UNDECIDED for the
 * rest, on a copy of the list in the kernel's memory. Null where the engine has no WebAssembly or
 * no memory that large.
 */
export function kernelVerdicts(lines: PackedLines, allowIp = false): Uint8Array | null {
  const n = lines.start.length;
  const mods = MODIFIER_NAMES;
  const plan = copyPlan(lines);
  const inStart = align(KERNEL_BASE + plan.size);
  const inEnd = inStart + 4 * n;
  const flags = inEnd + 4 * n;
  const psl = align(flags + n);
  const modsAt = psl + 4 * PSL_NODE_SLOTS;
  // Before the copy: the set is built in the same memory.
  const set = pslNodeSet();
  const memory = copyList(lines, plan, inStart, inEnd, modsAt + mods.length);
  if (memory === null) return null;
  const { buffer } = memory.memory;
  if (set !== null) new Int32Array(buffer, psl, PSL_NODE_SLOTS).set(set);
  new Uint8Array(buffer, modsAt, mods.length).set(mods);
  const pslAt = set === null ? 0 : psl;
  memory.kernel.verdicts(inStart, inEnd, n, flags, pslAt, PSL_NODE_SLOTS - 1, modsAt, allowIp ? 1 : 0);
  return new Uint8Array(buffer, flags, n);
}

/**
 * Whether `normalizeIpRule` may rewrite the line b[s, e): an IP pattern holds only digits, `.`,
 * `|`, `^` and `*` and ends at the first `$` (any other `$` would be in it), so every byte before
 * that `$` is one of those, `@`, whitespace or outside ASCII (which `trim()` may remove), and one
 * is a digit. The other lines are not decoded.
 */
export function mayBeIpRule(b: Uint8Array, s: number, e: number): boolean {
  let digit = false;
  for (let j = s; j < e && b[j] !== 36; j += 1) {
    const c = b[j];
    if (c >= 48 && c <= 57) digit = true;
    else if (c !== 46 && c !== 124 && c !== 94 && c !== 42 && c !== 64 && c < 128 && !isWhitespaceCode(c)) return false;
  }
  return digit;
}

/**
 * A validator's packed form: for the IP variants, the IP rules rewritten first as the readable
 * form rewrites them (`normalizeIpRule`, on the lines `mayBeIpRule` picks); then the kernel's
 * verdicts, and `fullRuleProblem` of the lines it leaves undecided (of every line where no kernel
 * memory can be had). Walking from the end, the comments and empty lines directly above a dropped
 * rule go with it.
 */
export function validatePacked(opts: ValidityOptions) {
  return (input: PackedLines, ctx: TransformContext): PackedLines => {
    const lines = opts.allowIp ? rewriteSome(input, mayBeIpRule, (t) => normalizeIpRule(t) ?? t) : input;
    const verdicts = kernelVerdicts(lines, opts.allowIp);
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
