import { z } from '@hono/zod-openapi';

/**
 * A client-facing error: what to say, how bad it is for the person who sees it, and where they can
 * go next; as the registry routes and `GET /api/flash` answer it.
 */
export const errorDefinition = z.object({
  message: z.string(),
  severity: z.enum(['low', 'medium', 'high', 'critical']),
  /** Said to administrators in addition to `message`. */
  adminMessage: z.string().optional(),
  ctaLabel: z.string().optional(),
  ctaRoute: z.string().optional(),
});
type ErrorCodeDefinition = z.infer<typeof errorDefinition>;

/** A definition with the code it was resolved to. */
export type ResolvedError = ErrorCodeDefinition & { code: ErrorCode };

/** The specification's error code registry; severities and calls to action are the specification's. */
export const ERROR_CODES = {
  TOKEN_EXPIRED: {
    message: 'Your session has expired. Please sign in again.',
    severity: 'medium',
    ctaLabel: 'Sign in',
    ctaRoute: '/login',
  },
  INVALID_CREDENTIALS: { message: 'The email or password is not correct.', severity: 'medium' },
  ACCOUNT_LOCKED: {
    message: 'This account is locked.',
    severity: 'high',
    adminMessage: 'The account is banned or its API access is disabled; an administrator can lift it.',
    ctaLabel: 'Contact support',
    ctaRoute: '/support',
  },
  RATE_LIMITED: { message: 'Too many requests. Please wait a minute and try again.', severity: 'medium' },
  FORBIDDEN: {
    message: 'You do not have permission to do this.',
    severity: 'high',
    adminMessage: 'The caller lacks the tier, scope or admin permission the route requires.',
  },
  CORS_REJECTED: {
    message: 'This site is not allowed to call the service.',
    severity: 'high',
    adminMessage: 'The request came from an origin the CORS settings do not allow.',
  },
  SERVICE_UNAVAILABLE: {
    message: 'The service is unavailable right now. Please try again later.',
    severity: 'critical',
    ctaLabel: 'Go to the home page',
    ctaRoute: '/',
  },
  UNKNOWN: { message: 'Something went wrong.', severity: 'medium' },
} as const satisfies Record<string, ErrorCodeDefinition>;

export type ErrorCode = keyof typeof ERROR_CODES;

// A Map, so that names such as `constructor` or `__proto__` are unknown codes like any other.
const BY_CODE = new Map<string, ErrorCodeDefinition>(Object.entries(ERROR_CODES));

/** The definition of `code`; `UNKNOWN`'s for an absent or unrecognised code (as the `error=<CODE>` parameter). */
export function resolveErrorCode(code?: string | null): ResolvedError {
  const known = code ? BY_CODE.get(code) : undefined;
  return known ? { code: code as ErrorCode, ...known } : { code: 'UNKNOWN', ...ERROR_CODES.UNKNOWN };
}

/**
 * A stored error message (a flash entry) resolved through the registry: the code's definition,
 * with the stored message in place of the generic one when there is one.
 */
export function resolveErrorPayload(stored: { code?: string | null; message?: string | null }): ResolvedError {
  const resolved = resolveErrorCode(stored.code);
  return stored.message ? { ...resolved, message: stored.message } : resolved;
}
