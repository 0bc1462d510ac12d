import { closest as closestOf, distance } from 'fastest-levenshtein';

/**
 * The candidate closest to `word` by edit distance, when it is close enough to be a typo
 * (at most a third of the word's length, and at least 1, case ignored); else undefined.
 */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  const lower = word.toLowerCase();
  const list = [...candidates];
  const lowered = list.map((c) => c.toLowerCase());
  const best: string | undefined = closestOf(lower, lowered);
  if (best === undefined || distance(lower, best) > Math.max(1, Math.floor(lower.length / 3))) return undefined;
  return list[lowered.indexOf(best)];
}

/** ` Did you mean "X"?` for `word`, or the empty string. */
export function didYouMean(word: string, candidates: Iterable<string>, quote = (s: string) => `"${s}"`): string {
  const match = closest(word, candidates);
  return match === undefined ? '' : ` Did you mean ${quote(match)}?`;
}
