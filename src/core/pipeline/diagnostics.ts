/** Why a line left the list; one closed list so reports and tests can rely on it. */
export const REMOVAL_CODES = [
  'excluded',
  'not-included',
  'comment',
  'empty-line',
  'duplicate',
  'comment-above-duplicate',
  'duplicate-hostname',
  'redundant-hostname',
  'invalid-rule',
  'comment-above-invalid',
  'allowlisted',
  'format-cosmetic',
  'format-regex',
  'format-pattern',
  'format-modifier',
  'format-exception',
  'format-rewrite',
  'format-overridden',
  'format-narrowed',
  'dead-domain',
] as const;

export type RemovalCode = (typeof REMOVAL_CODES)[number];

/** Codes of per-line or per-source problems reported while compiling. */
export const DIAGNOSTIC_CODES = [
  'source-skipped',
  'source-stale',
  'unsupported-in-format',
  'narrowed-in-format',
] as const;

export type DiagnosticCode = (typeof DIAGNOSTIC_CODES)[number];

export interface Diagnostic {
  code: DiagnosticCode;
  severity: 'info' | 'warning' | 'error';
  source?: string;
  line?: number;
  message: string;
}
