/**
 * The WebAssembly kernel (wasm/*.wat, assembled at build time into wasm/kernel-binary.ts) that
 * splitting, joining, Compress, Deduplicate and Validate run on packed lists: its compiled module,
 * its one memory, and copying lists in and results out.
 */
import { KERNEL_WASM } from './wasm/kernel-binary.js';
import { ADDRESS_CODE, BYTE_CLASS } from '../rules/rule-text.js';
import { DOMAIN_CHAR, HOST_CODE } from '../rules/rule-validity.js';
import {
  asciiBlockCount,
  copyBytes,
  type CopyPlan,
  copyPlan,
  noteAsciiBlocks,
  packedLines,
  type PackedLines,
  pieces,
} from './packed.js';
import { PSL_RULES } from '../rules/psl-data.js';
import { DFA_ROW_BYTES, TABLE_AT } from './kernel-constants.js';
import type { ByteAutomaton } from './engine.js';

/** The kernel's exports. Offsets are byte offsets into its memory. */
export interface Kernel {
  rebase(at: number, n: number, delta: number): void;
  init(
    used: number,
    inStart: number,
    inEnd: number,
    out: number,
    report: number,
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
  push(s: number, e: number, hs: number, he: number, i: number): void;
  keep(ns: number, ne: number, rewrite: number, i: number): void;
  parents(): number;
  commentCandidates(inStart: number, inEnd: number, n: number, flags: number, out: number): number;
  dedup(
    inStart: number,
    inEnd: number,
    n: number,
    keep: number,
    comment: number,
    slots: number,
    entries: number,
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
    allowIp: number,
  ): void;
  pslBuild(text: number, textEnd: number, psl: number, pslMask: number, stack: number): void;
  join(inStart: number, inEnd: number, n: number, out: number): number;
  split(from: number, to: number, start: number, end: number, dir: number): number;
  asciiBlocks(from: number, to: number, out: number, n: number): void;
  select(inStart: number, inEnd: number, n: number, table: number, ended: number, start: number, out: number): void;
}

/** The kernel instance and its memory. */
export interface KernelMemory {
  kernel: Kernel;
  memory: WebAssembly.Memory;
}

let compiled: WebAssembly.Module | null | undefined;

/** The compiled kernel, or null where the engine has no WebAssembly (`node --jitless`). */
export function kernelModule(): WebAssembly.Module | null {
  if (compiled === undefined) {
    compiled =
      typeof WebAssembly === 'object'
        ? new WebAssembly.Module(Uint8Array.from(atob(KERNEL_WASM), (c) => c.charCodeAt(0)))
        : null;
  }
  return compiled;
}

/** Where a kernel memory's free space starts: after the byte tables it reads (TABLE_AT). */
export const KERNEL_BASE = TABLE_AT.DOMAIN_CHAR_AT + 256;

/**
 * The most bytes of kernel memory a thread keeps between steps. A memory never shrinks, so a
 * larger one (a step on a long list) is made for that step alone and left to the collector;
 * otherwise each compile pool thread would hold the largest list it ever compiled.
 */
const KEPT_BYTES = 64 << 20;

let workspace: KernelMemory | null | undefined;

/** A kernel instance with a memory of `size` bytes and its byte tables, or null. */
function instance(size: number): KernelMemory | null {
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
  bytes.set(BYTE_CLASS, TABLE_AT.BYTE_CLASS_AT);
  bytes.set(ADDRESS_CODE, TABLE_AT.ADDRESS_CODE_AT);
  bytes.set(HOST_CODE, TABLE_AT.HOST_CODE_AT);
  bytes.set(DOMAIN_CHAR, TABLE_AT.DOMAIN_CHAR_AT);
  return { kernel, memory };
}

/**
 * A kernel memory of `size` bytes or more, or null when the engine has no WebAssembly or gives
 * no memory that large: the thread's one kept memory (KEPT_BYTES) where the size fits it, so that
 * short lists and includes do not each make one (each memory reserves gigabytes of address
 * space, and with thousands alive V8 stalls). Every kernel step copies its list in and its
 * results out, so no list lives in it. Pages never written cost no memory. Null past 2 GiB too:
 * the kernel's offsets are signed 32-bit numbers.
 */
export function kernelMemory(size: number): KernelMemory | null {
  if (size > 2 ** 31) return null;
  if (size > KEPT_BYTES) return instance(size);
  if (workspace === undefined) workspace = instance(KEPT_BYTES);
  return workspace;
}

/**
 * Copies a list into the kernel memory as `plan` says: its bytes from KERNEL_BASE on, its line
 * ranges to `inStart` and `inEnd`, moved with the bytes (a line's offsets in the kernel are not
 * its offsets in the list plus KERNEL_BASE when gathered: read them at `inStart`). Null when the
 * memory cannot be `size` bytes.
 */
export function copyList(
  lines: PackedLines,
  plan: CopyPlan,
  inStart: number,
  inEnd: number,
  size: number,
): KernelMemory | null {
  const memory = kernelMemory(size);
  if (memory === null) return null;
  const { bytes, start, end } = lines;
  const into = new Uint8Array(memory.memory.buffer);
  const words = new Int32Array(memory.memory.buffer);
  if (!plan.gathered) {
    const n = start.length;
    into.set(bytes.subarray(0, lines.used), KERNEL_BASE);
    words.set(start, inStart >> 2);
    words.set(end, inEnd >> 2);
    memory.kernel.rebase(inStart, n, KERNEL_BASE);
    memory.kernel.rebase(inEnd, n, KERNEL_BASE);
    return memory;
  }
  const [starts, ends] = [inStart >> 2, inEnd >> 2];
  let at = KERNEL_BASE;
  pieces(lines, (i, j, from, to) => {
    copyBytes(bytes, from, to, into, at);
    const shift = at - from;
    for (let k = i; k < j; k += 1) {
      words[starts + k] = start[k] + shift;
      words[ends + k] = end[k] + shift;
    }
    at += to - from;
  });
  return memory;
}

/**
 * Per line of the list, whether a set's automaton (`ByteAutomaton`) matches it, run over the lines'
 * bytes by the kernel (wasm/select.wat): SELECTED's codes, UNREAD for a line it does not read.
 * Null where no kernel memory can be had.
 */
export function kernelSelect(lines: PackedLines, automaton: ByteAutomaton): Uint8Array | null {
  const n = lines.start.length;
  const plan = copyPlan(lines);
  const inStart = align(KERNEL_BASE + plan.size);
  const inEnd = inStart + 4 * n;
  const out = inEnd + 4 * n;
  const table = align(out + n);
  const ended = table + automaton.table.byteLength;
  const memory = copyList(lines, plan, inStart, inEnd, ended + automaton.ended.length);
  if (memory === null) return null;
  const { buffer } = memory.memory;
  // A state as the address of its row (wasm/select.wat); the codes stay.
  const row = (state: number) => (state < 0 ? state : table + state * DFA_ROW_BYTES);
  const rows = new Int32Array(buffer, table, automaton.table.length);
  for (let k = 0; k < rows.length; k += 1) rows[k] = row(automaton.table[k]);
  new Uint8Array(buffer, ended, automaton.ended.length).set(automaton.ended);
  memory.kernel.select(inStart, inEnd, n, table, ended, row(automaton.start), out);
  return new Uint8Array(buffer, out, n).slice();
}

/** `n` line offsets the kernel wrote at `at`, moved back by KERNEL_BASE and copied out. */
export function rangesOut(memory: KernelMemory, at: number, n: number): Int32Array {
  memory.kernel.rebase(at, n, -KERNEL_BASE);
  return new Int32Array(memory.memory.buffer, at, n).slice();
}

/** The lines that open with `!#` of the lists `splitInKernel` made, by their `start`. */
const directivesOf = new WeakMap<Int32Array, Int32Array>();

/**
 * Splits the list text `bytes[from, to)` (trimmed: `packText`, `packBytes`) into lines on runs of
 * CR/LF, in the kernel: `bytes[0, used)` is copied in and split there, and the line ranges copied
 * out; the list views `bytes`. The split notes the lines that open with `!#` (`splitDirectives`),
 * and the blocks of `bytes` that hold a byte above 0x7f (`asciiRuns`).
 * Null without a memory that large.
 */
export function splitInKernel(bytes: Uint8Array, used: number, from: number, to: number): PackedLines | null {
  // Lines hold at least a byte and are a break apart.
  const most = ((to - from) >> 1) + 2;
  const starts = align(KERNEL_BASE + used);
  const ends = starts + 4 * most;
  const dir = ends + 4 * most;
  const high = dir + 4 * (most + 1);
  const blocks = asciiBlockCount(used);
  const memory = kernelMemory(high + blocks);
  if (memory === null) return null;
  new Uint8Array(memory.memory.buffer).set(bytes.subarray(0, used), KERNEL_BASE);
  memory.kernel.asciiBlocks(KERNEL_BASE, KERNEL_BASE + used, high, blocks);
  noteAsciiBlocks(bytes, used, new Uint8Array(memory.memory.buffer, high, blocks));
  const n = memory.kernel.split(KERNEL_BASE + from, KERNEL_BASE + to, starts, ends, dir);
  const found = new Int32Array(memory.memory.buffer, dir + 4, new Int32Array(memory.memory.buffer, dir, 1)[0]).slice();
  const start = rangesOut(memory, starts, n);
  directivesOf.set(start, found);
  return packedLines(bytes, used, start, rangesOut(memory, ends, n));
}

/**
 * The lines of a list with the line ranges `splitInKernel` gave it (its lines as read, whatever
 * view of them) that open with `!#`, in order, as the split noted them; undefined for other lists.
 * `directiveLines` (load-packed.ts) is the readable form.
 */
export function splitDirectives(list: PackedLines): Int32Array | undefined {
  return directivesOf.get(list.start);
}

/**
 * The list's lines joined with LF, as UTF-8 (the list as written out), by the kernel, copied out.
 * Null without a memory that large.
 */
export function joinInKernel(list: PackedLines): Uint8Array | null {
  const n = list.start.length;
  if (n === 0) return new Uint8Array(0);
  let size = n - 1;
  for (let i = 0; i < n; i += 1) size += list.end[i] - list.start[i];
  const plan = copyPlan(list);
  const inStart = align(KERNEL_BASE + plan.size);
  const out = inStart + 8 * n;
  const memory = copyList(list, plan, inStart, inStart + 4 * n, out + size);
  if (memory === null) return null;
  const written = memory.kernel.join(inStart, inStart + 4 * n, n, out);
  return new Uint8Array(memory.memory.buffer, out, written - out).slice();
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
  const memory = kernelMemory(textAt + 3 * PSL_RULES.length);
  if (memory === null) {
    nodeSet = null;
    return null;
  }
  const set = new Int32Array(memory.memory.buffer, KERNEL_BASE, PSL_NODE_SLOTS).fill(0);
  const { written } = new TextEncoder().encodeInto(PSL_RULES, new Uint8Array(memory.memory.buffer, textAt));
  memory.kernel.pslBuild(textAt, textAt + written, KERNEL_BASE, PSL_NODE_SLOTS - 1, KERNEL_BASE + setBytes);
  nodeSet = set.slice();
  return nodeSet;
}
