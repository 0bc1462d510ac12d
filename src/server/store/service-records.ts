/** Records of the service routes: flash messages, browser error events, saved rule sets. */

/** A one-time message behind a flash token. */
export interface FlashEntry {
  token: string;
  /** An error code of the registry (`src/server/error-codes.ts`), if the message is an error's. */
  code: string | null;
  message: string;
  /** `info` by default (the specification's field). */
  type: string;
  createdAt: string;
  expiresAt: string;
}

/** One row of `error_events`. */
export interface ErrorEvent {
  id: string;
  source: string;
  severity: 'low' | 'medium' | 'high' | 'critical';
  message: string;
  stack: string | null;
  /** The client's context object, as JSON text. */
  context: string | null;
  url: string | null;
  userAgent: string | null;
  sessionId: string | null;
  createdAt: string;
}

/** A saved rule set. */
export interface RuleSet {
  id: string;
  ownerId: string;
  name: string;
  description: string | null;
  rules: string[];
  ruleCount: number;
  createdAt: string;
  updatedAt: string;
}

/** A rule set as listed: without its rules. */
export type RuleSetSummary = Omit<RuleSet, 'rules'>;

export interface RuleSetPatch {
  name?: string;
  description?: string | null;
  rules?: string[];
}
