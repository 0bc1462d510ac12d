import { RuleParser, defaultParserOptions, type AnyRule, type ParserOptions } from '@adguard/agtree';

/**
 * Parser options, also for AGTree's other parsers (list parsers) the walk and checks use. AGTree
 * replaces its defaults with whatever object it is given, so the defaults are spread first;
 * locations and raw texts are left out of the trees we return.
 */
export const PARSER_OPTIONS: ParserOptions = { ...defaultParserOptions, isLocIncluded: false, includeRaws: false };
const TOLERANT: ParserOptions = { ...PARSER_OPTIONS, tolerant: true };
const TOLERANT_HOSTS: ParserOptions = { ...TOLERANT, parseHostRules: true };

const IP_TOKEN_RE = /^[0-9a-fA-F.:]+(%\S+)?$/;
const ADBLOCK_CHARS_RE = /[|^$*/=,@#!~[\](){}"'<>\\\s]/;

/**
 * Whether AGTree's host-rule parser could accept the line: an IP address followed by
 * names, or a single bare name. `parseHostRules` makes every other line several times
 * slower to parse, so it is only switched on for these.
 */
function mayBeHostRule(line: string): boolean {
  const text = line.trim();
  if (text.length === 0) return false;
  const space = text.search(/\s/);
  if (space === -1) return text.includes('.') && !ADBLOCK_CHARS_RE.test(text);
  return IP_TOKEN_RE.test(text.substring(0, space));
}

/**
 * Parses one rule. Tolerant parsing turns a syntax error into an `InvalidRule` node;
 * strict parsing throws AGTree's error. Hosts lines come back as `HostRule`.
 */
export function parseRule(line: string, tolerant = true): AnyRule {
  const options = mayBeHostRule(line) ? TOLERANT_HOSTS : TOLERANT;
  return RuleParser.parse(line, tolerant ? options : { ...options, tolerant: false });
}
