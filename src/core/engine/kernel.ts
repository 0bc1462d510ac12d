/**
 * The WebAssembly kernel (compress-kernel.wat) that Compress, Deduplicate and Validate run on
 * packed lists: its compiled module, fresh memories for it, and which memories hold a list it made.
 */
import { COMPRESS_KERNEL } from './compress-kernel.js';
import { ADDRESS_CODE, BYTE_CLASS } from '../rules/rule-text.js';
import { DOMAIN_CHAR, HOST_CODE } from '../rules/rule-validity.js';
import { packedLines, trimmedRange, type PackedLines } from './packed.js';
import { PSL_RULES } from '../rules/psl-data.js';

/** The kernel's exports. Offsets are byte offsets into its memory. */
export interface Kernel {
  rebase(at: number, n: number, delta: number): void;
  init(
    used: number,
    inStart: number,
    inEnd: number,
    outStart: number,
    outEnd: number,
    hostStart: number,
    hostEnd: number,
    slots: number,
    entries: number,
    filter: number,
    capacityLog2: number,
    bytesLimit: number,
    outCapacity: number,
  ): void;
  used(): number;
  setUsed(used: number): void;
  run(from: number, n: number): number;
  push(s: number, e: number, hs: number, he: number): void;
  keep(ns: number, ne: number, rewrite: number, i: number): void;
  parents(): number;
  countOther(inStart: number, inEnd: number, n: number, hostRule: number): number;
  dedup(
    inStart: number,
    inEnd: number,
    n: number,
    keep: number,
    skipHostRules: number,
    slots: number,
    entries: number,
    filter: number,
    capacityLog2: number,
  ): void;
  verdicts(
    inStart: number,
    inEnd: number,
    n: number,
    flags: number,
    psl: number,
    pslMask: number,
    mods: number,
    modsMask: number,
  ): void;
  pslBuild(text: number, textEnd: number, psl: number, pslMask: number, stack: number): void;
  join(inStart: number, inEnd: number, n: number, out: number, limit: number): number;
  split(from: number, to: number, start: number, end: number): number;
}

/** A kernel instance and its memory's buffer (never grown, so never detached). */
export interface KernelMemory {
  kernel: Kernel;
  buffer: ArrayBuffer;
  /** Where the free region of the memory starts and ends (see `holding`). */
  scratch: number;
  scratchEnd: number;
}

let compiled: WebAssembly.Module | null | undefined;

/** The compiled kernel, or null where the engine has no WebAssembly (`node --jitless`). */
export function kernelModule(): WebAssembly.Module | null {
  if (compiled === undefined) {
    compiled =
      typeof WebAssembly === 'object'
        ? new WebAssembly.Module(Uint8Array.from(atob(COMPRESS_KERNEL), (c) => c.charCodeAt(0)))
        : null;
  }
  return compiled;
}

/** Where a kernel memory's free space starts: bytes 0-1023 hold the byte classes it reads. */
export const KERNEL_BASE = 1024;

/**
 * A kernel with a memory of `size` bytes, its first KERNEL_BASE taken, or null when the engine
 * has no WebAssembly or gives no memory that large. Pages never written cost no memory.
 */
export function newKernel(size: number): KernelMemory | null {
  const module = kernelModule();
  if (module === null) return null;
  let memory: WebAssembly.Memory;
  try {
    memory = new WebAssembly.Memory({ initial: Math.ceil(size / 65536) });
  } catch {
    return null;
  }
  const kernel = new WebAssembly.Instance(module, { env: { memory } }).exports as unknown as Kernel;
  const bytes = new Uint8Array(memory.buffer);
  bytes.set(BYTE_CLASS, 0);
  bytes.set(ADDRESS_CODE, 256);
  bytes.set(HOST_CODE, 512);
  bytes.set(DOMAIN_CHAR, 768);
  return { kernel, buffer: memory.buffer, scratch: size, scratchEnd: size };
}

/**
 * Copies a list into a kernel memory: its bytes from KERNEL_BASE on, its line ranges to
 * `inStart` and `inEnd`, moved with the bytes.
 */
export function copyList(memory: KernelMemory, lines: PackedLines, inStart: number, inEnd: number): void {
  const n = lines.start.length;
  new Uint8Array(memory.buffer).set(lines.bytes.subarray(0, lines.used), KERNEL_BASE);
  const words = new Int32Array(memory.buffer);
  words.set(lines.start, inStart >> 2);
  words.set(lines.end, inEnd >> 2);
  memory.kernel.rebase(inStart, n, KERNEL_BASE);
  memory.kernel.rebase(inEnd, n, KERNEL_BASE);
}

/** The kernel memory a list's bytes and line arrays all live in, or undefined. */
export function holding(list: PackedLines): KernelMemory | undefined {
  const held = list.kernel;
  if (held === undefined || list.start.buffer !== held.buffer || list.end.buffer !== held.buffer) return undefined;
  return held;
}

/** The smallest list `splitInKernel` takes: below it the TypeScript splits as fast. */
const SPLIT_MIN_BYTES = 65_536;

/**
 * `packBytes` (no line numbers) by the kernel, for a list the reader handed over as bytes: they
 * are copied into a fresh memory from KERNEL_BASE on, with the room after them the reader gave,
 * and split there (`splitPacked`'s byte loop runs cold, once per list, so V8 never optimises it). The list
 * returned views that memory from 0; its line ranges are arrays in it, sized for the most lines
 * the bytes can hold (pages never written cost nothing). Null where `packBytes` gives null (a
 * non-ASCII edge); undefined for a short list, or without WebAssembly or a memory
 * that large: the caller then packs in TypeScript.
 */
export function splitInKernel(bytes: Uint8Array, length: number): PackedLines | null | undefined {
  if (length < SPLIT_MIN_BYTES) return undefined;
  const range = trimmedRange(bytes, 0, length);
  if (range === null) return null;
  const room = bytes.length;
  const starts = align(KERNEL_BASE + room);
  // Lines hold at least a byte and are a break apart.
  const most = ((range[1] - range[0]) >> 1) + 2;
  const ends = starts + 4 * most;
  const memory = newKernel(ends + 4 * most);
  if (memory === null) return undefined;
  new Uint8Array(memory.buffer).set(bytes.subarray(0, length), KERNEL_BASE);
  const n = memory.kernel.split(KERNEL_BASE + range[0], KERNEL_BASE + range[1], starts, ends);
  const view = (at: number) => new Int32Array(memory.buffer, at, n);
  return packedLines(
    new Uint8Array(memory.buffer, 0, KERNEL_BASE + room),
    KERNEL_BASE + length,
    view(starts),
    view(ends),
  );
}

/**
 * `joinPacked` by the kernel, for a list whose bytes are those of a memory Compress made (its
 * output, and whatever was joined to it in place): the line ranges and the joined text go to the
 * memory's free region, and the text is copied out of it, so the result does not keep the memory
 * alive. Null when the bytes live elsewhere or the text does not fit; the caller then joins in
 * TypeScript (whose byte loop runs cold).
 */
export function joinInKernel(list: PackedLines): Uint8Array | null {
  const held = list.kernel;
  const n = list.start.length;
  if (held === undefined || n === 0) return null;
  const inStart = align(held.scratch);
  const inEnd = inStart + 4 * n;
  const out = inEnd + 4 * n;
  if (out >= held.scratchEnd) return null;
  const words = new Int32Array(held.buffer);
  words.set(list.start, inStart >> 2);
  words.set(list.end, inEnd >> 2);
  const written = held.kernel.join(inStart, inEnd, n, out, held.scratchEnd);
  return written === -1 ? null : new Uint8Array(held.buffer, out, written - out).slice();
}

/** Whether a trap is the kernel's own, made before writing past a region (which was full). */
export function isRegionFull(error: unknown): boolean {
  return error instanceof WebAssembly.RuntimeError && error.message === 'unreachable';
}

/** The next multiple of 8 (plain arithmetic: sizes may pass 2 GiB). */
export function align(offset: number): number {
  return Math.ceil(offset / 8) * 8;
}

/** Slots in `pslNodeSet` (a power of two): the list's ~11,000 nodes fill a third of them. */
export const PSL_NODE_SLOTS = 1 << 15;

let nodeSet: Int32Array | null | undefined;

/**
 * The Public Suffix List's rules trie (psl-data.ts) as a set of hashes, for the kernel's walk in
 * Validate's verdicts (validate.ts, `kernelVerdicts`), or null without WebAssembly. A node's
 * path is its labels joined by dots, `*` included (`b.ck` under `ck`, `*.ck`), as UTF-8 (no clean
 * name reaches a non-ASCII label); its slot value is
 * `StringTable.hash(path) | 1` (never 0, which marks an empty slot), at `StringTable.home` of that
 * value or the next free slot after it. Hashes that collide, or differ only in the low bit, just
 * make a name look like a node, and the kernel then leaves the name to the TypeScript. Built
 * once per process by the kernel from PSL_RULES' text (cheaper there than in cold JavaScript).
 */
export function pslNodeSet(): Int32Array | null {
  if (nodeSet !== undefined) return nodeSet;
  const setBytes = 4 * PSL_NODE_SLOTS;
  const textAt = KERNEL_BASE + setBytes + 256; // the stack of open nodes, 64 levels, before the text
  const memory = newKernel(textAt + 3 * PSL_RULES.length);
  if (memory === null) {
    nodeSet = null;
    return null;
  }
  const { written } = new TextEncoder().encodeInto(PSL_RULES, new Uint8Array(memory.buffer, textAt));
  memory.kernel.pslBuild(textAt, textAt + written, KERNEL_BASE, PSL_NODE_SLOTS - 1, KERNEL_BASE + setBytes);
  nodeSet = new Int32Array(memory.buffer, KERNEL_BASE, PSL_NODE_SLOTS).slice();
  return nodeSet;
}
