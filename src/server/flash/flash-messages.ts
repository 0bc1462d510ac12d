import { randomUUID } from 'node:crypto';
import { ConfigError } from '../../core/errors/index.js';
import type { Store } from '../store/store.js';
import type { FlashEntry } from '../store/service-records.js';

/** Flash settings: how long a token lives, and where a page request that was refused is sent. */
export interface FlashSettings {
  /** Milliseconds a token can be read (60 s by default, `FLC_FLASH_TTL_SECONDS`). */
  lifetimeMs: number;
  /** Where an auth rejection on a page route redirects (`FLC_LOGIN_URL`, `/login` by default). */
  loginLocation: string;
}

export const DEFAULT_FLASH: FlashSettings = { lifetimeMs: 60_000, loginLocation: '/login' };

/** A token is a UUID v4 (lowercase, as `randomUUID` makes them); anything else is unknown. */
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Stores a one-time message and returns its token. */
export async function issueFlash(
  store: Store,
  settings: FlashSettings,
  now: number,
  message: { code?: string | null; message: string; type?: string },
): Promise<string> {
  const token = randomUUID();
  await store.putFlash({
    token,
    code: message.code ?? null,
    message: message.message,
    type: message.type ?? 'info',
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(now + settings.lifetimeMs).toISOString(),
  });
  return token;
}

/** Takes the message of `token` (once); null when it is malformed, unknown, taken or expired. */
export async function takeFlash(store: Store, token: string, now: number): Promise<FlashEntry | null> {
  if (!UUID_V4.test(token)) return null;
  return store.takeFlash(token, new Date(now).toISOString());
}

/** The login location with `flash=<token>` added (a path stays a path, a URL a URL). */
export function loginRedirect(loginLocation: string, token: string): string {
  const absolute = /^[a-z][a-z0-9+.-]*:\/\//i.test(loginLocation);
  const url = new URL(loginLocation, 'http://flc.invalid');
  url.searchParams.set('flash', token);
  return absolute ? url.href : `${url.pathname}${url.search}${url.hash}`;
}

/** `FLC_FLASH_TTL_SECONDS` (a whole number of seconds, 1–86400) and `FLC_LOGIN_URL`. */
export function flashSettingsFromEnv(env: NodeJS.ProcessEnv): FlashSettings {
  const raw = env.FLC_FLASH_TTL_SECONDS;
  const seconds = raw ? Number(raw) : DEFAULT_FLASH.lifetimeMs / 1000;
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 86_400) {
    throw new ConfigError([
      { path: 'FLC_FLASH_TTL_SECONDS', message: 'must be a whole number of seconds, 1 to 86400' },
    ]);
  }
  return { lifetimeMs: seconds * 1000, loginLocation: env.FLC_LOGIN_URL || DEFAULT_FLASH.loginLocation };
}
