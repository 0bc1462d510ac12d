/** Deduplicate on packed lists, in the WebAssembly kernel. */
import { StringTable } from '../transforms/string-table.js';
import { isCommentAt, keepWherePacked, type PackedLines } from './packed.js';
import { align, copyList, holding, KERNEL_BASE, newKernel, type KernelMemory } from './kernel.js';

/**
 * Deduplicate (`deduplicate.apply`, transforms/deduplicate.ts) on a packed list: the last copy of
 * each rule is kept, by the keep flags of `deduplicateWasm`; null where the kernel has no memory.
 */
export function deduplicatePacked(lines: PackedLines): PackedLines | null {
  const flags = deduplicateWasm(lines);
  return flags === null ? null : keepWherePacked(lines, flags);
}

/**
 * Deduplicate's keep flags (those `dropFromEnd` gives) from the WebAssembly kernel (kernel.ts):
 * in place when the list lives in a kernel memory with room for the table (Compress's output),
 * else on a copy of its bytes and line ranges. Null where the engine gives no memory that large.
 */
export function deduplicateWasm(lines: PackedLines): Uint8Array | null {
  const { start, end } = lines;
  const n = start.length;
  const skipHostRules = lines.distinctHostRules ? 1 : 0;
  // The keep bytes, a byte per line for its comments, then the table, sized for the lines looked
  // up: with skipHostRules the kernel counts them (marking the host rules in the keep bytes).
  const tableBytes = (looked: number) => 11 * StringTable.capacityFor(looked);
  let memory: KernelMemory | null | undefined = holding(lines);
  let inStart = start.byteOffset;
  let inEnd = end.byteOffset;
  let keep = memory?.scratch ?? 0;
  if (memory === undefined || memory.scratchEnd - memory.scratch < 2 * align(n) + tableBytes(n)) {
    const used = align(KERNEL_BASE + lines.used);
    inStart = used;
    inEnd = used + 4 * n;
    keep = used + 8 * n;
    memory = newKernel(keep + 2 * align(n) + tableBytes(n));
    if (memory === null) return null;
    copyList(memory, lines, inStart, inEnd);
  }
  const comments = keep + align(n);
  // Which lines are comments, for the kernel (`isCommentAt`, the one byte form of `isComment`).
  const comment = new Uint8Array(memory.buffer, comments, n);
  const { bytes } = lines;
  for (let i = 0; i < n; i += 1) {
    const c = bytes[start[i]];
    comment[i] = (c === 33 || c === 35) && isCommentAt(lines, i) ? 1 : 0;
  }
  const looked = skipHostRules ? memory.kernel.countOther(inStart, inEnd, n, keep) : n;
  const capacity = StringTable.capacityFor(looked);
  const slots = comments + align(n);
  const entries = slots + 4 * capacity;
  const filter = entries + 6 * capacity;
  memory.kernel.dedup(inStart, inEnd, n, keep, comments, skipHostRules, slots, entries, filter, Math.log2(capacity));
  return new Uint8Array(memory.buffer, keep, n);
}
