import type { Transformation } from './types.js';
import { withTexts } from './lines.js';
import { isComment, parseAdblockRule, stringifyAdblockRule } from '../rules/rule-text.js';

const REMOVED = new Set(['third-party', '3p', 'all', 'document', 'doc', 'popup', 'network']);

/**
 * Rewrites one line: trims it and, for rules, drops the modifiers hosts-level blockers
 * do not support. Like the reference, every rule goes through a lexical parse and
 * re-serialisation, so escaped commas and text after a second `=` are normalised away.
 */
export function removeModifiersFrom(raw: string): string {
  const text = raw.trim();
  if (text.length === 0 || isComment(text)) return text;
  const rule = parseAdblockRule(text);
  if (!rule) return text; // a lone `@@`: the reference crashes here; we keep the line
  if (rule.options) rule.options = rule.options.filter((o) => !REMOVED.has(o.name));
  return stringifyAdblockRule(rule);
}

export const removeModifiers: Transformation = {
  name: 'RemoveModifiers',
  summary: 'removes $third-party, $3p, $all, $document, $doc, $popup and $network',
  apply(lines) {
    return withTexts(lines, lines.text.map(removeModifiersFrom));
  },
};
