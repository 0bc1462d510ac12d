/** Compress on packed lists, in the WebAssembly kernel. */
import { duplicateHost, otherCompressible, redundantHost } from '../transforms/compress.js';
import type { TransformContext } from '../transforms/types.js';
import { copyPlan, decodeRange, keepWherePacked, lineText, packedLines, type PackedLines } from './packed.js';
import { align, copyList, KERNEL_BASE, type KernelMemory, rangesOut, tableCapacity } from './kernel.js';
import { HASH_TABLE } from './kernel-constants.js';

const { SLOT_BYTES, ENTRY_BYTES, FILTER_BITS } = HASH_TABLE;

/**
 * Compress (`compress.apply`, transforms/compress.ts) on a packed list, in WebAssembly: the
 * list's bytes and line ranges are copied into the kernel's memory; the kernel decides the lines of
 * the shapes `||name^`, `0.0.0.0 name` (or `127.0.0.1`) and a bare domain on their bytes, passes
 * over the lines it can rule out, and hands each other line back here for `otherCompressible`. The
 * lines whose parent domain the kernel finds, and the duplicate hostnames it keeps as lines when
 * reporting, are dropped (and reported) here, as the list is copied out. Null, for the readable
 * form to do the work, where the engine gives no memory that large or the list outgrows the room
 * given to it (the kernel traps before writing past a region).
 */
export function compressPacked(lines: PackedLines, ctx: TransformContext): PackedLines | null {
  const n = lines.start.length;
  const plan = copyPlan(lines);
  const used = plan.size;
  const capacity = tableCapacity(n + 1024);
  // The list's bytes go to KERNEL_BASE on (`copyPlan`), their offsets moved with them; then room for the
  // kernel's rewrites (a line becomes `||name^`: its length + 3) and the names handed back.
  const bytesLimit = align(KERNEL_BASE + 2 * used + 4 * n + 65536);
  const outCapacity = n + (n >> 1) + 1024;
  let top = bytesLimit;
  const take = (size: number) => {
    const at = top;
    top = align(top + size);
    return at;
  };
  const inStart = take(4 * n);
  const inEnd = take(4 * n);
  // Per output line, six columns of outCapacity words: its range's start and end, its hostname's,
  // its input line, and where its parent domain starts.
  const rows = take(24 * outCapacity);
  const slots = take(SLOT_BYTES * capacity);
  const entries = take(ENTRY_BYTES * (capacity / 2));
  const filter = take((FILTER_BITS / 8) * capacity);
  const memory = copyList(lines, plan, inStart, inEnd, top);
  if (memory === null) return null;
  const { kernel: k } = memory;
  const bytes = new Uint8Array(memory.memory.buffer);
  const words = new Int32Array(memory.memory.buffer);
  const [report, log2] = [ctx.reporting ? 1 : 0, Math.log2(capacity)];
  k.init(KERNEL_BASE + used, inStart, inEnd, rows, report, slots, entries, filter, log2, bytesLimit, outCapacity);
  try {
    for (let i = k.run(0, n); i < n; i = k.run(i + 1, n)) {
      const s = words[(inStart >> 2) + i];
      const e = words[(inEnd >> 2) + i];
      const found = otherCompressible(decodeRange(bytes, s, e));
      if (!found) {
        k.push(s, e, -1, -1, i);
        continue;
      }
      for (const name of found.names) {
        // The name's bytes go after the text in use, where the table can compare them.
        const at = k.used();
        const { read, written } = encoder.encodeInto(name, bytes.subarray(at, bytesLimit));
        if (read < name.length) return null;
        k.setUsed(at + written);
        k.keep(at, at + written, found.rewrite ? 1 : 0, i);
      }
    }
  } catch (error) {
    // The kernel's own trap, made before writing past a full region; any other (an access out of
    // bounds) is a fault in the kernel, and is not hidden.
    if (error instanceof WebAssembly.RuntimeError && error.message === 'unreachable') return null;
    throw error;
  }
  const count = k.parents();
  const column = (c: number) => rows + 4 * outCapacity * c;
  const [outS, outE, hostS, hostE, from, parent] = [0, 1, 2, 3, 4, 5].map(
    (c) => new Int32Array(memory.memory.buffer, column(c), count),
  );
  const keep = new Uint8Array(count);
  for (let j = 0; j < count; j += 1) keep[j] = outS[j] !== -1 && parent[j] === -1 ? 1 : 0;
  if (ctx.reporting) {
    // As the readable form reports: the duplicate hostnames of the first pass, then the parent domains'.
    const name = (j: number, s = hostS[j]) => decodeRange(bytes, s, hostE[j]);
    for (let j = 0; j < count; j += 1)
      if (outS[j] === -1) ctx.removed(lineText(lines, from[j]), lines.from?.[from[j]], ...duplicateHost(name(j)));
    for (let j = 0; j < count; j += 1) {
      if (outS[j] === -1 || parent[j] === -1) continue;
      const text = decodeRange(bytes, outS[j], outE[j]);
      ctx.removed(text, lines.from?.[from[j]], ...redundantHost(name(j), name(j, parent[j])));
    }
  }
  return (
    keptOut(memory, outS, outE, from, keep, slots, top, lines.from) ??
    keepWherePacked(
      packedLines(
        bytes.slice(KERNEL_BASE, k.used() + ROOM),
        k.used() - KERNEL_BASE,
        rangesOut(memory, column(0), count),
        rangesOut(memory, column(1), count),
        lines.from && Float64Array.from(from, (i) => lines.from![i]),
      ),
      keep,
    )
  );
}

/**
 * The output lines whose `keep` flag is set, joined with LF by the kernel in the table's region
 * `[at, limit)` (unused once the parents are found) and copied out with room after them (where the
 * lines joined later, headers, go): only the kept lines' bytes, so that the steps after copy the
 * list whole rather than gather its lines from the input's bytes. The rows' columns are moved up
 * in place. Null when the kept lines outgrow the region: the caller copies out every byte, and
 * keeps the lines' ranges into them.
 */
function keptOut(
  memory: KernelMemory,
  outS: Int32Array,
  outE: Int32Array,
  from: Int32Array,
  keep: Uint8Array,
  at: number,
  limit: number,
  origins: Float64Array | undefined,
): PackedLines | null {
  let size = 0;
  let count = 0;
  for (let j = 0; j < keep.length; j += 1) {
    if (keep[j] === 0) continue;
    size += outE[j] - outS[j] + 1;
    count += 1;
  }
  if (at + size > limit) return null;
  const start = new Int32Array(count);
  const end = new Int32Array(count);
  let n = 0;
  for (let j = 0, o = 0; j < keep.length; j += 1) {
    if (keep[j] === 0) continue;
    outS[n] = outS[j];
    outE[n] = outE[j];
    from[n] = from[j];
    start[n] = o;
    o += outE[n] - outS[n];
    end[n] = o;
    o += 1;
    n += 1;
  }
  const written = n === 0 ? at : memory.kernel.join(outS.byteOffset, outE.byteOffset, n, at);
  const out = new Uint8Array(written - at + ROOM);
  out.set(new Uint8Array(memory.memory.buffer, at, written - at));
  const kept = origins && Float64Array.from(from.subarray(0, n), (i) => origins[i]);
  return packedLines(out, written - at, start, end, kept);
}

const encoder = new TextEncoder();
const ROOM = 65_536;
