/**
 * The WebAssembly kernel (compress-kernel.wat) that Compress, Deduplicate and Validate run on
 * packed lists: its compiled module, fresh memories for it, and which memories hold a list it made.
 */
import { COMPRESS_KERNEL } from './compress-kernel.js';
import { ADDRESS_CODE, BYTE_CLASS } from '../rules/rule-text.js';
import { DOMAIN_CHAR, HOST_CODE } from '../rules/rule-validity.js';
import { packedLines, type PackedLines } from './packed.js';
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
  commentCandidates(inStart: number, inEnd: number, n: number, flags: number, out: number): number;
  dedup(
    inStart: number,
    inEnd: number,
    n: number,
    keep: number,
    comment: number,
    skipHostRules: number,
    slots: number,
    entries: number,
    filter: number,
    capacityLog2: number,
  ): void;
  verdicts(inStart: number, inEnd: number, n: number, flags: number, psl: number, pslMask: number, mods: number): void;
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

/**
 * Lists whose bytes and line ranges fit this many bytes are split and joined in one memory of the
 * process's (`workspace`), their results copied out: each memory reserves gigabytes of address
 * space, and with some 15,000 alive (one per small source or include) V8 stalls for minutes.
 */
const WORKSPACE_BYTES = 1 << 20;
let workspace: KernelMemory | null | undefined;

/** A memory of `size` bytes or more, for work whose results are copied out: the workspace if large enough. */
function scratchKernel(size: number): KernelMemory | null {
  if (size > WORKSPACE_BYTES) return newKernel(size);
  workspace ??= newKernel(WORKSPACE_BYTES);
  return workspace;
}

/**
 * Splits the list text `bytes[from, to)` (trimmed: `packText`, `packBytes`) into lines on runs of
 * CR/LF, in the kernel: `bytes[0, used)` is copied into a memory from KERNEL_BASE on and split
 * there. A short list's line ranges are copied out (`scratchKernel`) and the list views `bytes`
 * itself; a longer one views its own fresh memory from 0, with the room after the bytes that
 * `bytes` has (for text appended later), its line ranges arrays in it, sized for the most lines
 * the bytes can hold (pages never written cost nothing). Null without a memory that large.
 */
export function splitInKernel(bytes: Uint8Array, used: number, from: number, to: number): PackedLines | null {
  // Lines hold at least a byte and are a break apart.
  const most = ((to - from) >> 1) + 2;
  const short = align(KERNEL_BASE + used) + 8 * most <= WORKSPACE_BYTES;
  const starts = align(KERNEL_BASE + (short ? used : bytes.length));
  const ends = starts + 4 * most;
  const memory = scratchKernel(ends + 4 * most);
  if (memory === null) return null;
  new Uint8Array(memory.buffer).set(bytes.subarray(0, used), KERNEL_BASE);
  const n = memory.kernel.split(KERNEL_BASE + from, KERNEL_BASE + to, starts, ends);
  const view = (at: number) => new Int32Array(memory.buffer, at, n);
  if (short) {
    memory.kernel.rebase(starts, n, -KERNEL_BASE);
    memory.kernel.rebase(ends, n, -KERNEL_BASE);
    return packedLines(bytes, used, view(starts).slice(), view(ends).slice());
  }
  return packedLines(
    new Uint8Array(memory.buffer, 0, KERNEL_BASE + bytes.length),
    KERNEL_BASE + used,
    view(starts),
    view(ends),
  );
}

/**
 * The list's lines joined with LF, as UTF-8 (the list as written out), by the kernel: in the free
 * region of the memory the list lives in (Compress's output, and whatever was joined to it in
 * place) when the text fits there, else in a memory the list is copied to (`scratchKernel`). The
 * text is copied out, so the result does not keep the memory alive. Null without a memory that
 * large.
 */
export function joinInKernel(list: PackedLines): Uint8Array | null {
  const n = list.start.length;
  if (n === 0) return new Uint8Array(0);
  const held = list.kernel;
  if (held !== undefined && align(held.scratch) + 8 * n <= held.scratchEnd) {
    const words = new Int32Array(held.buffer);
    const inStart = align(held.scratch);
    words.set(list.start, inStart >> 2);
    words.set(list.end, (inStart >> 2) + n);
    const joined = joinAt(held, inStart, n, held.scratchEnd);
    if (joined !== null) return joined;
  }
  let size = n - 1;
  for (let i = 0; i < n; i += 1) size += list.end[i] - list.start[i];
  const inStart = align(KERNEL_BASE + list.used);
  const limit = inStart + 8 * n + size;
  const memory = scratchKernel(limit);
  if (memory === null) return null;
  copyList(memory, list, inStart, inStart + 4 * n);
  return joinAt(memory, inStart, n, limit);
}

/** `join` of the n line ranges at `inStart` (starts, then ends), written after them up to `limit`. */
function joinAt(memory: KernelMemory, inStart: number, n: number, limit: number): Uint8Array | null {
  const out = inStart + 8 * n;
  const written = memory.kernel.join(inStart, inStart + 4 * n, n, out, limit);
  return written === -1 ? null : new Uint8Array(memory.buffer, out, written - out).slice();
}

/** Whether a trap is the kernel's own, made before writing past a region (which was full). */
export function isRegionFull(error: unknown): boolean {
  return error instanceof WebAssembly.RuntimeError && error.message === 'unreachable';
}

/** The next multiple of 8 (plain arithmetic: sizes may pass 2 GiB). */
export function align(offset: number): number {
  return Math.ceil(offset / 8) * 8;
}

/** Slots for the kernel's hash tables (a power of two) to hold `expected` entries at most half full. */
export function tableCapacity(expected: number): number {
  let capacity = 1024;
  while (capacity < expected * 2) capacity *= 2;
  return capacity;
}

/** Slots in `pslNodeSet` (a power of two): the list's ~11,000 nodes fill a third of them. */
export const PSL_NODE_SLOTS = 1 << 15;

let nodeSet: Int32Array | null | undefined;

/**
 * The Public Suffix List's rules trie (psl-data.ts) as a set of hashes, for the kernel's walk in
 * Validate's verdicts (validate.ts, `kernelVerdicts`), or null without WebAssembly. A node's
 * path is its labels joined by dots, `*` included (`b.ck` under `ck`, `*.ck`), as UTF-8 (no clean
 * name reaches a non-ASCII label); its slot value is
 * the kernel's `$hash` of the path `| 1` (never 0, which marks an empty slot), at `$home` of that
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
