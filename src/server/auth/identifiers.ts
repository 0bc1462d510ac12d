import { z } from '@hono/zod-openapi';

/** The longest email address SMTP can carry (RFC 5321 path limit), and the longest display name. */
export const IDENTIFIER_LIMITS = { emailMax: 254, nameMax: 100 } as const;

/**
 * C0 and C1 control characters (NUL, tabs, line breaks, the terminal's ESC), bidirectional
 * controls (which reorder what a name shows around it) and line or paragraph separators: never
 * part of a name that an administrator reads in a list, a log or a terminal.
 */
const CONTROL = /[\p{Cc}\p{Zl}\p{Zp}\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;

/** Why `name` cannot be a user's (or an API key's) name, or null when it can (sign-up, `flc user add`, keys). */
export function nameProblem(name: string): string | null {
  if (name.length > IDENTIFIER_LIMITS.nameMax) return `name must be at most ${IDENTIFIER_LIMITS.nameMax} characters`;
  if (CONTROL.test(name)) return 'name must not contain control characters (nor bidirectional formatting)';
  return null;
}

/** Why `email` (trimmed and lowercased) cannot be a sign-in email (`emailSchema`'s first issue), or null. */
export function emailProblem(email: string): string | null {
  return emailSchema.safeParse(email).error?.issues[0].message ?? null;
}

/** A sign-in email: trimmed, lowercased, at most 254 characters. */
export const emailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(IDENTIFIER_LIMITS.emailMax, `email must be at most ${IDENTIFIER_LIMITS.emailMax} characters`)
  .pipe(z.email('email must be a valid address'));

/** A display name: at most 100 characters, no control characters. */
export const nameSchema = z.string().superRefine((name, ctx) => {
  const problem = nameProblem(name);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
