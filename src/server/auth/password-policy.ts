import { createRequire } from 'node:module';

/**
 * The password policy of sign-up, password change, an administrator's reset and `flc user add`:
 * 8 to 1,024 characters, at least 4 different characters, and not one of the ~49,000 passwords
 * that leaked lists show most often (the list `@zxcvbn-ts/language-common` ships, compared
 * without case). Signing in never applies it: an older password still signs in.
 */
export const PASSWORD_POLICY = { minLength: 8, maxLength: 1024, minDistinct: 4 } as const;

const require = createRequire(import.meta.url);
let common: Set<string> | undefined;

/** The common passwords, lower case, loaded on the first check. */
function commonPasswords(): Set<string> {
  common ??= new Set(
    (require('@zxcvbn-ts/language-common') as { dictionary: Record<string, string[]> }).dictionary[
      'passwords-common'
    ].map((p) => p.toLowerCase()),
  );
  return common;
}

/** What is wrong with `password` as a new password, or null when the policy accepts it. */
export function passwordProblem(password: string): string | null {
  const P = PASSWORD_POLICY;
  if (password.length < P.minLength) return `password must be at least ${P.minLength} characters`;
  if (password.length > P.maxLength) return `password must be at most ${P.maxLength} characters`;
  if (new Set(password).size < P.minDistinct || password.trim() === '')
    return `password must use at least ${P.minDistinct} different characters`;
  if (commonPasswords().has(password.toLowerCase()))
    return 'password is one of the most common passwords: choose another';
  return null;
}
