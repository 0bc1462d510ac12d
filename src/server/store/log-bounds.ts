/**
 * Bounds of the two logs anyone can make the server write to: the audit log (a refused admin call
 * writes a row) and browser error reports (anonymous). Each field is cut to a length, and each log
 * keeps rows for a retention period and at most a number of rows, pruned as it is written. The
 * audit log's successful actions and its refusals and failures are bounded apart, each class
 * pruned only by its own writes: a flood of refusals (which anyone can send) never pushes a real
 * action out of the history. Browser reports are bounded per source address before they are
 * stored (`errorEventsPerAddress`).
 */
export const LOG_BOUNDS = {
  /** Audit rows of actions that succeeded. */
  audit: { retentionDays: 365, maxRows: 200_000 },
  /** Audit rows of refused (`denied`) and failed (`failure`) calls. */
  auditRefusals: { retentionDays: 90, maxRows: 100_000 },
  errorEvents: { retentionDays: 30, maxRows: 50_000 },
  /** Browser reports stored per client address (an IPv6 network, see client-address.ts) a minute. */
  errorEventsPerAddress: 10,
  /** Every this many writes of a log, its old and surplus rows are deleted. */
  pruneEvery: 100,
} as const;

/** The longest text each audit field keeps; JSON fields longer than theirs are replaced by a note. */
export const AUDIT_FIELD_CHARS = {
  actor_email: 320,
  action: 200,
  resource_type: 100,
  resource_id: 200,
  ip_address: 64,
  user_agent: 512,
  json: 16_384,
} as const;

/** `text` cut to `max` characters (a cut one ends with `…`). */
export function cut(text: string | null, max: number): string | null {
  if (text === null || text.length <= max) return text;
  return `${text.slice(0, max - 1)}…`;
}

/** JSON text kept whole when it fits, else a JSON note saying how long it was (cut JSON is not JSON). */
export function cutJson(text: string | null, max: number = AUDIT_FIELD_CHARS.json): string | null {
  if (text === null || text.length <= max) return text;
  return JSON.stringify({ truncated: true, chars: text.length });
}
