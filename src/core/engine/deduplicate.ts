/** Deduplicate on packed lists, in the WebAssembly kernel. */
import { copyPlan, isCommentAt, keepWherePacked, lineText, type PackedLines } from './packed.js';
import { ABOVE_DUPLICATE, DUPLICATE } from '../transforms/deduplicate.js';
import type { TransformContext } from '../transforms/types.js';
import { dropWithAbove } from '../transforms/lines.js';
import { align, copyList, KERNEL_BASE, tableCapacity } from './kernel.js';
import { HASH_TABLE } from './kernel-constants.js';

const { SLOT_BYTES, ENTRY_BYTES } = HASH_TABLE;

/**
 * Deduplicate (`deduplicate.apply`, transforms/deduplicate.ts) on a packed list, by the keep flags
 * (those `dropWithAbove` gives) of the WebAssembly kernel (kernel.ts), on a copy of its bytes and
 * line ranges. Null where the engine gives no memory that large.
 */
export function deduplicatePacked(lines: PackedLines, ctx: TransformContext): PackedLines | null {
  const n = lines.start.length;
  const capacity = tableCapacity(n);
  // The ranges, the keep bytes, a byte per line for its comments, then the table.
  const plan = copyPlan(lines);
  const inStart = align(KERNEL_BASE + plan.size);
  const inEnd = inStart + 4 * n;
  const keep = inEnd + 4 * n;
  const comments = keep + align(n);
  const slots = comments + align(n);
  const entries = slots + SLOT_BYTES * capacity;
  // No filter: Deduplicate only adds (wasm/hash-table.wat, `$filtered`).
  const memory = copyList(lines, plan, inStart, inEnd, entries + ENTRY_BYTES * (capacity / 2));
  if (memory === null) return null;
  const { kernel, memory: wasm } = memory;
  // Which lines are comments, for the kernel (`isCommentAt`, the one byte form of `isComment`),
  // asked of the few lines the kernel finds starting with `!` or `#` (their indices go where the
  // table will be, which holds at least 4 bytes a line).
  const found = kernel.commentCandidates(inStart, inEnd, n, comments, slots);
  const comment = new Uint8Array(wasm.buffer, comments, n);
  for (const i of new Int32Array(wasm.buffer, slots, found)) if (isCommentAt(lines, i)) comment[i] = 1;
  kernel.dedup(inStart, inEnd, n, keep, comments, slots, entries, Math.log2(capacity));
  const kept = new Uint8Array(wasm.buffer, keep, n);
  if (ctx.reporting) {
    // The same walk again, told which lines are copies, reports them as the readable form does.
    const copy = (i: number) => (kept[i] === 0 && lines.start[i] < lines.end[i] && !comment[i] ? DUPLICATE[1] : null);
    dropWithAbove(n, (i) => lineText(lines, i), lines.from, ctx, copy, DUPLICATE[0], ABOVE_DUPLICATE);
  }
  return keepWherePacked(lines, kept);
}
