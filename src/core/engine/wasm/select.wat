;; The filters' pass on bytes (kernel.ts, `kernelSelect`): each line run through a pattern set's
;; automaton (`ByteAutomaton`, pipeline/regex-dfa.ts), a row of {{DFA_ROW}} moves per state. In
;; the kernel's copy a state is the address of its row, so that a move is one load from the row
;; and the byte (the loop's time is the chain of loads, one per byte).

  ;; Per line i of n (ranges at inStart and inEnd), the byte at out + i: {{SELECTED_YES}} when
  ;; it matches, {{SELECTED_NO}} when not, {{SELECTED_UNREAD}} when the automaton does not read
  ;; it (an empty line, or one with a byte past 0x7f: {{DFA_OTHER_UNIT}}) and the caller asks the set.
  (func (export "select")
    (param $inStart i32) (param $inEnd i32) (param $n i32) (param $table i32) (param $ended i32)
    (param $start i32) (param $out i32)
    ;; $table: the rows' start; $start: the first state's row; $ended: a byte per row.
    (local $i i32) (local $s i32) (local $e i32) (local $state i32) (local $to i32) (local $answer i32)
    (block $done
      (loop $line
        (br_if $done (i32.ge_s (local.get $i) (local.get $n)))
        (local.set $s (i32.load (i32.add (local.get $inStart) (i32.shl (local.get $i) (i32.const 2)))))
        (local.set $e (i32.load (i32.add (local.get $inEnd) (i32.shl (local.get $i) (i32.const 2)))))
        (local.set $state (local.get $start))
        (local.set $answer (i32.const {{SELECTED_UNREAD}}))
        (if (i32.lt_s (local.get $s) (local.get $e))
          (then
            (block $decided
              (loop $byte
                (if (i32.ge_s (local.get $s) (local.get $e))
                  (then
                    (local.set $answer
                      (i32.load8_u (i32.add (local.get $ended)
                                            (i32.div_u (i32.sub (local.get $state) (local.get $table))
                                                       (i32.const {{DFA_ROW_BYTES}})))))
                    (br $decided)))
                (local.set $to
                  (i32.load (i32.add (local.get $state) (i32.shl (i32.load8_u (local.get $s)) (i32.const 2)))))
                (if (i32.lt_s (local.get $to) (i32.const 0))
                  (then
                    (br_if $decided (i32.eq (local.get $to) (i32.const {{DFA_OTHER_UNIT}})))
                    ;; Decided on an ASCII line only: a byte past 0x7f may begin a line separator,
                    ;; after which `^` holds again (the `m` flag) and `.` stops.
                    (loop $rest
                      (local.set $s (i32.add (local.get $s) (i32.const 1)))
                      (if (i32.lt_s (local.get $s) (local.get $e))
                        (then
                          (br_if $decided (i32.ge_u (i32.load8_u (local.get $s)) (i32.const 128)))
                          (br $rest))))
                    (local.set $answer
                      (select (i32.const {{SELECTED_YES}}) (i32.const {{SELECTED_NO}})
                              (i32.eq (local.get $to) (i32.const {{DFA_MATCHES}}))))
                    (br $decided)))
                (local.set $state (local.get $to))
                (local.set $s (i32.add (local.get $s) (i32.const 1)))
                (br $byte)))))
        (i32.store8 (i32.add (local.get $out) (local.get $i)) (local.get $answer))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $line))))
