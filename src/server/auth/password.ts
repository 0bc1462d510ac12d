import { pbkdf2, randomBytes, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import type { NewUser } from '../store/accounts.js';

const derive = promisify(pbkdf2);

/** CONTRACT §5: PBKDF2-SHA256 with at least 600,000 iterations and a per-user salt. */
export const PASSWORD_ITERATIONS = 600_000;
const KEY_BYTES = 32;

export type PasswordHash = NewUser['password'];

export async function hashPassword(password: string, iterations = PASSWORD_ITERATIONS): Promise<PasswordHash> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, iterations, KEY_BYTES, 'sha256');
  return { hash: hash.toString('base64'), salt: salt.toString('base64'), iterations };
}

export async function verifyPassword(password: string, stored: PasswordHash): Promise<boolean> {
  const expected = Buffer.from(stored.hash, 'base64');
  const actual = await derive(
    password,
    Buffer.from(stored.salt, 'base64'),
    stored.iterations,
    expected.length,
    'sha256',
  );
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * A hash to verify against when the user does not exist, so that a wrong password and an
 * unknown user take the same time.
 */
export const DUMMY_HASH: PasswordHash = {
  hash: Buffer.alloc(KEY_BYTES).toString('base64'),
  salt: Buffer.alloc(16).toString('base64'),
  iterations: PASSWORD_ITERATIONS,
};
