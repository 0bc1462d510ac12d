;; The WebAssembly kernel of the packed engine (kernel.ts), in one module assembled from these
;; files at build time (scripts/wasm-kernel.js, in this order): memory.wat (this file: the memory
;; and what is in it), hash-table.wat (the table of byte ranges Compress and Deduplicate share),
;; compress.wat, deduplicate.wat, validate.wat, public-suffix.wat (Validate's Public Suffix List
;; walk), lines.wat (splitting and joining) and select.wat (the filters' pass on a pattern set's
;; automaton). Each function does on bytes what the readable
;; TypeScript function it names does on strings, test for test; test/core/engine/
;; kernel.test.ts compares the two on generated lists.
;;
;; Why: a 300,000-line list runs each of these loops once per process, so the JavaScript spends
;; much of its time in the engine's baseline tiers before its optimised code lands. Code
;; compiled from WebAssembly runs at near its final speed from the first line.
;;
;; A name in double braces is a number the TypeScript defines (engine/kernel-constants.ts: byte classes,
;; table offsets, minimum lengths, verdict codes), written in by scripts/wasm-kernel.js.

  (import "env" "memory" (memory 1))

  ;; Memory bytes from {{BYTE_CLASS_AT}} hold BYTE_CLASS (rule-text.ts), from {{ADDRESS_CODE_AT}}
  ;; ADDRESS_CODE (rule-text.ts), from {{HOST_CODE_AT}} HOST_CODE and from {{DOMAIN_CHAR_AT}}
  ;; DOMAIN_CHAR (rule-validity.ts), 256 each, written by kernel.ts (`kernelMemory`); the free
  ;; space starts at KERNEL_BASE (kernel.ts). A byte's class is the byte at its own value's
  ;; address plus the table's offset, loaded inline (calls are not inlined by the engine, and one
  ;; per byte cost more than the lookups).

  ;; Adds delta to the n offsets at `at` (line ranges copied in, for bytes copied to KERNEL_BASE
  ;; on: kernel.ts, `copyList`).
  (func (export "rebase") (param $at i32) (param $n i32) (param $delta i32)
    (local $end i32)
    (local.set $end (i32.add (local.get $at) (i32.shl (local.get $n) (i32.const 2))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $at) (local.get $end)))
        (i32.store (local.get $at) (i32.add (i32.load (local.get $at)) (local.get $delta)))
        (local.set $at (i32.add (local.get $at) (i32.const 4)))
        (br $next))))
