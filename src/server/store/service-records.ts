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

/** The store's part for these records. */
export interface ServiceRecordStore {
  /** Stores a flash entry (and drops entries that expired by its `createdAt`). */
  putFlash(entry: FlashEntry): Promise<void>;
  /**
   * Takes the entry of `token` in one statement (deleting it), or null when it is unknown, already
   * taken or expired at `now`: of two concurrent reads, exactly one gets the entry.
   */
  takeFlash(token: string, now: string): Promise<FlashEntry | null>;
  addErrorEvent(event: ErrorEvent): Promise<void>;
  /** The newest events first. */
  errorEvents(limit: number, offset: number): Promise<{ events: ErrorEvent[]; total: number }>;
  createRuleSet(ruleSet: RuleSet): Promise<RuleSet>;
  /** Rule sets of `ownerId`, or of everyone when it is null; oldest first. */
  ruleSets(
    ownerId: string | null,
    limit: number,
    offset: number,
  ): Promise<{ ruleSets: RuleSetSummary[]; total: number }>;
  ruleSet(id: string): Promise<RuleSet | null>;
  /** Changes the rule set of `ownerId`; null when there is none with that id. */
  updateRuleSet(id: string, ownerId: string, patch: RuleSetPatch, at: string): Promise<RuleSet | null>;
  /** Deletes the rule set of `ownerId`; false when there is none with that id. */
  deleteRuleSet(id: string, ownerId: string): Promise<boolean>;
}
