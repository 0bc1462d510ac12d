/** Deduplicate on packed lists: byte ranges hashed in TypeScript, or in the WebAssembly kernel. */
import type { TransformContext } from '../transforms/types.js';
import { dropFromEnd } from '../transforms/lines.js';
import { duplicateReporter, KEPT_LATER } from '../transforms/deduplicate.js';
import { StringTable } from '../transforms/string-table.js';
import { plainHostRuleAt } from '../rules/rule-text.js';
import { ByteTable } from './byte-table.js';
import { isCommentAt, keepWherePacked, lineText, type PackedLines } from './packed.js';
import { align, copyList, holding, KERNEL_BASE, newKernel, type KernelMemory } from './kernel.js';

/** Keeps the last copy of each rule, as Deduplicate does, on bytes. */
export function deduplicatePacked(lines: PackedLines, ctx: TransformContext): PackedLines {
  const flags = !ctx.reporting && lines.from === undefined ? deduplicateWasm(lines) : null;
  if (flags !== null) return keepWherePacked(lines, flags);
  const { bytes, start, end } = lines;
  const n = start.length;
  const later = new Uint8Array(n);
  if (lines.distinctHostRules) {
    // Compress left no two `||host^` rules alike: only the other lines are looked up.
    const seen = new ByteTable(n >> 2);
    for (let i = n - 1; i >= 0; i -= 1) {
      if (plainHostRuleAt(bytes, start[i], end[i]) === -1 && !seen.add(bytes, start[i], end[i])) later[i] = 1;
    }
  } else {
    // Hash every line, then add them all in a tight loop (last copy first): with nothing
    // between probes, the processor overlaps the table's cache misses.
    const hashes = new Int32Array(n);
    for (let i = 0; i < n; i += 1) hashes[i] = ByteTable.hash(bytes, start[i], end[i]);
    const seen = new ByteTable(n);
    for (let i = n - 1; i >= 0; i -= 1) if (!seen.addHashed(bytes, start[i], end[i], hashes[i])) later[i] = 1;
  }
  const commentOrEmpty = (i: number) => start[i] === end[i] || isCommentAt(lines, i);
  const duplicate = (i: number) => (later[i] === 1 && !commentOrEmpty(i) ? KEPT_LATER : null);
  const keep = dropFromEnd(
    start.length,
    duplicate,
    commentOrEmpty,
    duplicateReporter(ctx, (i) => lineText(lines, i), lines.from),
  );
  return keepWherePacked(lines, keep);
}

/**
 * `deduplicatePacked`'s keep flags from the WebAssembly kernel (kernel.ts), for a list without
 * provenance and without a report: in place when the list lives in a kernel memory with room
 * for the table (Compress's output), else on a copy of its bytes and line ranges. Null where
 * the engine has no WebAssembly or no memory that large.
 */
export function deduplicateWasm(lines: PackedLines): Uint8Array | null {
  const { start, end } = lines;
  const n = start.length;
  const skipHostRules = lines.distinctHostRules ? 1 : 0;
  // The keep bytes, then the table, sized for the lines looked up: with skipHostRules the
  // kernel counts them (marking the host rules in the keep bytes).
  const tableBytes = (looked: number) => 11 * StringTable.capacityFor(looked);
  let memory: KernelMemory | null | undefined = holding(lines);
  let inStart = start.byteOffset;
  let inEnd = end.byteOffset;
  let keep = memory?.scratch ?? 0;
  if (memory === undefined || memory.scratchEnd - memory.scratch < align(n) + tableBytes(n)) {
    const used = align(KERNEL_BASE + lines.used);
    inStart = used;
    inEnd = used + 4 * n;
    keep = used + 8 * n;
    memory = newKernel(keep + align(n) + tableBytes(n));
    if (memory === null) return null;
    copyList(memory, lines, inStart, inEnd);
  }
  const looked = skipHostRules ? memory.kernel.countOther(inStart, inEnd, n, keep) : n;
  const capacity = StringTable.capacityFor(looked);
  const slots = keep + align(n);
  const entries = slots + 4 * capacity;
  const filter = entries + 6 * capacity;
  memory.kernel.dedup(inStart, inEnd, n, keep, skipHostRules, slots, entries, filter, Math.log2(capacity));
  return new Uint8Array(memory.buffer, keep, n);
}
