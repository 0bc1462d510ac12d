import type { Transformation } from './types.js';
import { withTexts } from './lines.js';
import { lineText, PackedBuilder } from './packed.js';
import { containsNonAscii, isComment } from './rule-text.js';

const DOMAIN_PART_RE = /(\*\.|)([^\s^$|=]+(?:\.[^\s^$|=]+)+)/g;

/**
 * Punycode of a domain, or '' when it is not a valid host. Uses the WHATWG URL
 * hostname setter, which is what Node's `url.domainToASCII` does, so the core
 * needs no Node import.
 */
export function domainToAscii(domain: string): string {
  const url = new URL('ws://x');
  url.hostname = domain;
  return url.hostname === 'x' && domain !== 'x' ? '' : url.hostname;
}

/** Converts each domain-looking part with non-ASCII characters to punycode. */
export function toAscii(line: string): string {
  if (isComment(line) || line.length === 0 || !containsNonAscii(line)) return line;
  return line.replace(DOMAIN_PART_RE, (match, wildcard: string, domain: string) =>
    containsNonAscii(domain) ? wildcard + domainToAscii(domain) : match,
  );
}

export const convertToAscii: Transformation = {
  name: 'ConvertToAscii',
  summary: 'converts non-ASCII domain names to punycode',
  apply(lines) {
    return withTexts(lines, lines.text.map(toAscii));
  },
  applyPacked(lines) {
    // Only a line with a non-ASCII byte can change: the others keep their bytes.
    const { bytes, start, end, from } = lines;
    const out = new PackedBuilder(lines, start.length);
    for (let i = 0; i < start.length; i += 1) {
      let s = start[i];
      let e = end[i];
      let j = s;
      while (j < e && bytes[j] < 128) j += 1;
      if (j < e) {
        const text = lineText(lines, i);
        const converted = toAscii(text);
        if (converted !== text) {
          s = out.appendText(converted);
          e = out.used;
        }
      }
      out.push(s, e, from ? from[i] : 0);
    }
    return out.finish();
  },
};
