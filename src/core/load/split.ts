const BREAKS_RE = /[\r\n]+/g;

/** Line breaks (LF, CRLF or a lone CR, each one) in `s[from, to)`. */
function countBreaks(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i += 1) {
    const c = s.charCodeAt(i);
    if (c === 10 || (c === 13 && s.charCodeAt(i + 1) !== 10)) n += 1;
  }
  return n;
}

/**
 * Splits list text the way the reference does: the whole text trimmed, then split
 * on runs of CR/LF, so blank lines vanish at load. `numbers` holds each line's
 * 1-based line number in the original text (counting LF, CRLF and lone CR).
 */
export function splitText(text: string, withNumbers: boolean): { lines: string[]; numbers?: Int32Array } {
  const body = text.trim();
  // LF-only text splits on a string separator (much faster than a regex); empty runs drop out.
  if (!withNumbers && !body.includes('\r')) {
    const parts = body.split('\n');
    return { lines: body.includes('\n\n') ? parts.filter((p) => p.length > 0) : parts };
  }
  const lines = body.split(BREAKS_RE);
  if (!withNumbers) return { lines };
  const lead = text.length - text.trimStart().length;
  const numbers = new Int32Array(lines.length);
  let lineNo = 1 + countBreaks(text, 0, lead);
  let i = 0;
  numbers[0] = lineNo;
  for (const m of body.matchAll(BREAKS_RE)) {
    lineNo += countBreaks(body, m.index, m.index + m[0].length);
    i += 1;
    numbers[i] = lineNo;
  }
  return { lines, numbers };
}
