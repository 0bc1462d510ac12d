/** Compress on packed lists: in TypeScript over byte ranges, and in the WebAssembly kernel. */
import type { TransformContext } from '../transforms/types.js';
import { StringTable } from '../transforms/string-table.js';
import { otherCompressible } from '../transforms/compress.js';
import { SYNTHETIC } from '../transforms/lines.js';
import { ByteTable } from './byte-table.js';
import {
  decodeRange,
  keepWherePacked,
  lineText,
  PackedBuilder,
  packedLines,
  widen,
  type PackedLines,
} from './packed.js';
import { align, copyList, isRegionFull, KERNEL_BASE, newKernel, PSL_NODE_SLOTS } from './kernel.js';
import {
  ADDRESS_CODE,
  isJustDomainAt,
  isWhitespaceCode,
  plainHostRuleAt,
  simpleHostsLineAt,
} from '../rules/rule-text.js';

/** Where the nearest parent domain of `b[s, e)` in `table` starts, or -1. */
function blockedParentAt(b: Uint8Array, s: number, e: number, table: ByteTable): number {
  let h = StringTable.SEED;
  let found = -1;
  for (let i = e - 1; i > s; i -= 1) {
    h = Math.imul(h ^ b[i], 0x01000193); // StringTable.step, written out: this runs per character
    if (b[i - 1] === 46 && table.has(b, i, e, h)) found = i;
  }
  return found;
}

/**
 * False when `otherCompressible` is sure to find nothing in `b[s, e)`, which is not a
 * bare domain: it neither starts with `||` (after trimming) nor with an address
 * followed by `%` or whitespace (a hosts line). Spares most lines their decoding.
 */
function mayBeCompressible(b: Uint8Array, s: number, e: number): boolean {
  const c = b[s];
  if (c === 124) return b[s + 1] === 124 && !hasModifiersAt(b, s, e);
  if (c >= 128 || isWhitespaceCode(c)) return true;
  let i = s;
  while (i < e && ADDRESS_CODE[b[i]] === 1) i += 1;
  return i > s && i < e && (b[i] === 37 || b[i] >= 128 || isWhitespaceCode(b[i]));
}

/**
 * True when the rule `b[s, e)` (no whitespace at its ends, not `@@`, not a regex) has
 * modifiers: text other than commas after its last unescaped `$`. Such a rule keeps its
 * text and is no hostname rule for Compress.
 */
function hasModifiersAt(b: Uint8Array, s: number, e: number): boolean {
  const last = b[e - 1];
  if (last >= 128 || isWhitespaceCode(last)) return false;
  for (let i = e - 1; i >= s; i -= 1) {
    if (b[i] !== 36 || (i > s && b[i - 1] === 92)) continue;
    for (let j = i + 1; j < e; j += 1) if (b[j] !== 44) return true;
    return false;
  }
  return false;
}

/**
 * Compress on a packed list: the WebAssembly kernel when it can take the list (no report
 * wanted, the engine has WebAssembly, the list fits its memory), else `compressPackedJs`.
 */
export function compressPacked(lines: PackedLines, ctx: TransformContext): PackedLines {
  if (!ctx.reporting && lines.from === undefined) {
    const done = compressWasm(lines);
    if (done !== null) return done;
  }
  return compressPackedJs(lines, ctx);
}

/** Compress on a packed list: the same decisions, hostnames compared as byte ranges. */
export function compressPackedJs(lines: PackedLines, ctx: TransformContext): PackedLines {
  const n = lines.start.length;
  const out = new PackedBuilder(lines, n);
  const blocked = new ByteTable(n, true);
  // Per output line: where its hostname lies in the buffer, or -1 for a line without one.
  let hostStart = new Int32Array(n + 16);
  let hostEnd = new Int32Array(n + 16);
  const host = (hs: number, he: number) => {
    const k = out.count - 1;
    if (k === hostStart.length) {
      hostStart = widen(hostStart, new Int32Array(k * 2));
      hostEnd = widen(hostEnd, new Int32Array(k * 2));
    }
    hostStart[k] = hs;
    hostEnd[k] = he;
  };
  const origin = (i: number) => lines.from?.[i] ?? SYNTHETIC;
  /** Keeps the first rule per hostname `[ns, ne)`; `rewrite` makes the rule `||name^`, else it is line `i`. */
  const keepFirst = (ns: number, ne: number, rewrite: boolean, i: number) => {
    if (!blocked.add(out.bytes, ns, ne)) {
      if (ctx.reporting) {
        const name = decodeRange(out.bytes, ns, ne);
        ctx.removed(
          lineText(lines, i),
          lines.from?.[i],
          'duplicate-hostname',
          `${name} is already blocked by an earlier rule`,
        );
      }
      return;
    }
    if (rewrite) {
      const at = out.append('||', ns, ne, '^');
      out.push(at - 2, at + (ne - ns) + 1, origin(i));
      host(at, at + (ne - ns));
    } else {
      out.push(lines.start[i], lines.end[i], origin(i));
      host(ns, ne);
    }
  };

  for (let i = 0; i < n; i += 1) {
    const b = out.bytes;
    const s = lines.start[i];
    const e = lines.end[i];
    const plain = plainHostRuleAt(b, s, e);
    if (plain !== -1) {
      keepFirst(plain, e - 1, false, i);
      continue;
    }
    const simple = simpleHostsLineAt(b, s, e);
    if (simple !== -1) {
      keepFirst(simple, e, true, i);
      continue;
    }
    if (isJustDomainAt(b, s, e)) {
      keepFirst(s, e, true, i);
      continue;
    }
    const found = mayBeCompressible(b, s, e) ? otherCompressible(lineText(lines, i)) : null;
    if (!found) {
      out.push(s, e, origin(i));
      host(-1, -1);
      continue;
    }
    for (const name of found.names) {
      // The name's bytes go after the text in use, where the table can compare them.
      const at = out.appendText(name);
      keepFirst(at, out.used, found.rewrite, i);
    }
  }

  const kept = out.finish();
  const b = kept.bytes;
  const keep = new Uint8Array(kept.start.length).fill(1);
  for (let k = 0; k < keep.length; k += 1) {
    const hs = hostStart[k];
    if (hs === -1) continue;
    const parent = blockedParentAt(b, hs, hostEnd[k], blocked);
    if (parent === -1) continue;
    keep[k] = 0;
    if (ctx.reporting) {
      const host = decodeRange(b, hs, hostEnd[k]);
      const covering = decodeRange(b, parent, hostEnd[k]);
      ctx.removed(
        decodeRange(b, kept.start[k], kept.end[k]),
        kept.from?.[k],
        'redundant-hostname',
        `${host} is covered by ||${covering}^`,
      );
    }
  }
  // Every line of the form `||[a-z0-9.-]+^` has that name's entry in the table, which let one in.
  return keepWherePacked(packedLines(b, kept.used, kept.start, kept.end, kept.from, true), keep);
}

/**
 * `compressPackedJs` for a list without provenance and without a report, in WebAssembly: the
 * list's bytes and line ranges are copied into a fresh memory, the kernel takes every line
 * that `plainHostRuleAt`, `simpleHostsLineAt` or `isJustDomainAt` decides or that
 * `mayBeCompressible` rules out, and hands each other line back here for `otherCompressible`.
 * The list returned lives in that memory, which is never grown (growing would detach it).
 * Returns null, for the JavaScript to do the work, when the engine has no WebAssembly or the
 * list outgrows the room given to it (the kernel traps before writing past a region).
 */
export function compressWasm(lines: PackedLines): PackedLines | null {
  const n = lines.start.length;
  const used = lines.used;
  const capacity = StringTable.capacityFor(n + 1024);
  // The list's bytes go to KERNEL_BASE on, their offsets moved with them, so that the list
  // returned is a view from 0 (bytes before the first line belong to no line). Then room for the
  // kernel's rewrites (a line becomes `||name^`: its length + 3) and the names handed back;
  // pages of it never written cost no memory.
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
  const outStart = take(4 * outCapacity);
  const outEnd = take(4 * outCapacity);
  // Free again once the list is made, for Deduplicate's kernel (the list's `kernel`).
  const hostStart = take(4 * outCapacity);
  const hostEnd = take(4 * outCapacity);
  const slots = take(4 * capacity);
  const entries = take(12 * (capacity / 2));
  const filter = take(capacity);
  // Validate's verdicts use the freed region as well: a code per line, then the supported
  // modifiers' and the Public Suffix List's hash sets (validate.ts, `kernelVerdicts`).
  top = Math.max(top, hostStart + align(outCapacity) + 4 * PSL_NODE_SLOTS + 4096);
  const memory = newKernel(top);
  if (memory === null) return null;
  const { kernel: k, buffer } = memory;
  copyList(memory, lines, inStart, inEnd);
  const bytes = new Uint8Array(buffer);
  k.init(
    KERNEL_BASE + used,
    inStart,
    inEnd,
    outStart,
    outEnd,
    hostStart,
    hostEnd,
    slots,
    entries,
    filter,
    Math.log2(capacity),
    bytesLimit,
    outCapacity,
  );
  try {
    for (let i = k.run(0, n); i < n; i = k.run(i + 1, n)) {
      const s = KERNEL_BASE + lines.start[i];
      const e = KERNEL_BASE + lines.end[i];
      const found = otherCompressible(decodeRange(bytes, s, e));
      if (!found) {
        k.push(s, e, -1, -1);
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
    // Any other trap (an access out of bounds) is a fault in the kernel, and is not hidden.
    if (isRegionFull(error)) return null;
    throw error;
  }
  const count = k.parents();
  const view = (at: number) => new Int32Array(buffer, at, count);
  // The list owns its memory, whose region from hostStart on is free again for later kernel calls.
  const held = { ...memory, scratch: hostStart, scratchEnd: top };
  const bytesView = new Uint8Array(buffer, 0, bytesLimit);
  return packedLines(bytesView, k.used(), view(outStart), view(outEnd), undefined, true, held);
}

const encoder = new TextEncoder();
