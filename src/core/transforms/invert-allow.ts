import type { Transformation } from './types.js';
import { withTexts } from './lines.js';
import { isAllowRule, isComment, isEtcHostsRule } from '../rules/rule-text.js';

const inverted = (line: string) =>
  line && !isComment(line) && !isEtcHostsRule(line) && !isAllowRule(line) ? `@@${line}` : line;

export const invertAllow: Transformation = {
  name: 'InvertAllow',
  summary: 'turns blocking rules into exception (`@@`) rules; hosts lines are left alone',
  apply(lines) {
    return withTexts(lines, lines.text.map(inverted));
  },
};
