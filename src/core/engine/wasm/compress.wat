;; Compress (compress.ts, `compressPacked`): its first pass over the shapes it decides on bytes,
;; the hostnames kept in the table (hash-table.wat), and its parent-domain pass.
  ;; Compress's layout (compress.ts, `compressPacked`), given to $init: the list's bytes from
  ;; KERNEL_BASE on, their offsets moved with them, then room for rewrites and names up to
  ;; bytesLimit; then, each aligned to 8, inS and inE (n words each), outS, outE, hostS, hostE,
  ;; from and parent (outCapacity words each, one after the other from $out), the slots (a word
  ;; each, capacity = 2^capLog2 of them), the entries ({{ENTRY_BYTES}} bytes each: start, end, hash; capacity / 2
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
    (global.set $filtered (i32.const 1))
    (global.set $mask (i32.sub (i32.shl (i32.const 1) (local.get $capLog2)) (i32.const 1)))
    (global.set $filterShift (i32.sub (i32.const {{FILTER_SHIFT}}) (local.get $capLog2)))
    (global.set $bytesLimit (local.get $bytesLimit))
    (global.set $outCapacity (local.get $outCapacity))
    (global.set $count (i32.const 0))
    (call $clearTable (local.get $capLog2)))


  (func (export "used") (result i32) (global.get $used))
  (func (export "setUsed") (param $u i32) (global.set $used (local.get $u)))

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
        ;; HYPHEN .. LOWER
        (if (i32.gt_u (i32.sub (i32.load8_u offset={{BYTE_CLASS_AT}} (i32.load8_u (local.get $i)))
                               (i32.const {{HYPHEN}}))
                      (i32.const {{HYPHEN_TO_LOWER}}))
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
        ;; SPACE or NAME_STOP
        (if (i32.le_u (i32.load8_u offset={{BYTE_CLASS_AT}} (i32.load8_u (local.get $i))) (i32.const {{NAME_STOP}}))
          (then (return (i32.const -1))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $s))

  ;; isJustDomain (rule-text.ts); only ASCII can be a domain here.
  (func $justDomainAt (param $s i32) (param $e i32) (result i32)
    (local $n i32) (local $trailingDot i32) (local $end i32) (local $labels i32) (local $label i32)
    (local $i i32) (local $k i32) (local $len i32)
    (local.set $n (i32.sub (local.get $e) (local.get $s)))
    (if (i32.or (i32.eqz (local.get $n)) (i32.gt_s (local.get $n) (i32.const {{JUST_DOMAIN_MAX}})))
      (then (return (i32.const 0))))
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
            (then (i32.load8_u offset={{BYTE_CLASS_AT}} (i32.load8_u (local.get $i))))
            (else (i32.const {{DOT}}))))
        (if (i32.eq (local.get $k) (i32.const {{DOT}}))
          (then
            (local.set $len (i32.sub (local.get $i) (local.get $label)))
            ;; One test at a time: WebAssembly's i32.or evaluates both sides, and an empty
            ;; label at the list's first byte has no byte before it.
            (if (i32.or (i32.eqz (local.get $len)) (i32.gt_s (local.get $len) (i32.const {{LABEL_MAX}})))
              (then (return (i32.const 0))))
            (if (i32.lt_u (i32.load8_u offset={{BYTE_CLASS_AT}} (i32.load8_u (local.get $label))) (i32.const {{LOWER}}))
              (then (return (i32.const 0))))
            (if (i32.lt_u (i32.load8_u offset={{BYTE_CLASS_AT}} (i32.load8_u (i32.sub (local.get $i) (i32.const 1))))
                          (i32.const {{LOWER}}))
              (then (return (i32.const 0))))
            (local.set $labels (i32.add (local.get $labels) (i32.const 1)))
            (local.set $label (i32.add (local.get $i) (i32.const 1))))
          (else
            (if (i32.lt_u (local.get $k) (i32.const {{HYPHEN}})) (then (return (i32.const 0))))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (i32.or (i32.gt_s (local.get $labels) (i32.const 1)) (local.get $trailingDot)))

  ;; Whether the rule b[s, e) (no whitespace at its ends, not `@@`, not a regex) has modifiers:
  ;; text other than commas after its last unescaped `$`. Such a rule keeps its text and is no
  ;; hostname rule for Compress.
  (func $hasModifiers (param $s i32) (param $e i32) (result i32)
    (local $last i32) (local $i i32) (local $j i32) (local $escaped i32)
    (local.set $last (i32.load8_u (i32.sub (local.get $e) (i32.const 1))))
    (if (i32.or (i32.ge_u (local.get $last) (i32.const 128))
                (i32.eq (i32.load8_u offset={{BYTE_CLASS_AT}} (local.get $last)) (i32.const {{SPACE}})))
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
    (if (i32.or (i32.ge_u (local.get $c) (i32.const 128))
                (i32.eq (i32.load8_u offset={{BYTE_CLASS_AT}} (local.get $c)) (i32.const {{SPACE}})))
      (then (return (i32.const 1))))
    (local.set $i (local.get $s))
    (block $done
      (loop $next
        (br_if $done (i32.ge_s (local.get $i) (local.get $e)))
        (br_if $done (i32.eqz (i32.load8_u offset={{ADDRESS_CODE_AT}} (i32.load8_u (local.get $i)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (if (i32.or (i32.le_s (local.get $i) (local.get $s)) (i32.ge_s (local.get $i) (local.get $e)))
      (then (return (i32.const 0))))
    (local.set $c (i32.load8_u (local.get $i)))
    (i32.or (i32.or (i32.eq (local.get $c) (i32.const 37)) (i32.ge_u (local.get $c) (i32.const 128)))
            (i32.eq (i32.load8_u offset={{BYTE_CLASS_AT}} (local.get $c)) (i32.const {{SPACE}}))))

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

