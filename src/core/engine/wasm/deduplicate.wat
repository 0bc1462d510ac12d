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
    (param $slots i32) (param $entries i32) (param $capLog2 i32)
    (local $i i32) (local $s i32) (local $e i32) (local $seen i32) (local $blank i32) (local $removing i32)
    (global.set $slots (local.get $slots))
    (global.set $entries (local.get $entries))
    (global.set $filtered (i32.const 0))
    (global.set $mask (i32.sub (i32.shl (i32.const 1) (local.get $capLog2)) (i32.const 1)))
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

