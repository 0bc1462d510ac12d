import type { Transformation } from './types.js';
import { withTexts } from './lines.js';
import { withRanges } from './packed.js';

/** Strips spaces and tabs (only those) from both ends. */
export function trimSpacesAndTabs(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && (s.charCodeAt(a) === 32 || s.charCodeAt(a) === 9)) a += 1;
  while (b > a && (s.charCodeAt(b - 1) === 32 || s.charCodeAt(b - 1) === 9)) b -= 1;
  return a === 0 && b === s.length ? s : s.substring(a, b);
}

export const trimLines: Transformation = {
  name: 'TrimLines',
  summary: 'removes leading and trailing spaces and tabs',
  apply(lines) {
    return withTexts(lines, lines.text.map(trimSpacesAndTabs));
  },
  applyPacked(lines) {
    // In place: the list passed in is this transformation's (see Transformation.applyPacked).
    const { bytes: b, start, end } = lines;
    for (let i = 0; i < start.length; i += 1) {
      let s = start[i];
      let e = end[i];
      while (s < e && (b[s] === 32 || b[s] === 9)) s += 1;
      while (e > s && (b[e - 1] === 32 || b[e - 1] === 9)) e -= 1;
      start[i] = s;
      end[i] = e;
    }
    // A new list all the same: trimming can make two plain host rules alike.
    return withRanges(lines, start, end, lines.from);
  },
};
