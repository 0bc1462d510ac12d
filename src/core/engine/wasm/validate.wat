;; Validate's verdicts (validate.ts, `kernelVerdicts`): what fullRuleProblem (rule-validity.ts)
;; decides of a line, where bytes tell it.

  ;; cleanHostname (rule-validity.ts), with HOST_CODE's classes, bits: HOST_LETTER, HOST_DOT, HOST_INVALID.
  (func $cleanHostname (param $s i32) (param $e i32) (result i32)
    (local $n i32) (local $kinds i32) (local $label i32) (local $i i32) (local $kind i32)
    (local.set $n (i32.sub (local.get $e) (local.get $s)))
    (if (i32.or (i32.eqz (local.get $n)) (i32.gt_s (local.get $n) (i32.const {{CLEAN_NAME_MAX}})))
      (then (return (i32.const 0))))
    (local.set $label (local.get $s))
    (local.set $i (local.get $s))
    (block $done
      (loop $next
        (br_if $done (i32.ge_s (local.get $i) (local.get $e)))
        (local.set $kind (i32.load8_u offset={{HOST_CODE_AT}} (i32.load8_u (local.get $i))))
        (local.set $kinds (i32.or (local.get $kinds) (local.get $kind)))
        (if (i32.eq (local.get $kind) (i32.const {{HOST_DOT}}))
          (then
            (if (i32.eq (local.get $i) (local.get $label)) (then (return (i32.const 0))))
            (if (i32.gt_s (i32.sub (local.get $i) (local.get $label)) (i32.const {{LABEL_MAX}}))
              (then (return (i32.const 0))))
            (if (i32.eq (i32.load8_u (local.get $label)) (i32.const 45)) (then (return (i32.const 0))))
            (if (i32.eq (i32.load8_u (i32.sub (local.get $i) (i32.const 1))) (i32.const 45))
              (then (return (i32.const 0))))
            (local.set $label (i32.add (local.get $i) (i32.const 1)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (if (i32.and (local.get $kinds) (i32.const {{HOST_INVALID}})) (then (return (i32.const 0))))
    (if (i32.eq (local.get $e) (local.get $label)) (then (return (i32.const 0))))
    (if (i32.gt_s (i32.sub (local.get $e) (local.get $label)) (i32.const {{LABEL_MAX}})) (then (return (i32.const 0))))
    (if (i32.eq (i32.load8_u (local.get $label)) (i32.const 45)) (then (return (i32.const 0))))
    (if (i32.eq (i32.load8_u (i32.sub (local.get $e) (i32.const 1))) (i32.const 45)) (then (return (i32.const 0))))
    (i32.ne (i32.and (local.get $kinds) (i32.const {{HOST_LETTER}})) (i32.const 0)))


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
  ;;   KEPT: `||name^` or `@@||name^`, with supported modifiers or none, whose name is clean
  ;;      (`cleanHostname`) and cannot be its own public suffix ($psl is not 0, and the trie's walk
  ;;      stops before its last label);
  ;;   DROPPED_IP: `||a.b.c.d^` or `@@||a.b.c.d^`, a plain IPv4 address and no modifiers (KEPT
  ;;      with $allowIp);
  ;;   DROPPED_CHARACTER: a pattern of MIN_PATTERN_LENGTH or more with a character outside
  ;;      DOMAIN_CHAR (`a.org##.ad`);
  ;;   DROPPED_MODIFIER: a modifier that is not at $mods;
  ;;   UNDECIDED: the TypeScript decides (non-ASCII text, lines starting `!` or `#`, hosts lines,
  ;;      regular expressions, escapes, `://` patterns, public suffixes, and whatever else is left).
  (func $verdict (param $s i32) (param $e i32) (param $psl i32) (param $pslMask i32) (param $mods i32)
    (param $allowIp i32) (result i32)
    (local $i i32) (local $c i32) (local $p i32) (local $pe i32) (local $supported i32) (local $ns i32) (local $ne i32)
    (if (i32.eq (local.get $s) (local.get $e)) (then (return (i32.const {{UNDECIDED}}))))
    ;; Non-ASCII: JavaScript's trim and `\s` take some such characters.
    (local.set $i (local.get $s))
    (loop $byte
      (if (i32.ge_u (i32.load8_u (local.get $i)) (i32.const 128)) (then (return (i32.const {{UNDECIDED}}))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $byte (i32.lt_s (local.get $i) (local.get $e))))
    ;; Comments, and anything else starting `!` or `#`, go to the TypeScript.
    (local.set $c (i32.load8_u (local.get $s)))
    (if (i32.or (i32.eq (local.get $c) (i32.const 33)) (i32.eq (local.get $c) (i32.const 35)))
      (then (return (i32.const {{UNDECIDED}}))))
    ;; isEtcHostsRule: the address's characters (ADDRESS_CODE), then `%` or whitespace.
    (if (i32.load8_u offset={{ADDRESS_CODE_AT}} (i32.load8_u (local.get $s)))
      (then
        (local.set $i (local.get $s))
        (block $address
          (loop $next
            (br_if $address (i32.ge_s (local.get $i) (local.get $e)))
            (br_if $address (i32.eqz (i32.load8_u offset={{ADDRESS_CODE_AT}} (i32.load8_u (local.get $i)))))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $next)))
        (if (i32.lt_s (local.get $i) (local.get $e))
          (then
            (local.set $c (i32.load8_u (local.get $i)))
            (if (i32.or (i32.eq (local.get $c) (i32.const 37))
                        (i32.eq (i32.load8_u offset={{BYTE_CLASS_AT}} (local.get $c)) (i32.const {{SPACE}})))
              (then (return (i32.const {{UNDECIDED}}))))))))
    ;; parseAdblockRule: trimmed, past `@@`; a line ending there is no rule.
    (block $trimmed
      (loop $next
        (br_if $trimmed (i32.eq (local.get $s) (local.get $e)))
        (br_if $trimmed (i32.ne (i32.load8_u offset={{BYTE_CLASS_AT}} (i32.load8_u (local.get $s)))
                                (i32.const {{SPACE}})))
        (local.set $s (i32.add (local.get $s) (i32.const 1)))
        (br $next)))
    (block $trimmed
      (loop $next
        (br_if $trimmed (i32.eq (local.get $s) (local.get $e)))
        (br_if $trimmed (i32.ne (i32.load8_u offset={{BYTE_CLASS_AT}}
                                             (i32.load8_u (i32.sub (local.get $e) (i32.const 1))))
                               (i32.const {{SPACE}})))
        (local.set $e (i32.sub (local.get $e) (i32.const 1)))
        (br $next)))
    (local.set $p (local.get $s))
    (if (i32.ge_s (i32.sub (local.get $e) (local.get $s)) (i32.const 2))
      (then
        (if (i32.eq (i32.load16_u (local.get $s)) (i32.const 0x4040))
          (then (local.set $p (i32.add (local.get $s) (i32.const 2)))))))
    (if (i32.eq (local.get $p) (local.get $e)) (then (return (i32.const {{UNDECIDED}}))))
    ;; `/…/`: a regular expression, without options.
    (if (i32.and (i32.eq (i32.load8_u (local.get $p)) (i32.const 47))
                 (i32.eq (i32.load8_u (i32.sub (local.get $e) (i32.const 1))) (i32.const 47)))
      (then (return (i32.const {{UNDECIDED}}))))
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
                  (then (return (i32.const {{UNDECIDED}}))))))
            (local.set $pe (local.get $i))
            (br $found)))
        (local.set $i (i32.sub (local.get $i) (i32.const 1)))
        (br $next)))
    (if (i32.lt_s (i32.add (local.get $pe) (i32.const 1)) (local.get $e))
      (then
        (local.set $supported (call $modifiersSupported (i32.add (local.get $pe) (i32.const 1)) (local.get $e)
                                                         (local.get $mods)))
        (if (i32.eqz (local.get $supported)) (then (return (i32.const {{DROPPED_MODIFIER}}))))
        (if (i32.eq (local.get $supported) (i32.const -1)) (then (return (i32.const {{UNDECIDED}}))))))
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
                (if (i32.eqz (local.get $psl)) (then (return (i32.const {{UNDECIDED}}))))
                (return (select (i32.const {{KEPT}}) (i32.const {{UNDECIDED}})
                                (call $notOwnSuffix (local.get $ns) (local.get $ne)
                                                    (local.get $psl) (local.get $pslMask))))))
            (if (i32.and (i32.eq (local.get $pe) (local.get $e)) (call $plainIpv4 (local.get $ns) (local.get $ne)))
              (then (return (select (i32.const {{KEPT}}) (i32.const {{DROPPED_IP}}) (local.get $allowIp)))))))))
    ;; DOMAIN_CHAR: a shorter pattern is too short first; `/…/` is kept before the
    ;; check, and `://` stripped.
    (if (i32.lt_s (i32.sub (local.get $pe) (local.get $p)) (i32.const {{MIN_PATTERN_LENGTH}}))
      (then (return (i32.const {{UNDECIDED}}))))
    (local.set $c (i32.load8_u (local.get $p)))
    (if (i32.eq (local.get $c) (i32.const 58)) (then (return (i32.const {{UNDECIDED}}))))
    (if (i32.and (i32.eq (local.get $c) (i32.const 47))
                 (i32.eq (i32.load8_u (i32.sub (local.get $pe) (i32.const 1))) (i32.const 47)))
      (then (return (i32.const {{UNDECIDED}}))))
    (local.set $i (local.get $p))
    (loop $next
      (if (i32.eqz (i32.load8_u offset={{DOMAIN_CHAR_AT}} (i32.load8_u (local.get $i))))
        (then (return (i32.const {{DROPPED_CHARACTER}}))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $next (i32.lt_s (local.get $i) (local.get $pe))))
    (i32.const {{UNDECIDED}}))

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
