import type { Camel } from './rows.js';
import type { Database } from './schema.js';

/** Records of the service routes, their tables' rows in camelCase: flash messages, error events, rule sets. */

export type FlashEntry = Camel<Database['flash_messages']>;

export type ErrorEvent = Camel<Database['error_events']>;

/** A rule set as listed: without its rules. */
export type RuleSetSummary = Camel<Omit<Database['rule_sets'], 'rules'>>;

/** A saved rule set. */
export type RuleSet = RuleSetSummary & { rules: string[] };

/** What an owner may change on a rule set. */
export type RuleSetPatch = Partial<Pick<RuleSet, 'name' | 'description' | 'rules'>>;
