;; The WebAssembly kernel of the packed engine (kernel.ts): splitting a list into lines and
;; joining it, Compress (compress.ts, `compressPacked`: its first pass over the shapes it decides
;; on bytes, an open-addressing table of hostnames as byte ranges, its parent-domain pass),
;; Deduplicate's lookups with `dropWithAbove` (deduplicate.ts, `deduplicatePacked`) and Validate's
;; verdicts (validate.ts, `kernelVerdicts`). Each function does on bytes what the readable
;; TypeScript function it names does on strings, test for test; test/core/engine/
;; compress-kernel.test.ts compares the two on generated lists.
;;
;; Why: a 300,000-line list runs each of these loops once per process, so the JavaScript spends
;; much of its time in the engine's baseline tiers before its optimised code lands. Code
;; compiled from WebAssembly runs at near its final speed from the first line.
;;
;; scripts/wasm-kernel.js assembles this file into compress-kernel.ts; run it after editing.
(module
  (import "env" "memory" (memory 1))

  ;; Memory bytes 0-255 hold BYTE_CLASS (rule-text.ts), 256-511 ADDRESS_CODE (rule-text.ts),
  ;; 512-767 HOST_CODE and 768-1023 DOMAIN_CHAR (rule-validity.ts), written by kernel.ts
  ;; (`kernelMemory`); the free space starts at KERNEL_BASE (kernel.ts). A byte's class is the byte
  ;; at its own value's address (plus the table's base), loaded inline (calls are not inlined by
  ;; the engine, and one per byte cost more than the lookups). A byte of BYTE_CLASS 0 (SPACE) is
  ;; one that JavaScript's `\s` matches.
  ;; Compress's layout (compress.ts, `compressPacked`), given to $init: the list's bytes from
  ;; KERNEL_BASE on, their offsets moved with them, then room for rewrites and names up to
  ;; bytesLimit; then, each aligned to 8, inS and inE (n words each), outS, outE, hostS, hostE,
  ;; from and parent (outCapacity words each, one after the other from $out), the slots (a word
  ;; each, capacity = 2^capLog2 of them), the entries (12 bytes each: start, end, hash; capacity / 2
  ;; of them) and the filter (a bit per hash, 8 per slot: capacity bytes).
  (global $used (mut i32) (i32.const 0))
  (global $inS (mut i32) (i32.const 0))
  (global $inE (mut i32) (i32.const 0))
  (global $outS (mut i32) (i32.const 0))
  (global $outE (mut i32) (i32.const 0))
  (global $hostS (mut i32) (i32.const 0))
  (global $hostE (mut i32) (i32.const 0))
  ;; Per output line: its input line, and where the parent domain that drops it starts, or -1.
  (global $from (mut i32) (i32.const 0))
  (global $parent (mut i32) (i32.const 0))
  ;; Non-zero when removed lines are reported: a duplicate hostname is an output line too, whose
  ;; range is -1 (compress.ts drops it, and reports it).
  (global $report (mut i32) (i32.const 0))
  (global $count (mut i32) (i32.const 0))
  (global $slots (mut i32) (i32.const 0))
  (global $entries (mut i32) (i32.const 0))
  (global $filter (mut i32) (i32.const 0))
  (global $mask (mut i32) (i32.const 0))
  (global $filterShift (mut i32) (i32.const 0))
  (global $entryCount (mut i32) (i32.const 0))
  ;; The regions' limits: the end of the bytes region, and the output arrays' length in lines.
  ;; The kernel traps rather than write past one (the caller then falls back).
  (global $bytesLimit (mut i32) (i32.const 0))
  (global $outCapacity (mut i32) (i32.const 0))

  (func (export "init")
    (param $used i32) (param $inS i32) (param $inE i32) (param $out i32) (param $report i32) (param $slots i32)
    (param $entries i32) (param $filter i32) (param $capLog2 i32) (param $bytesLimit i32) (param $outCapacity i32)
    (local $words i32)
    (global.set $used (local.get $used))
    (global.set $inS (local.get $inS))
    (global.set $inE (local.get $inE))
    (local.set $words (i32.shl (local.get $outCapacity) (i32.const 2)))
    (global.set $outS (local.get $out))
    (global.set $outE (i32.add (global.get $outS) (local.get $words)))
    (global.set $hostS (i32.add (global.get $outE) (local.get $words)))
    (global.set $hostE (i32.add (global.get $hostS) (local.get $words)))
    (global.set $from (i32.add (global.get $hostE) (local.get $words)))
    (global.set $parent (i32.add (global.get $from) (local.get $words)))
    (global.set $report (local.get $report))
    (global.set $slots (local.get $slots))
    (global.set $entries (local.get $entries))
    (global.set $filter (local.get $filter))
    (global.set $mask (i32.sub (i32.shl (i32.const 1) (local.get $capLog2)) (i32.const 1)))
    (global.set $filterShift (i32.sub (i32.const 29) (local.get $capLog2)))
    (global.set $bytesLimit (local.get $bytesLimit))
    (global.set $outCapacity (local.get $outCapacity))
    (global.set $count (i32.const 0))
    (call $clearTable (local.get $capLog2)))

  ;; Empties the table: its slots and filter (the memory is reused from step to step).
  (func $clearTable (param $capLog2 i32)
    (global.set $entryCount (i32.const 0))
    (memory.fill (global.get $slots) (i32.const 0) (i32.shl (i32.const 4) (local.get $capLog2)))
    (memory.fill (global.get $filter) (i32.const 0) (i32.shl (i32.const 1) (local.get $capLog2))))

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
  (func (export "used") (result i32) (global.get $used))
  (func (export "setUsed") (param $u i32) (global.set $used (local.get $u)))

  ;; FNV-1a of b[s, e), right to left (so a suffix's hash is known while scanning), going on
  ;; from h: 0x811c9dc5 for a whole string, or a path's hash and its dot for the label before it
  ;; (`pslBuild`).
  (func $hash (param $h i32) (param $s i32) (param $e i32) (result i32)
    (block $done
      (loop $next
        (br_if $done (i32.le_s (local.get $e) (local.get $s)))
        (local.set $e (i32.sub (local.get $e) (i32.const 1)))
        (local.set $h (i32.mul (i32.xor (local.get $h) (i32.load8_u (local.get $e))) (i32.const 0x01000193)))
        (br $next)))
    (local.get $h))

  (func $home (param $h i32) (result i32)
    (local.set $h (i32.xor (local.get $h) (i32.shr_u (local.get $h) (i32.const 16))))
    (local.set $h (i32.mul (local.get $h) (i32.const 0x45d9f3b)))
    (i32.xor (local.get $h) (i32.shr_u (local.get $h) (i32.const 16))))

  ;; Whether b[s, e) equals entry k's range.
  (func $equals (param $s i32) (param $e i32) (param $k i32) (result i32)
    (local $p i32) (local $ks i32) (local $n i32) (local $j i32)
    (local.set $p (i32.add (global.get $entries) (i32.mul (local.get $k) (i32.const 12))))
    (local.set $ks (i32.load (local.get $p)))
    (local.set $n (i32.sub (local.get $e) (local.get $s)))
    (if (i32.ne (i32.sub (i32.load offset=4 (local.get $p)) (local.get $ks)) (local.get $n))
      (then (return (i32.const 0))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_s (local.get $j) (local.get $n)))
        (if (i32.ne (i32.load8_u (i32.add (local.get $ks) (local.get $j)))
                    (i32.load8_u (i32.add (local.get $s) (local.get $j))))
          (then (return (i32.const 0))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $next)))
    (i32.const 1))

  ;; The address of the slot for b[s, e), whose hash is h: the slot of its entry, or the empty
  ;; slot where it would go.
  (func $slotOf (param $s i32) (param $e i32) (param $h i32) (result i32)
    (local $i i32) (local $slot i32)
    (local.set $i (i32.and (call $home (local.get $h)) (global.get $mask)))
    (block $found
      (loop $probe
        (local.set $slot (i32.load (i32.add (global.get $slots) (i32.shl (local.get $i) (i32.const 2)))))
        (br_if $found (i32.eqz (local.get $slot)))
        (if (i32.eq (i32.load (i32.add (global.get $entries)
                                       (i32.sub (i32.mul (local.get $slot) (i32.const 12)) (i32.const 4))))
                    (local.get $h))
          (then (br_if $found (call $equals (local.get $s) (local.get $e) (i32.sub (local.get $slot) (i32.const 1))))))
        (local.set $i (i32.and (i32.add (local.get $i) (i32.const 1)) (global.get $mask)))
        (br $probe)))
    (i32.add (global.get $slots) (i32.shl (local.get $i) (i32.const 2))))

  ;; Adds b[s, e); 1 when it was not there yet.
  (func $add (param $s i32) (param $e i32) (result i32)
    (local $h i32) (local $at i32) (local $k i32) (local $p i32) (local $bit i32)
    (local.set $h (call $hash (i32.const 0x811c9dc5) (local.get $s) (local.get $e)))
    (local.set $at (call $slotOf (local.get $s) (local.get $e) (local.get $h)))
    (if (i32.load (local.get $at)) (then (return (i32.const 0))))
    (local.set $k (global.get $entryCount))
    ;; At most half full: the entries region holds capacity / 2.
    (if (i32.ge_u (i32.shl (local.get $k) (i32.const 1)) (global.get $mask)) (then (unreachable)))
    (local.set $p (i32.add (global.get $entries) (i32.mul (local.get $k) (i32.const 12))))
    (i32.store (local.get $p) (local.get $s))
    (i32.store offset=4 (local.get $p) (local.get $e))
    (i32.store offset=8 (local.get $p) (local.get $h))
    (global.set $entryCount (i32.add (local.get $k) (i32.const 1)))
    (i32.store (local.get $at) (i32.add (local.get $k) (i32.const 1)))
    (local.set $bit (i32.shr_u (i32.mul (local.get $h) (i32.const 0x9e3779b1)) (global.get $filterShift)))
    (local.set $p (i32.add (global.get $filter) (i32.shl (i32.shr_u (local.get $bit) (i32.const 5)) (i32.const 2))))
    (i32.store (local.get $p) (i32.or (i32.load (local.get $p)) (i32.shl (i32.const 1) (local.get $bit))))
    (i32.const 1))

  ;; Whether b[s, e), whose hash is h, is in the table.
  (func $has (param $s i32) (param $e i32) (param $h i32) (result i32)
    (local $bit i32)
    (local.set $bit (i32.shr_u (i32.mul (local.get $h) (i32.const 0x9e3779b1)) (global.get $filterShift)))
    (if (i32.eqz (i32.and (i32.load (i32.add (global.get $filter)
                                             (i32.shl (i32.shr_u (local.get $bit) (i32.const 5)) (i32.const 2))))
                          (i32.shl (i32.const 1) (local.get $bit))))
      (then (return (i32.const 0))))
    (i32.ne (i32.load (call $slotOf (local.get $s) (local.get $e) (local.get $h))) (i32.const 0)))

  ;; Adds an output line: the range [s, e) made from input line i, with its hostname [hs, he) or -1.
  (func $push (export "push") (param $s i32) (param $e i32) (param $hs i32) (param $he i32) (param $i i32)
    (local $o i32)
    (if (i32.ge_u (global.get $count) (global.get $outCapacity)) (then (unreachable)))
    (local.set $o (i32.shl (global.get $count) (i32.const 2)))
    (i32.store (i32.add (global.get $outS) (local.get $o)) (local.get $s))
    (i32.store (i32.add (global.get $outE) (local.get $o)) (local.get $e))
    (i32.store (i32.add (global.get $hostS) (local.get $o)) (local.get $hs))
    (i32.store (i32.add (global.get $hostE) (local.get $o)) (local.get $he))
    (i32.store (i32.add (global.get $from) (local.get $o)) (local.get $i))
    (global.set $count (i32.add (global.get $count) (i32.const 1))))

  ;; Keeps the first rule per hostname [ns, ne): as `||name^` with rewrite, else as input line i.
  (func $keep (export "keep") (param $ns i32) (param $ne i32) (param $rewrite i32) (param $i i32)
    (local $at i32) (local $n i32)
    (if (i32.eqz (call $add (local.get $ns) (local.get $ne)))
      (then
        (if (global.get $report)
          (then (call $push (i32.const -1) (i32.const -1) (local.get $ns) (local.get $ne) (local.get $i))))
        (return)))
    (if (local.get $rewrite)
      (then
        (local.set $at (global.get $used))
        (local.set $n (i32.sub (local.get $ne) (local.get $ns)))
        (if (i32.gt_u (i32.add (i32.add (local.get $at) (local.get $n)) (i32.const 3)) (global.get $bytesLimit))
          (then (unreachable)))
        (i32.store16 (local.get $at) (i32.const 0x7c7c))
        (memory.copy (i32.add (local.get $at) (i32.const 2)) (local.get $ns) (local.get $n))
        (i32.store8 (i32.add (i32.add (local.get $at) (i32.const 2)) (local.get $n)) (i32.const 94))
        (global.set $used (i32.add (i32.add (local.get $at) (local.get $n)) (i32.const 3)))
        (call $push (local.get $at) (global.get $used)
                    (i32.add (local.get $at) (i32.const 2))
                    (i32.add (i32.add (local.get $at) (i32.const 2)) (local.get $n))
                    (local.get $i)))
      (else
        (call $push
          (i32.load (i32.add (global.get $inS) (i32.shl (local.get $i) (i32.const 2))))
          (i32.load (i32.add (global.get $inE) (i32.shl (local.get $i) (i32.const 2))))
          (local.get $ns) (local.get $ne) (local.get $i)))))

  ;; plainHostRuleHostname (rule-text.ts): the hostname's start in `||[a-z0-9.-]+^`, else -1.
  (func $plainAt (param $s i32) (param $e i32) (result i32)
    (local $i i32) (local $k i32)
    (if (i32.lt_s (i32.sub (local.get $e) (local.get $s)) (i32.const 4)) (then (return (i32.const -1))))
    (if (i32.ne (i32.load16_u (local.get $s)) (i32.const 0x7c7c)) (then (return (i32.const -1))))
    (if (i32.ne (i32.load8_u (i32.sub (local.get $e) (i32.const 1))) (i32.const 94)) (then (return (i32.const -1))))
    (local.set $i (i32.add (local.get $s) (i32.const 2)))
    (local.set $e (i32.sub (local.get $e) (i32.const 1)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_s (local.get $i) (local.get $e)))
        ;; HYPHEN (3) .. LOWER (5)
        (if (i32.gt_u (i32.sub (i32.load8_u (i32.load8_u (local.get $i))) (i32.const 3)) (i32.const 2))
          (then (return (i32.const -1))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (i32.add (local.get $s) (i32.const 2)))

  ;; Where the name of `0.0.0.0 name` or `127.0.0.1 name` starts (one space, no whitespace, `#`
  ;; or non-ASCII byte in the name: a hosts line, rule-text.ts, whose one name it is), else -1.
  (func $simpleAt (param $s i32) (param $e i32) (result i32)
    (local $i i32)
    (if (i32.and (i32.ge_s (i32.sub (local.get $e) (local.get $s)) (i32.const 8))
                 (i64.eq (i64.load (local.get $s)) (i64.const 0x20302e302e302e30)))
      (then (local.set $i (i32.add (local.get $s) (i32.const 8))))
      (else
        (if (i32.and (i32.ge_s (i32.sub (local.get $e) (local.get $s)) (i32.const 10))
                     (i32.and (i64.eq (i64.load (local.get $s)) (i64.const 0x2e302e302e373231))
                              (i32.eq (i32.load16_u offset=8 (local.get $s)) (i32.const 0x2031))))
          (then (local.set $i (i32.add (local.get $s) (i32.const 10))))
          (else (return (i32.const -1))))))
    (if (i32.ge_s (local.get $i) (local.get $e)) (then (return (i32.const -1))))
    (local.set $s (local.get $i))
    (block $done
      (loop $next
        (br_if $done (i32.ge_s (local.get $i) (local.get $e)))
        ;; SPACE (0) or NAME_STOP (1)
        (if (i32.le_u (i32.load8_u (i32.load8_u (local.get $i))) (i32.const 1)) (then (return (i32.const -1))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $s))

  ;; isJustDomain (rule-text.ts); only ASCII can be a domain here.
  (func $justDomainAt (param $s i32) (param $e i32) (result i32)
    (local $n i32) (local $trailingDot i32) (local $end i32) (local $labels i32) (local $label i32)
    (local $i i32) (local $k i32) (local $len i32)
    (local.set $n (i32.sub (local.get $e) (local.get $s)))
    (if (i32.or (i32.eqz (local.get $n)) (i32.gt_s (local.get $n) (i32.const 255))) (then (return (i32.const 0))))
    (local.set $trailingDot (i32.eq (i32.load8_u (i32.sub (local.get $e) (i32.const 1))) (i32.const 46)))
    (local.set $end (i32.sub (local.get $e) (local.get $trailingDot)))
    (if (i32.eq (local.get $end) (local.get $s)) (then (return (i32.const 0))))
    (local.set $label (local.get $s))
    (local.set $i (local.get $s))
    (block $done
      (loop $next
        (br_if $done (i32.gt_s (local.get $i) (local.get $end)))
        (local.set $k
          (if (result i32) (i32.lt_s (local.get $i) (local.get $end))
            (then (i32.load8_u (i32.load8_u (local.get $i))))
            (else (i32.const 4))))
        (if (i32.eq (local.get $k) (i32.const 4))
          (then
            (local.set $len (i32.sub (local.get $i) (local.get $label)))
            ;; One test at a time: WebAssembly's i32.or evaluates both sides, and an empty
            ;; label at the list's first byte has no byte before it.
            (if (i32.or (i32.eqz (local.get $len)) (i32.gt_s (local.get $len) (i32.const 63)))
              (then (return (i32.const 0))))
            (if (i32.lt_u (i32.load8_u (i32.load8_u (local.get $label))) (i32.const 5)) (then (return (i32.const 0))))
            (if (i32.lt_u (i32.load8_u (i32.load8_u (i32.sub (local.get $i) (i32.const 1)))) (i32.const 5))
              (then (return (i32.const 0))))
            (local.set $labels (i32.add (local.get $labels) (i32.const 1)))
            (local.set $label (i32.add (local.get $i) (i32.const 1))))
          (else
            (if (i32.lt_u (local.get $k) (i32.const 3)) (then (return (i32.const 0))))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (i32.or (i32.gt_s (local.get $labels) (i32.const 1)) (local.get $trailingDot)))

  ;; Whether the rule b[s, e) (no whitespace at its ends, not `@@`, not a regex) has modifiers:
  ;; text other than commas after its last unescaped `$`. Such a rule keeps its text and is no
  ;; hostname rule for Compress.
  (func $hasModifiers (param $s i32) (param $e i32) (result i32)
    (local $last i32) (local $i i32) (local $j i32) (local $escaped i32)
    (local.set $last (i32.load8_u (i32.sub (local.get $e) (i32.const 1))))
    (if (i32.or (i32.ge_u (local.get $last) (i32.const 128)) (i32.eqz (i32.load8_u (local.get $last))))
      (then (return (i32.const 0))))
    (local.set $i (i32.sub (local.get $e) (i32.const 1)))
    (block $done
      (loop $next
        (br_if $done (i32.lt_s (local.get $i) (local.get $s)))
        ;; An unescaped `$`; the byte before is read only when there is one.
        (local.set $escaped (i32.const 0))
        (if (i32.gt_s (local.get $i) (local.get $s))
          (then (local.set $escaped (i32.eq (i32.load8_u (i32.sub (local.get $i) (i32.const 1))) (i32.const 92)))))
        (if (i32.and (i32.eq (i32.load8_u (local.get $i)) (i32.const 36)) (i32.eqz (local.get $escaped)))
          (then
            (local.set $j (i32.add (local.get $i) (i32.const 1)))
            (block $scanned
              (loop $scan
                (br_if $scanned (i32.ge_s (local.get $j) (local.get $e)))
                (if (i32.ne (i32.load8_u (local.get $j)) (i32.const 44)) (then (return (i32.const 1))))
                (local.set $j (i32.add (local.get $j) (i32.const 1)))
                (br $scan)))
            (return (i32.const 0))))
        (local.set $i (i32.sub (local.get $i) (i32.const 1)))
        (br $next)))
    (i32.const 0))

  ;; False when `otherCompressible` (transforms/compress.ts) is sure to find nothing in b[s, e),
  ;; which is not a bare domain: it neither starts with `||` (after trimming) nor with an address
  ;; followed by `%` or whitespace (a hosts line). Spares most lines their decoding.
  (func $mayBe (param $s i32) (param $e i32) (result i32)
    (local $c i32) (local $i i32)
    (local.set $c (i32.load8_u (local.get $s)))
    (if (i32.eq (local.get $c) (i32.const 124))
      (then (return (i32.and (i32.eq (i32.load8_u offset=1 (local.get $s)) (i32.const 124))
                             (i32.eqz (call $hasModifiers (local.get $s) (local.get $e)))))))
    (if (i32.or (i32.ge_u (local.get $c) (i32.const 128)) (i32.eqz (i32.load8_u (local.get $c))))
      (then (return (i32.const 1))))
    (local.set $i (local.get $s))
    (block $done
      (loop $next
        (br_if $done (i32.ge_s (local.get $i) (local.get $e)))
        (br_if $done (i32.eqz (i32.load8_u offset=256 (i32.load8_u (local.get $i)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (if (i32.or (i32.le_s (local.get $i) (local.get $s)) (i32.ge_s (local.get $i) (local.get $e)))
      (then (return (i32.const 0))))
    (local.set $c (i32.load8_u (local.get $i)))
    (i32.or (i32.or (i32.eq (local.get $c) (i32.const 37)) (i32.ge_u (local.get $c) (i32.const 128)))
            (i32.eqz (i32.load8_u (local.get $c)))))

  ;; The first pass from input line i: returns the first line JavaScript must decide, or n.
  (func (export "run") (param $i i32) (param $n i32) (result i32)
    (local $s i32) (local $e i32) (local $p i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_s (local.get $i) (local.get $n)))
        (local.set $s (i32.load (i32.add (global.get $inS) (i32.shl (local.get $i) (i32.const 2)))))
        (local.set $e (i32.load (i32.add (global.get $inE) (i32.shl (local.get $i) (i32.const 2)))))
        (block $decided
          (local.set $p (call $plainAt (local.get $s) (local.get $e)))
          (if (i32.ne (local.get $p) (i32.const -1))
            (then (call $keep (local.get $p) (i32.sub (local.get $e) (i32.const 1)) (i32.const 0) (local.get $i))
              (br $decided)))
          (local.set $p (call $simpleAt (local.get $s) (local.get $e)))
          (if (i32.ne (local.get $p) (i32.const -1))
            (then (call $keep (local.get $p) (local.get $e) (i32.const 1) (local.get $i)) (br $decided)))
          (if (call $justDomainAt (local.get $s) (local.get $e))
            (then (call $keep (local.get $s) (local.get $e) (i32.const 1) (local.get $i)) (br $decided)))
          (if (call $mayBe (local.get $s) (local.get $e)) (then (return (local.get $i))))
          (call $push (local.get $s) (local.get $e) (i32.const -1) (i32.const -1) (local.get $i)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $n))

  ;; The parent-domain pass: for each output line with a hostname, where its nearest parent
  ;; domain in the table starts, or -1 (compress.ts drops the lines that have one). Returns how
  ;; many output lines there are.
  (func (export "parents") (result i32)
    (local $k i32) (local $o i32) (local $hs i32) (local $he i32)
    (local $i i32) (local $h i32) (local $found i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_s (local.get $k) (global.get $count)))
        (local.set $o (i32.shl (local.get $k) (i32.const 2)))
        (local.set $hs (i32.load (i32.add (global.get $hostS) (local.get $o))))
        (local.set $found (i32.const -1))
        (if (i32.ne (local.get $hs) (i32.const -1))
          (then
            (local.set $he (i32.load (i32.add (global.get $hostE) (local.get $o))))
            (local.set $h (i32.const 0x811c9dc5))
            (local.set $i (local.get $he))
            (block $walked
              (loop $walk
                (local.set $i (i32.sub (local.get $i) (i32.const 1)))
                (br_if $walked (i32.le_s (local.get $i) (local.get $hs)))
                (local.set $h (i32.mul (i32.xor (local.get $h) (i32.load8_u (local.get $i))) (i32.const 0x01000193)))
                (if (i32.eq (i32.load8_u (i32.sub (local.get $i) (i32.const 1))) (i32.const 46))
                  (then (if (call $has (local.get $i) (local.get $he) (local.get $h))
                          (then (local.set $found (local.get $i))))))
                (br $walk)))))
        (i32.store (i32.add (global.get $parent) (local.get $o)) (local.get $found))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $next)))
    (global.get $count))

  ;; The lines of the n at inStart/inEnd that start with `!` or `#`, the only ones `isCommentAt`
  ;; (packed.ts) can find comments: their indices go to out, and the byte at flags + i is zeroed
  ;; for every line. Returns how many (deduplicate.ts decides those lines, for $dedup).
  (func (export "commentCandidates") (param $inStart i32) (param $inEnd i32) (param $n i32)
    (param $flags i32) (param $out i32) (result i32)
    (local $i i32) (local $k i32) (local $s i32) (local $c i32)
    (memory.fill (local.get $flags) (i32.const 0) (local.get $n))
    (block $done
      (loop $next
        (br_if $done (i32.ge_s (local.get $i) (local.get $n)))
        (local.set $s (i32.load (i32.add (local.get $inStart) (i32.shl (local.get $i) (i32.const 2)))))
        (if (i32.lt_s (local.get $s) (i32.load (i32.add (local.get $inEnd) (i32.shl (local.get $i) (i32.const 2)))))
          (then
            (local.set $c (i32.load8_u (local.get $s)))
            (if (i32.or (i32.eq (local.get $c) (i32.const 33)) (i32.eq (local.get $c) (i32.const 35)))
              (then
                (i32.store (i32.add (local.get $out) (i32.shl (local.get $k) (i32.const 2))) (local.get $i))
                (local.set $k (i32.add (local.get $k) (i32.const 1)))))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $k))

  ;; Deduplicate (transforms/deduplicate.ts) on the n lines at inStart/inEnd: keep[i] (a byte
  ;; at keep + i) as `dropWithAbove` gives it. Walking from the end, a line already seen (its later
  ;; copy is kept) that is no comment nor empty is dropped, and so are the comments and empty
  ;; lines directly above it. The byte at comment + i is 1 when line i is a comment
  ;; (deduplicate.ts writes them, by `isCommentAt`). The table is built afresh in the regions
  ;; given, for capacity 2^capLog2.
  (func (export "dedup")
    (param $inStart i32) (param $inEnd i32) (param $n i32) (param $keep i32) (param $comment i32)
    (param $slots i32) (param $entries i32) (param $filter i32) (param $capLog2 i32)
    (local $i i32) (local $s i32) (local $e i32) (local $seen i32) (local $blank i32) (local $removing i32)
    (global.set $slots (local.get $slots))
    (global.set $entries (local.get $entries))
    (global.set $filter (local.get $filter))
    (global.set $mask (i32.sub (i32.shl (i32.const 1) (local.get $capLog2)) (i32.const 1)))
    (global.set $filterShift (i32.sub (i32.const 29) (local.get $capLog2)))
    (call $clearTable (local.get $capLog2))
    (local.set $i (local.get $n))
    (block $done
      (loop $next
        (br_if $done (i32.le_s (local.get $i) (i32.const 0)))
        (local.set $i (i32.sub (local.get $i) (i32.const 1)))
        (local.set $s (i32.load (i32.add (local.get $inStart) (i32.shl (local.get $i) (i32.const 2)))))
        (local.set $e (i32.load (i32.add (local.get $inEnd) (i32.shl (local.get $i) (i32.const 2)))))
        (local.set $seen (i32.eqz (call $add (local.get $s) (local.get $e))))
        (local.set $blank (i32.or (i32.eq (local.get $s) (local.get $e))
                                  (i32.load8_u (i32.add (local.get $comment) (local.get $i)))))
        (if (i32.and (local.get $seen) (i32.eqz (local.get $blank)))
          (then
            (local.set $removing (i32.const 1))
            (i32.store8 (i32.add (local.get $keep) (local.get $i)) (i32.const 0)))
          (else
            (if (i32.and (local.get $removing) (local.get $blank))
              (then (i32.store8 (i32.add (local.get $keep) (local.get $i)) (i32.const 0)))
              (else
                (local.set $removing (i32.const 0))
                (i32.store8 (i32.add (local.get $keep) (local.get $i)) (i32.const 1))))))
        (br $next))))

  ;; cleanHostname (rule-validity.ts), with HOST_CODE at 512-767: letter 1, dot 2, invalid 4.
  (func $cleanHostname (param $s i32) (param $e i32) (result i32)
    (local $n i32) (local $kinds i32) (local $label i32) (local $i i32) (local $kind i32)
    (local.set $n (i32.sub (local.get $e) (local.get $s)))
    (if (i32.or (i32.eqz (local.get $n)) (i32.gt_s (local.get $n) (i32.const 253))) (then (return (i32.const 0))))
    (local.set $label (local.get $s))
    (local.set $i (local.get $s))
    (block $done
      (loop $next
        (br_if $done (i32.ge_s (local.get $i) (local.get $e)))
        (local.set $kind (i32.load8_u offset=512 (i32.load8_u (local.get $i))))
        (local.set $kinds (i32.or (local.get $kinds) (local.get $kind)))
        (if (i32.eq (local.get $kind) (i32.const 2))
          (then
            (if (i32.eq (local.get $i) (local.get $label)) (then (return (i32.const 0))))
            (if (i32.gt_s (i32.sub (local.get $i) (local.get $label)) (i32.const 63)) (then (return (i32.const 0))))
            (if (i32.eq (i32.load8_u (local.get $label)) (i32.const 45)) (then (return (i32.const 0))))
            (if (i32.eq (i32.load8_u (i32.sub (local.get $i) (i32.const 1))) (i32.const 45))
              (then (return (i32.const 0))))
            (local.set $label (i32.add (local.get $i) (i32.const 1)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (if (i32.and (local.get $kinds) (i32.const 4)) (then (return (i32.const 0))))
    (if (i32.eq (local.get $e) (local.get $label)) (then (return (i32.const 0))))
    (if (i32.gt_s (i32.sub (local.get $e) (local.get $label)) (i32.const 63)) (then (return (i32.const 0))))
    (if (i32.eq (i32.load8_u (local.get $label)) (i32.const 45)) (then (return (i32.const 0))))
    (if (i32.eq (i32.load8_u (i32.sub (local.get $e) (i32.const 1))) (i32.const 45)) (then (return (i32.const 0))))
    (i32.ne (i32.and (local.get $kinds) (i32.const 1)) (i32.const 0)))

  ;; Whether the rules trie surely leaves the clean name b[s, e) not its own public suffix:
  ;; tldts' walk of the rules trie (the deepest ICANN node matched, labels right to left; its
  ;; exceptions only ever make a name not its own suffix) would stop before its last label, with
  ;; no `*` child to take, and it has a dot. The trie's nodes are a set of path hashes at $psl
  ;; (kernel.ts, `pslNodeSet`); a hash found where no node is only ends in 0 (the TypeScript decides).
  (func $notOwnSuffix (param $s i32) (param $e i32) (param $psl i32) (param $mask i32) (result i32)
    (local $h i32) (local $before i32) (local $i i32) (local $depth i32)
    (local.set $before (i32.const 0x811c9dc5))
    (local.set $i (i32.sub (local.get $e) (i32.const 1)))
    (loop $label
      ;; A `*` child where this label is looked up: the walk may take it, so no verdict.
      (if (call $setHas (local.get $psl) (local.get $mask)
                        (i32.mul (i32.xor (local.get $before) (i32.const 42)) (i32.const 0x01000193)))
        (then (return (i32.const 0))))
      (local.set $h (local.get $before))
      (block $start
        (loop $byte
          (br_if $start (i32.lt_s (local.get $i) (local.get $s)))
          (br_if $start (i32.eq (i32.load8_u (local.get $i)) (i32.const 46)))
          (local.set $h (i32.mul (i32.xor (local.get $h) (i32.load8_u (local.get $i))) (i32.const 0x01000193)))
          (local.set $i (i32.sub (local.get $i) (i32.const 1)))
          (br $byte)))
      (if (i32.eqz (call $setHas (local.get $psl) (local.get $mask) (local.get $h)))
        ;; The walk stops at this label: not its own suffix when the name has a dot.
        (then (return (i32.or (i32.ge_s (local.get $i) (local.get $s)) (i32.gt_s (local.get $depth) (i32.const 0))))))
      ;; Every label walked: it may be its own suffix.
      (if (i32.lt_s (local.get $i) (local.get $s)) (then (return (i32.const 0))))
      (local.set $before (i32.mul (i32.xor (local.get $h) (i32.const 46)) (i32.const 0x01000193)))
      (local.set $i (i32.sub (local.get $i) (i32.const 1)))
      (local.set $depth (i32.add (local.get $depth) (i32.const 1)))
      (br $label))
    (i32.const 0))

  ;; The address of the slot for the path hash h in the set at $set (`pslNodeSet`: slots hold
  ;; h | 1, 0 is empty): the one holding it, or the empty one where it would go.
  (func $setSlot (param $set i32) (param $mask i32) (param $h i32) (result i32)
    (local $i i32) (local $slot i32)
    (local.set $i (i32.and (call $home (i32.or (local.get $h) (i32.const 1))) (local.get $mask)))
    (block $found
      (loop $probe
        (local.set $slot (i32.load (i32.add (local.get $set) (i32.shl (local.get $i) (i32.const 2)))))
        (br_if $found (i32.eqz (local.get $slot)))
        (br_if $found (i32.eq (local.get $slot) (i32.or (local.get $h) (i32.const 1))))
        (local.set $i (i32.and (i32.add (local.get $i) (i32.const 1)) (local.get $mask)))
        (br $probe)))
    (i32.add (local.get $set) (i32.shl (local.get $i) (i32.const 2))))

  ;; kernel.ts, `pslNodeSet`: every node of the rules trie whose text (psl-data.ts, PSL_RULES, as
  ;; UTF-8) is at [t, te) into the zeroed set at $psl. A line per top-level label,
  ;; `label<TAB>flags`, then its children `{label:flags…,…}`, nested; $stack holds the open
  ;; nodes' path hashes, each with a dot after it (64 levels: the 256 bytes `pslNodeSet` leaves
  ;; between the set and the text; PSL_RULES nests 6 deep).
  (func (export "pslBuild") (param $t i32) (param $te i32) (param $psl i32) (param $mask i32) (param $stack i32)
    (local $i i32) (local $at i32) (local $c i32) (local $h i32) (local $sp i32)
    (local.set $i (local.get $t))
    ;; Past the root's line.
    (block $root
      (loop $next
        (br_if $root (i32.ge_u (local.get $i) (local.get $te)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br_if $root (i32.eq (i32.load8_u (i32.sub (local.get $i) (i32.const 1))) (i32.const 10)))
        (br $next)))
    (block $lines
      (loop $line
        (br_if $lines (i32.ge_u (local.get $i) (local.get $te)))
        (local.set $at (local.get $i))
        (block $tab
          (loop $next
            (br_if $tab (i32.eq (i32.load8_u (local.get $at)) (i32.const 9)))
            (local.set $at (i32.add (local.get $at) (i32.const 1)))
            (br $next)))
        (local.set $h (call $hash (i32.const 0x811c9dc5) (local.get $i) (local.get $at)))
        (i32.store (call $setSlot (local.get $psl) (local.get $mask) (local.get $h))
                   (i32.or (local.get $h) (i32.const 1)))
        (local.set $at (i32.add (local.get $at) (i32.const 2)))
        (local.set $sp (local.get $stack))
        (block $children
          (loop $child
            (local.set $c (i32.const 10))
            (if (i32.lt_u (local.get $at) (local.get $te)) (then (local.set $c (i32.load8_u (local.get $at)))))
            (if (i32.eq (local.get $c) (i32.const 125)) ;; }
              (then
                (local.set $sp (i32.sub (local.get $sp) (i32.const 4)))
                (local.set $at (i32.add (local.get $at) (i32.const 1)))
                (br $child)))
            (if (i32.eq (local.get $c) (i32.const 123)) ;; {
              (then
                (i32.store (local.get $sp) (i32.mul (i32.xor (local.get $h) (i32.const 46)) (i32.const 0x01000193)))
                (local.set $sp (i32.add (local.get $sp) (i32.const 4)))))
            (br_if $children (i32.and (i32.ne (local.get $c) (i32.const 123)) (i32.ne (local.get $c) (i32.const 44))))
            (local.set $at (i32.add (local.get $at) (i32.const 1)))
            (local.set $i (local.get $at))
            (block $colon
              (loop $next
                (br_if $colon (i32.eq (i32.load8_u (local.get $at)) (i32.const 58)))
                (local.set $at (i32.add (local.get $at) (i32.const 1)))
                (br $next)))
            (local.set $h (call $hash (i32.load (i32.sub (local.get $sp) (i32.const 4)))
                                      (local.get $i) (local.get $at)))
            (i32.store (call $setSlot (local.get $psl) (local.get $mask) (local.get $h))
                       (i32.or (local.get $h) (i32.const 1)))
            (local.set $at (i32.add (local.get $at) (i32.const 2)))
            (br $child)))
        ;; Past the line's end.
        (local.set $i (i32.add (local.get $at) (i32.const 1)))
        (br $line))))

  ;; Whether the path hash h is in the set at $set.
  (func $setHas (param $set i32) (param $mask i32) (param $h i32) (result i32)
    (i32.ne (i32.load (call $setSlot (local.get $set) (local.get $mask) (local.get $h))) (i32.const 0)))

  ;; splitText (load/split.ts) of the list b[from, to), trimmed, without line numbers: each run
  ;; of CR/LF ends a line; the lines' ranges go to start and end. Returns how many lines
  ;; (kernel.ts, `splitInKernel`).
  (func (export "split") (param $from i32) (param $to i32)
    (param $start i32) (param $end i32) (result i32)
    (local $i i32) (local $j i32) (local $k i32) (local $c i32) (local $w i64)
    (i32.store (local.get $start) (local.get $from))
    (local.set $i (local.get $from))
    (block $done
      (loop $next
        ;; Eight bytes at a time while none is below 14, i.e. at most CR ("hasless", Bit
        ;; Twiddling Hacks), then straight to the first byte below 14: a borrow may flag bytes
        ;; above a real one, never one below it, nor miss one.
        (block $found
          (loop $word
            (br_if $found (i32.gt_s (i32.add (local.get $i) (i32.const 8)) (local.get $to)))
            (local.set $w (i64.load (local.get $i)))
            (local.set $w (i64.and (i64.and (i64.sub (local.get $w) (i64.const 0x0e0e0e0e0e0e0e0e))
                                            (i64.xor (local.get $w) (i64.const -1)))
                                   (i64.const 0x8080808080808080)))
            (if (i64.ne (local.get $w) (i64.const 0))
              (then
                (local.set $i (i32.add (local.get $i)
                                       (i32.wrap_i64 (i64.shr_u (i64.ctz (local.get $w)) (i64.const 3)))))
                (br $found)))
            (local.set $i (i32.add (local.get $i) (i32.const 8)))
            (br $word)))
        (br_if $done (i32.ge_s (local.get $i) (local.get $to)))
        (local.set $c (i32.load8_u (local.get $i)))
        (if (i32.and (i32.ne (local.get $c) (i32.const 10)) (i32.ne (local.get $c) (i32.const 13)))
          (then (local.set $i (i32.add (local.get $i) (i32.const 1))) (br $next)))
        (i32.store (i32.add (local.get $end) (i32.shl (local.get $k) (i32.const 2))) (local.get $i))
        (local.set $j (local.get $i))
        (block $run
          (loop $break
            (br_if $run (i32.ge_s (local.get $j) (local.get $to)))
            (local.set $c (i32.load8_u (local.get $j)))
            (br_if $run (i32.and (i32.ne (local.get $c) (i32.const 10)) (i32.ne (local.get $c) (i32.const 13))))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $break)))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (i32.store (i32.add (local.get $start) (i32.shl (local.get $k) (i32.const 2))) (local.get $j))
        (local.set $i (local.get $j))
        (br $next)))
    (i32.store (i32.add (local.get $end) (i32.shl (local.get $k) (i32.const 2))) (local.get $to))
    (i32.add (local.get $k) (i32.const 1)))

  ;; The n lines whose ranges are at inStart and inEnd joined at out, one LF between each two.
  ;; Returns the end of what it wrote (kernel.ts, `joinInKernel`, makes room for them).
  (func (export "join") (param $inStart i32) (param $inEnd i32)
    (param $n i32) (param $out i32) (result i32)
    (local $i i32) (local $s i32) (local $len i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_s (local.get $i) (local.get $n)))
        (local.set $s (i32.load (i32.add (local.get $inStart) (i32.shl (local.get $i) (i32.const 2)))))
        (local.set $len (i32.sub (i32.load (i32.add (local.get $inEnd) (i32.shl (local.get $i) (i32.const 2))))
                                 (local.get $s)))
        (memory.copy (local.get $out) (local.get $s) (local.get $len))
        (local.set $out (i32.add (local.get $out) (local.get $len)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (if (i32.lt_s (local.get $i) (local.get $n))
          (then
            (i32.store8 (local.get $out) (i32.const 10))
            (local.set $out (i32.add (local.get $out) (i32.const 1)))))
        (br $next)))
    (local.get $out))

  ;; `d.d.d.d`, each 0-255 without a leading zero: an address for tldts (rule-validity.ts,
  ;; `isIpCandidate`), and no IP pattern the checks before it reject (`ipPatternProblem`).
  (func $plainIpv4 (param $s i32) (param $e i32) (result i32)
    (local $octets i32) (local $i i32) (local $first i32) (local $value i32) (local $c i32) (local $digits i32)
    (local.set $i (local.get $s))
    (block $done
      (loop $octet
        (br_if $done (i32.ge_s (local.get $i) (local.get $e)))
        (local.set $first (local.get $i))
        (local.set $value (i32.const 0))
        (block $end
          (loop $digit
            (br_if $end (i32.ge_s (local.get $i) (local.get $e)))
            (br_if $end (i32.ge_s (i32.sub (local.get $i) (local.get $first)) (i32.const 3)))
            (local.set $c (i32.sub (i32.load8_u (local.get $i)) (i32.const 48)))
            (br_if $end (i32.gt_u (local.get $c) (i32.const 9)))
            (local.set $value (i32.add (i32.mul (local.get $value) (i32.const 10)) (local.get $c)))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $digit)))
        (local.set $digits (i32.sub (local.get $i) (local.get $first)))
        (if (i32.eqz (local.get $digits)) (then (return (i32.const 0))))
        (if (i32.gt_s (local.get $value) (i32.const 255)) (then (return (i32.const 0))))
        (if (i32.gt_s (local.get $digits) (i32.const 1))
          (then (if (i32.eq (i32.load8_u (local.get $first)) (i32.const 48)) (then (return (i32.const 0))))))
        (local.set $octets (i32.add (local.get $octets) (i32.const 1)))
        (br_if $done (i32.eq (local.get $i) (local.get $e)))
        (if (i32.ne (i32.load8_u (local.get $i)) (i32.const 46)) (then (return (i32.const 0))))
        (if (i32.eq (local.get $octets) (i32.const 4)) (then (return (i32.const 0))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (if (i32.eq (local.get $i) (local.get $e)) (then (return (i32.const 0))))
        (br $octet)))
    (i32.eq (local.get $octets) (i32.const 4)))

  ;; Whether b[s, e) is one of the names at $mods (validate.ts, `MODIFIER_NAMES`: each name's
  ;; length in a byte, then its bytes; a 0 length ends them).
  (func $isModifier (param $mods i32) (param $s i32) (param $e i32) (result i32)
    (local $len i32) (local $i i32)
    (loop $name
      (local.set $len (i32.load8_u (local.get $mods)))
      (if (i32.eqz (local.get $len)) (then (return (i32.const 0))))
      (if (i32.eq (local.get $len) (i32.sub (local.get $e) (local.get $s)))
        (then
          (local.set $i (i32.const 0))
          (block $differ
            (loop $byte
              (if (i32.eq (local.get $i) (local.get $len)) (then (return (i32.const 1))))
              (br_if $differ (i32.ne (i32.load8_u offset=1 (i32.add (local.get $mods) (local.get $i)))
                                     (i32.load8_u (i32.add (local.get $s) (local.get $i)))))
              (local.set $i (i32.add (local.get $i) (i32.const 1)))
              (br $byte)))))
      (local.set $mods (i32.add (local.get $mods) (i32.add (local.get $len) (i32.const 1))))
      (br $name))
    (i32.const 0))

  ;; The options loop of adblockRuleProblem (rule-validity.ts) on the options b[s, e) (after the
  ;; last `$`), as parseAdblockRule splits them: parts at `,`, empty ones dropped, each part's
  ;; name ending at its first `=`. 1 when every name is at $mods, 0 when one is not, -1 for
  ;; options holding a `\` (an escape), which the TypeScript reads.
  (func $modifiersSupported (param $s i32) (param $e i32) (param $mods i32) (result i32)
    (local $i i32) (local $part i32) (local $name i32) (local $c i32) (local $all i32)
    (local.set $all (i32.const 1))
    (local.set $part (local.get $s))
    (local.set $name (i32.const -1))
    (local.set $i (local.get $s))
    (loop $next
      ;; A `,` after the last byte ends the last part.
      (local.set $c (i32.const 44))
      (if (i32.lt_s (local.get $i) (local.get $e)) (then (local.set $c (i32.load8_u (local.get $i)))))
      (if (i32.eq (local.get $c) (i32.const 92)) (then (return (i32.const -1))))
      (if (i32.and (i32.eq (local.get $c) (i32.const 61)) (i32.eq (local.get $name) (i32.const -1)))
        (then (local.set $name (local.get $i))))
      (if (i32.eq (local.get $c) (i32.const 44))
        (then
          (if (i32.eq (local.get $name) (i32.const -1)) (then (local.set $name (local.get $i))))
          (if (i32.gt_s (local.get $i) (local.get $part))
            (then
              (if (i32.eqz (call $isModifier (local.get $mods) (local.get $part) (local.get $name)))
                (then (local.set $all (i32.const 0))))))
          (local.set $part (i32.add (local.get $i) (i32.const 1)))
          (local.set $name (i32.const -1))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $next (i32.le_s (local.get $i) (local.get $e))))
    (local.get $all))

  ;; fullRuleProblem (rule-validity.ts) of the line b[s, e), where it can be told on bytes whatever
  ;; allowPublicSuffix (with $allowIp, after the IP rules are rewritten: normalizeIpRule):
  ;;   1, kept: `||name^` or `@@||name^`, with supported modifiers or none, whose name is clean
  ;;      (`cleanHostname`) and cannot be its own public suffix ($psl is not 0, and the trie's walk
  ;;      stops before its last label);
  ;;   2, dropped: `||a.b.c.d^` or `@@||a.b.c.d^`, a plain IPv4 address and no modifiers (1, kept,
  ;;      with $allowIp);
  ;;   3, dropped: a pattern of 5 or more with a character outside DOMAIN_CHAR (`a.org##.ad`);
  ;;   4, dropped: a modifier that is not at $mods;
  ;;   0: the TypeScript decides (non-ASCII text, lines starting `!` or `#`, hosts lines, regular expressions,
  ;;      escapes, `://` patterns, public suffixes, and whatever else is left).
  (func $verdict (param $s i32) (param $e i32) (param $psl i32) (param $pslMask i32) (param $mods i32)
    (param $allowIp i32) (result i32)
    (local $i i32) (local $c i32) (local $p i32) (local $pe i32) (local $supported i32) (local $ns i32) (local $ne i32)
    (if (i32.eq (local.get $s) (local.get $e)) (then (return (i32.const 0))))
    ;; Non-ASCII: JavaScript's trim and `\s` take some such characters.
    (local.set $i (local.get $s))
    (loop $byte
      (if (i32.ge_u (i32.load8_u (local.get $i)) (i32.const 128)) (then (return (i32.const 0))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $byte (i32.lt_s (local.get $i) (local.get $e))))
    ;; Comments, and anything else starting `!` or `#`, go to the TypeScript.
    (local.set $c (i32.load8_u (local.get $s)))
    (if (i32.or (i32.eq (local.get $c) (i32.const 33)) (i32.eq (local.get $c) (i32.const 35)))
      (then (return (i32.const 0))))
    ;; isEtcHostsRule: the address's characters (ADDRESS_CODE at 256-511), then `%` or whitespace.
    (if (i32.load8_u offset=256 (i32.load8_u (local.get $s)))
      (then
        (local.set $i (local.get $s))
        (block $address
          (loop $next
            (br_if $address (i32.ge_s (local.get $i) (local.get $e)))
            (br_if $address (i32.eqz (i32.load8_u offset=256 (i32.load8_u (local.get $i)))))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $next)))
        (if (i32.lt_s (local.get $i) (local.get $e))
          (then
            (local.set $c (i32.load8_u (local.get $i)))
            (if (i32.or (i32.eq (local.get $c) (i32.const 37)) (i32.eqz (i32.load8_u (local.get $c))))
              (then (return (i32.const 0))))))))
    ;; parseAdblockRule: trimmed, past `@@`; a line ending there is no rule.
    (block $trimmed
      (loop $next
        (br_if $trimmed (i32.eq (local.get $s) (local.get $e)))
        (br_if $trimmed (i32.load8_u (i32.load8_u (local.get $s))))
        (local.set $s (i32.add (local.get $s) (i32.const 1)))
        (br $next)))
    (block $trimmed
      (loop $next
        (br_if $trimmed (i32.eq (local.get $s) (local.get $e)))
        (br_if $trimmed (i32.load8_u (i32.load8_u (i32.sub (local.get $e) (i32.const 1)))))
        (local.set $e (i32.sub (local.get $e) (i32.const 1)))
        (br $next)))
    (local.set $p (local.get $s))
    (if (i32.ge_s (i32.sub (local.get $e) (local.get $s)) (i32.const 2))
      (then
        (if (i32.eq (i32.load16_u (local.get $s)) (i32.const 0x4040))
          (then (local.set $p (i32.add (local.get $s) (i32.const 2)))))))
    (if (i32.eq (local.get $p) (local.get $e)) (then (return (i32.const 0))))
    ;; `/…/`: a regular expression, without options.
    (if (i32.and (i32.eq (i32.load8_u (local.get $p)) (i32.const 47))
                 (i32.eq (i32.load8_u (i32.sub (local.get $e) (i32.const 1))) (i32.const 47)))
      (then (return (i32.const 0))))
    ;; The options start after the last `$`; one escaped by `\` is left to the TypeScript.
    (local.set $pe (local.get $e))
    (local.set $i (i32.sub (local.get $e) (i32.const 1)))
    (block $found
      (loop $next
        (br_if $found (i32.lt_s (local.get $i) (local.get $p)))
        (if (i32.eq (i32.load8_u (local.get $i)) (i32.const 36))
          (then
            (if (i32.gt_s (local.get $i) (local.get $p))
              (then
                (if (i32.eq (i32.load8_u (i32.sub (local.get $i) (i32.const 1))) (i32.const 92))
                  (then (return (i32.const 0))))))
            (local.set $pe (local.get $i))
            (br $found)))
        (local.set $i (i32.sub (local.get $i) (i32.const 1)))
        (br $next)))
    (if (i32.lt_s (i32.add (local.get $pe) (i32.const 1)) (local.get $e))
      (then
        (local.set $supported (call $modifiersSupported (i32.add (local.get $pe) (i32.const 1)) (local.get $e)
                                                         (local.get $mods)))
        (if (i32.eqz (local.get $supported)) (then (return (i32.const 4))))
        (if (i32.eq (local.get $supported) (i32.const -1)) (then (return (i32.const 0))))))
    ;; The pattern b[p, pe): `||name^`, the name b[ns, ne).
    (local.set $ns (i32.add (local.get $p) (i32.const 2)))
    (local.set $ne (i32.sub (local.get $pe) (i32.const 1)))
    (if (i32.ge_s (i32.sub (local.get $pe) (local.get $p)) (i32.const 4))
      (then
        (if (i32.and (i32.eq (i32.load16_u (local.get $p)) (i32.const 0x7c7c))
                     (i32.eq (i32.load8_u (local.get $ne)) (i32.const 94)))
          (then
            (if (call $cleanHostname (local.get $ns) (local.get $ne))
              (then
                (if (i32.eqz (local.get $psl)) (then (return (i32.const 0))))
                (return (call $notOwnSuffix (local.get $ns) (local.get $ne) (local.get $psl) (local.get $pslMask)))))
            (if (i32.and (i32.eq (local.get $pe) (local.get $e)) (call $plainIpv4 (local.get $ns) (local.get $ne)))
              (then (return (select (i32.const 1) (i32.const 2) (local.get $allowIp)))))))))
    ;; DOMAIN_CHAR (768-1023): a shorter pattern is too short first; `/…/` is kept before the
    ;; check, and `://` stripped.
    (if (i32.lt_s (i32.sub (local.get $pe) (local.get $p)) (i32.const 5)) (then (return (i32.const 0))))
    (local.set $c (i32.load8_u (local.get $p)))
    (if (i32.eq (local.get $c) (i32.const 58)) (then (return (i32.const 0))))
    (if (i32.and (i32.eq (local.get $c) (i32.const 47))
                 (i32.eq (i32.load8_u (i32.sub (local.get $pe) (i32.const 1))) (i32.const 47)))
      (then (return (i32.const 0))))
    (local.set $i (local.get $p))
    (loop $next
      (if (i32.eqz (i32.load8_u offset=768 (i32.load8_u (local.get $i)))) (then (return (i32.const 3))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $next (i32.lt_s (local.get $i) (local.get $pe))))
    (i32.const 0))

  ;; Validate's verdicts (validate.ts, `kernelVerdicts`): the byte at flags + i is `$verdict` of
  ;; line i.
  (func (export "verdicts") (param $inStart i32) (param $inEnd i32) (param $n i32) (param $flags i32)
    (param $psl i32) (param $pslMask i32) (param $mods i32) (param $allowIp i32)
    (local $i i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_s (local.get $i) (local.get $n)))
        (i32.store8 (i32.add (local.get $flags) (local.get $i))
          (call $verdict (i32.load (i32.add (local.get $inStart) (i32.shl (local.get $i) (i32.const 2))))
                         (i32.load (i32.add (local.get $inEnd) (i32.shl (local.get $i) (i32.const 2))))
                         (local.get $psl) (local.get $pslMask) (local.get $mods) (local.get $allowIp)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next))))
)
