import type { Transformation } from './types.js';
import { withTexts } from './lines.js';

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
};
