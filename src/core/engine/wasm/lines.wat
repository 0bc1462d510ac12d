  ;; splitText (load/split.ts) of the list b[from, to), trimmed, without line numbers: each run
  ;; of CR/LF ends a line; the lines' ranges go to start and end, and the indices of the lines
  ;; that open with `!#` (directives) from dir + 4 on, their count at dir. Returns how many lines
  ;; (kernel.ts, `splitInKernel`).
  (func (export "split") (param $from i32) (param $to i32)
    (param $start i32) (param $end i32) (param $dir i32) (result i32)
    (local $i i32) (local $j i32) (local $k i32) (local $c i32) (local $w i64) (local $d i32)
    (i32.store (local.get $start) (local.get $from))
    (local.set $d (call $directive (local.get $from) (local.get $to) (i32.const 0) (local.get $dir) (i32.const 0)))
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
        (local.set $d (call $directive (local.get $j) (local.get $to) (local.get $k) (local.get $dir) (local.get $d)))
        (local.set $i (local.get $j))
        (br $next)))
    (i32.store (i32.add (local.get $end) (i32.shl (local.get $k) (i32.const 2))) (local.get $to))
    (i32.store (local.get $dir) (local.get $d))
    (i32.add (local.get $k) (i32.const 1)))

;; For split (kernel.ts, `splitInKernel`): per block of 2^{{ASCII_BLOCK_BITS}} bytes of b[from, to),
  ;; the first n of them (the last may be short or empty), 1 at out + k when block k holds a byte
  ;; above 0x7f, else 0 (packed.ts, `asciiRuns`). Eight bytes at a time, OR-ed together.
  (func (export "asciiBlocks") (param $from i32) (param $to i32) (param $out i32) (param $n i32)
    (local $i i32) (local $stop i32) (local $w i64) (local $k i32)
    (block $done
      (loop $block
        (br_if $done (i32.ge_u (local.get $k) (local.get $n)))
        (local.set $i (i32.add (local.get $from) (i32.shl (local.get $k) (i32.const {{ASCII_BLOCK_BITS}}))))
        (local.set $stop (i32.add (local.get $i) (i32.shl (i32.const 1) (i32.const {{ASCII_BLOCK_BITS}}))))
        (if (i32.gt_u (local.get $stop) (local.get $to)) (then (local.set $stop (local.get $to))))
        (local.set $w (i64.const 0))
        (block $words
          (loop $word
            (br_if $words (i32.gt_u (i32.add (local.get $i) (i32.const 8)) (local.get $stop)))
            (local.set $w (i64.or (local.get $w) (i64.load (local.get $i))))
            (local.set $i (i32.add (local.get $i) (i32.const 8)))
            (br $word)))
        (block $bytes
          (loop $byte
            (br_if $bytes (i32.ge_u (local.get $i) (local.get $stop)))
            (local.set $w (i64.or (local.get $w) (i64.load8_u (local.get $i))))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $byte)))
        (i32.store8 (i32.add (local.get $out) (local.get $k))
                    (i64.ne (i64.and (local.get $w) (i64.const 0x8080808080808080)) (i64.const 0)))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $block))))

  ;; For split: line k, starting at s (before to), noted at dir + 4 + 4d when it opens with `!#`
  ;; (0x21 0x23, read as one little-endian half-word). Returns the count of lines noted.
  (func $directive (param $s i32) (param $to i32) (param $k i32) (param $dir i32) (param $d i32) (result i32)
    (if (i32.and (i32.lt_s (i32.add (local.get $s) (i32.const 1)) (local.get $to))
                 (i32.eq (i32.load16_u (local.get $s)) (i32.const 0x2321)))
      (then
        (i32.store offset=4 (i32.add (local.get $dir) (i32.shl (local.get $d) (i32.const 2))) (local.get $k))
        (return (i32.add (local.get $d) (i32.const 1)))))
    (local.get $d))

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

