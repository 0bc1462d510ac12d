;; The open-addressing table of byte ranges that Compress (compress.wat) and Deduplicate
;; (deduplicate.wat) keep their hostnames and lines in: slots of a word each (an entry's index + 1,
;; 0 for empty; capacity = 2^capLog2 of them), entries of {{ENTRY_BYTES}} bytes (start, end, hash;
;; capacity / 2 of them) and a filter of a bit per hash (HASH_TABLE.FILTER_BITS per slot, whence
;; the shift {{FILTER_SHIFT}} less capLog2), in regions its users give (HASH_TABLE, kernel-constants.ts).
  (global $slots (mut i32) (i32.const 0))
  (global $entries (mut i32) (i32.const 0))
  (global $filter (mut i32) (i32.const 0))
  (global $mask (mut i32) (i32.const 0))
  (global $filterShift (mut i32) (i32.const 0))
  (global $entryCount (mut i32) (i32.const 0))
  ;; Whether the table keeps its filter: only $has reads it, and Deduplicate never asks $has
  ;; (a bit set per line added is a read and a write to a random place in memory).
  (global $filtered (mut i32) (i32.const 1))

  ;; Empties the table: its slots, and its filter where it keeps one (the memory is reused from step to step).
  (func $clearTable (param $capLog2 i32)
    (global.set $entryCount (i32.const 0))
    (memory.fill (global.get $slots) (i32.const 0) (i32.shl (i32.const 4) (local.get $capLog2)))
    (if (global.get $filtered)
      (then (memory.fill (global.get $filter) (i32.const 0) (i32.shl (i32.const 1) (local.get $capLog2))))))


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
    (local.set $p (i32.add (global.get $entries) (i32.mul (local.get $k) (i32.const {{ENTRY_BYTES}}))))
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
        (if (i32.eq (i32.load offset=8 (i32.add (global.get $entries)
                                                (i32.mul (i32.sub (local.get $slot) (i32.const 1))
                                                         (i32.const {{ENTRY_BYTES}}))))
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
    (local.set $p (i32.add (global.get $entries) (i32.mul (local.get $k) (i32.const {{ENTRY_BYTES}}))))
    (i32.store (local.get $p) (local.get $s))
    (i32.store offset=4 (local.get $p) (local.get $e))
    (i32.store offset=8 (local.get $p) (local.get $h))
    (global.set $entryCount (i32.add (local.get $k) (i32.const 1)))
    (i32.store (local.get $at) (i32.add (local.get $k) (i32.const 1)))
    (if (i32.eqz (global.get $filtered)) (then (return (i32.const 1))))
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

