import type { Camel } from './rows.js';
import type { ErrorEventsTable, FlashMessagesTable, RuleSetsTable } from './schema.js';

/** Records of the service routes, their tables' rows in camelCase: flash messages, error events, rule sets. */

export type FlashEntry = Camel<FlashMessagesTable>;

export type ErrorEvent = Camel<ErrorEventsTable>;

/** A rule set as listed: without its rules. */
export type RuleSetSummary = Camel<Omit<RuleSetsTable, 'rules'>>;

/** A saved rule set. */
export type RuleSet = RuleSetSummary & { rules: string[] };

/** What an owner may change on a rule set. */
export type RuleSetPatch = Partial<Pick<RuleSet, 'name' | 'description' | 'rules'>>;
