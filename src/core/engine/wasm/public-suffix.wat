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

