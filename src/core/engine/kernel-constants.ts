/**
 * The numbers the WebAssembly kernel (engine/wasm/*.wat) shares with the TypeScript, each defined
 * once here or where the readable code defines it: scripts/wasm-kernel.js writes them into the
 * kernel where its text reads `{{NAME}}`, at build time.
 */
import { BYTE_CLASSES, NAME_LIMITS } from '../rules/rule-text.js';
import { HOST_CLASSES, MIN_PATTERN_LENGTH } from '../rules/rule-validity.js';

/** Where `kernelMemory` (kernel.ts) writes each byte table, 256 bytes each; KERNEL_BASE follows. */
export const TABLE_AT = { BYTE_CLASS_AT: 0, ADDRESS_CODE_AT: 256, HOST_CODE_AT: 512, DOMAIN_CHAR_AT: 768 } as const;

/**
 * The kernel's Validate verdicts (validate.ts, `kernelVerdicts`): the TypeScript decides, kept, or
 * one of three reasons to drop (which only the tests read: a report gives `fullRuleProblem`'s).
 */
export const VERDICT = { UNDECIDED: 0, KEPT: 1, DROPPED_IP: 2, DROPPED_CHARACTER: 3, DROPPED_MODIFIER: 4 } as const;

/**
 * The kernel's hash table (wasm/hash-table.wat) in the regions Compress and Deduplicate give it
 * (compress.ts, deduplicate.ts): a slot of SLOT_BYTES per place (an i32), an entry of ENTRY_BYTES
 * per key (its start, end and hash), at most half as many entries as slots, and FILTER_BITS bits of
 * filter per slot.
 */
export const HASH_TABLE = { SLOT_BYTES: 4, ENTRY_BYTES: 12, FILTER_BITS: 8 } as const;

/**
 * A pattern set's automaton on bytes (pipeline/regex-dfa.ts, `ByteAutomaton`) as the kernel's
 * `select` (wasm/select.wat) reads it: a row of DFA_ROW moves per state, one per byte, each the next
 * state or one of the negative codes (the line matches whatever follows, cannot match, or holds
 * a byte the automaton does not read); and per line, SELECTED's answer.
 */
export const DFA = { DFA_ROW: 256, DFA_MATCHES: -2, DFA_NO_MATCH: -3, DFA_OTHER_UNIT: -4 } as const;
/** A row's bytes in the kernel's copy, where a state is the address of its row (wasm/select.wat). */
export const DFA_ROW_BYTES = 4 * DFA.DFA_ROW;
export const SELECTED = { SELECTED_NO: 0, SELECTED_YES: 1, SELECTED_UNREAD: 2 } as const;

/**
 * Bytes per block of the table of ASCII blocks (packed.ts, `asciiRuns`), as a power of two (a
 * multiple of 8): the kernel's split notes which blocks hold a byte above 0x7f.
 */
export const ASCII_BLOCK_BITS = 12;

/** Every constant the kernel's text names, by that name. */
export const KERNEL_CONSTANTS: Readonly<Record<string, number>> = {
  ...TABLE_AT,
  ...BYTE_CLASSES,
  HYPHEN_TO_LOWER: BYTE_CLASSES.LOWER - BYTE_CLASSES.HYPHEN,
  HOST_LETTER: HOST_CLASSES.LETTER,
  HOST_DOT: HOST_CLASSES.DOT,
  HOST_INVALID: HOST_CLASSES.INVALID,
  MIN_PATTERN_LENGTH,
  ASCII_BLOCK_BITS,
  ...NAME_LIMITS,
  ...VERDICT,
  ...DFA,
  DFA_ROW_BYTES,
  ...SELECTED,
  ENTRY_BYTES: HASH_TABLE.ENTRY_BYTES,
  // A filter bit's index is a hash's top bits: 32 less the bits of capacity * FILTER_BITS.
  FILTER_SHIFT: 32 - Math.log2(HASH_TABLE.FILTER_BITS),
};
