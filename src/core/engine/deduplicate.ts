/** Deduplicate on packed lists, in the WebAssembly kernel. */
import { isCommentAt, keepWherePacked, packedLines, type PackedLines } from './packed.js';
import { align, copyList, holding, KERNEL_BASE, newKernel, tableCapacity, type KernelMemory } from './kernel.js';

/** Room left after the bytes of a list copied for Deduplicate, for the lines appended later (headers). */
const ROOM = 65_536;

/**
 * Deduplicate (`deduplicate.apply`, transforms/deduplicate.ts) on a packed list, by the keep flags
 * (those `dropFromEnd` gives) of the WebAssembly kernel (kernel.ts): in place when the list lives
 * in a kernel memory with room for the table (Compress's output); else on a copy of its bytes and
 * line ranges in a fresh memory, which the list returned lives in and owns, with room after its
 * bytes and a free region for the join of the output (`joinInKernel`), so that it is not copied
 * again. Null where the engine gives no memory that large.
 */
export function deduplicatePacked(lines: PackedLines): PackedLines | null {
  const { start } = lines;
  const n = start.length;
  const skipHostRules = lines.distinctHostRules ? 1 : 0;
  // The keep bytes, a byte per line for its comments, then the table, sized for the lines looked
  // up: with skipHostRules the kernel counts them (marking the host rules in the keep bytes).
  const tableBytes = (looked: number) => 11 * tableCapacity(looked);
  let memory: KernelMemory | null | undefined = holding(lines);
  let list = lines;
  let keep = memory?.scratch ?? 0;
  if (memory === undefined || memory.scratchEnd - memory.scratch < 2 * align(n) + tableBytes(n)) {
    const used = KERNEL_BASE + lines.used;
    const inStart = align(used + ROOM);
    keep = inStart + 8 * n;
    // The join's ranges and text (at most the list's bytes and a break a line, and the lines
    // appended in the room) fit in the region too.
    const size = keep + Math.max(2 * align(n) + tableBytes(n), 9 * n + lines.used + 2 * ROOM);
    memory = newKernel(size);
    if (memory === null) return null;
    copyList(memory, lines, inStart, inStart + 4 * n);
    const view = (at: number) => new Int32Array(memory!.buffer, at, n);
    const held = { ...memory, scratch: keep, scratchEnd: size };
    const bytes = new Uint8Array(memory.buffer, 0, used + ROOM);
    list = packedLines(bytes, used, view(inStart), view(inStart + 4 * n), lines.distinctHostRules, held);
  }
  const inStart = list.start.byteOffset;
  const inEnd = list.end.byteOffset;
  // Which lines are comments, for the kernel (`isCommentAt`, the one byte form of `isComment`),
  // asked of the few lines the kernel finds starting with `!` or `#` (their indices go where the
  // table will be, which holds at least 4 bytes a line).
  const comments = keep + align(n);
  const found = memory.kernel.commentCandidates(inStart, inEnd, n, comments, comments + align(n));
  const comment = new Uint8Array(memory.buffer, comments, n);
  for (const i of new Int32Array(memory.buffer, comments + align(n), found)) if (isCommentAt(list, i)) comment[i] = 1;
  const looked = skipHostRules ? memory.kernel.countOther(inStart, inEnd, n, keep) : n;
  const capacity = tableCapacity(looked);
  const slots = comments + align(n);
  const entries = slots + 4 * capacity;
  const filter = entries + 6 * capacity;
  memory.kernel.dedup(inStart, inEnd, n, keep, comments, skipHostRules, slots, entries, filter, Math.log2(capacity));
  return keepWherePacked(list, new Uint8Array(memory.buffer, keep, n));
}
