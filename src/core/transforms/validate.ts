import type { Transformation, TransformationName, TransformContext } from './types.js';
import type { Lines } from './lines.js';
import { dropFromEnd, keepWhere, withTexts } from './lines.js';
import { isComment } from './rule-text.js';
import { ruleProblem, ruleProblemAt, type ValidityOptions } from './rule-validity.js';
import { normalizeIpRule } from './ip-normalize.js';
import { isCommentAt, keepWherePacked, lineText, type PackedLines } from './packed.js';
import { align, holding, PSL_NODE_SLOTS, pslNodeSet } from './kernel.js';

/**
 * Per line, 1 where `ruleProblemAt` surely keeps it, by the WebAssembly kernel: `||name^` and
 * `@@||name^` with a clean name that cannot be its own public suffix, because it ends in `.com`,
 * `.org`, `.net`, `.edu`, `.gov` or `.de`, or because the Public Suffix List's rules trie has no
 * node for one of its labels (`pslNodeSet`, copied after the flags when the memory has room).
 * Only for a list in a kernel memory (Compress's output, in place); null otherwise, and every
 * line gets `ruleProblemAt`.
 */
export function surelyValid(lines: PackedLines): Uint8Array | null {
  const memory = holding(lines.bytes, lines.start, lines.end);
  const n = lines.start.length;
  if (memory === undefined || memory.scratchEnd - memory.scratch < n) return null;
  const psl = align(memory.scratch + n);
  const set = pslNodeSet();
  let at = 0;
  if (set !== null && memory.scratchEnd - psl >= PSL_NODE_SLOTS * 4) {
    new Int32Array(memory.buffer, psl, PSL_NODE_SLOTS).set(set);
    at = psl;
  }
  memory.kernel.surelyValid(lines.start.byteOffset, lines.end.byteOffset, n, memory.scratch, at, PSL_NODE_SLOTS - 1);
  return new Uint8Array(memory.buffer, memory.scratch, n);
}

function reporter(ctx: TransformContext, text: (i: number) => string, from: Float64Array | undefined) {
  if (!ctx.reporting) return null;
  return (i: number, above: boolean, reason: string) =>
    above
      ? ctx.removed(text(i), from?.[i], 'comment-above-invalid', 'directly above a removed rule')
      : ctx.removed(text(i), from?.[i], 'invalid-rule', reason);
}

/**
 * Drops rules a DNS-level blocker cannot use safely. Walking from the end, the
 * comments and empty lines directly above a dropped rule go with it.
 */
function validator(name: TransformationName, summary: string, opts: ValidityOptions): Transformation {
  const transformation: Transformation = {
    name,
    summary,
    apply(input, ctx) {
      let lines: Lines = input;
      if (opts.allowIp) {
        lines = withTexts(input, input.text.map((t) => normalizeIpRule(t) ?? t));
      }
      const text = lines.text;
      const keep = dropFromEnd(
        text.length,
        (i) => ruleProblem(text[i], opts),
        (i) => text[i].length === 0 || isComment(text[i]),
        reporter(ctx, (i) => text[i], lines.from),
      );
      return keepWhere(lines, keep);
    },
  };
  // IP rules are rewritten (normalised) before the check; that stays in string form.
  if (opts.allowIp) return transformation;
  transformation.applyPacked = (lines, ctx) => {
    const { bytes, start, end } = lines;
    const sure = ctx.reporting || lines.from !== undefined ? null : surelyValid(lines);
    const keep = dropFromEnd(
      start.length,
      (i) => (sure !== null && sure[i] === 1 ? null : ruleProblemAt(bytes, start[i], end[i], opts)),
      (i) => start[i] === end[i] || isCommentAt(lines, i),
      reporter(ctx, (i) => lineText(lines, i), lines.from),
    );
    return keepWherePacked(lines, keep);
  };
  return transformation;
}

export const validate = validator('Validate', 'removes rules that are dangerous or unusable for DNS-level blocking', {
  allowIp: false,
  allowPublicSuffix: false,
});
export const validateAllowIp = validator('ValidateAllowIp', 'like Validate, but keeps IP address rules', {
  allowIp: true,
  allowPublicSuffix: false,
});
export const validateAllowPublicSuffix = validator(
  'ValidateAllowPublicSuffix',
  'like Validate, but keeps rules blocking a whole public suffix',
  { allowIp: false, allowPublicSuffix: true },
);
export const validateAllowIpAndPublicSuffix = validator(
  'ValidateAllowIpAndPublicSuffix',
  'like Validate, but keeps IP address and public suffix rules',
  { allowIp: true, allowPublicSuffix: true },
);
