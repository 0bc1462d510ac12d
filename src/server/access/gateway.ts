import type { Context } from 'hono';
import { createRemoteJWKSet, importSPKI, type JWTVerifyGetKey, jwtVerify, type CryptoKey } from 'jose';

/**
 * The access gateway in front of the server (an identity-aware proxy): when configured, applying
 * a configuration import, reverting a snapshot and erasing a user's data also need the signed
 * assertion the gateway adds to each request it lets through.
 */
export interface GatewaySettings {
  /** The request header carrying the assertion (a JWT). */
  header: string;
  /** Verify with the keys at this JWKS URL … */
  jwksUrl?: string;
  /** … or with this PEM public key (SPKI). */
  publicKey?: string;
  /** The algorithm of `publicKey` (default RS256). */
  algorithm?: string;
  /** When set, the assertion's `aud` must include it. */
  audience?: string;
  /** When set, the assertion's `iss` must equal it. */
  issuer?: string;
}

const keys = new WeakMap<GatewaySettings, Promise<CryptoKey | JWTVerifyGetKey>>();

function keyOf(s: GatewaySettings): Promise<CryptoKey | JWTVerifyGetKey> {
  let key = keys.get(s);
  if (!key) {
    key = s.jwksUrl
      ? Promise.resolve(createRemoteJWKSet(new URL(s.jwksUrl)))
      : importSPKI(s.publicKey ?? '', s.algorithm ?? 'RS256');
    keys.set(s, key);
  }
  return key;
}

/** Why the request lacks a valid gateway assertion (403), or null when it has one or no gateway is configured. */
export async function gatewayRefusal(c: Context, settings: GatewaySettings | undefined): Promise<string | null> {
  if (!settings) return null;
  const token = c.req.header(settings.header);
  if (!token) return `Missing access-gateway assertion (${settings.header})`;
  try {
    const key = await keyOf(settings);
    const options = {
      ...(settings.audience ? { audience: settings.audience } : {}),
      ...(settings.issuer ? { issuer: settings.issuer } : {}),
      ...(settings.publicKey ? { algorithms: [settings.algorithm ?? 'RS256'] } : {}),
    };
    if (typeof key === 'function') await jwtVerify(token, key, options);
    else await jwtVerify(token, key, options);
    return null;
  } catch {
    return 'Invalid access-gateway assertion';
  }
}

/** The header gateways of this kind set (`<GATEWAY>-Access-JWT-Assertion`), used when none is named. */
export const DEFAULT_GATEWAY_HEADER = 'Cf-Access-Jwt-Assertion';

/** The gateway settings from the environment: configured when a JWKS URL or a public key is given. */
export function gatewaySettingsFromEnv(env: Record<string, string | undefined>): GatewaySettings | undefined {
  const jwksUrl = env.ACCESS_GATEWAY_JWKS_URL || undefined;
  const publicKey = env.ACCESS_GATEWAY_PUBLIC_KEY || undefined;
  if (!jwksUrl && !publicKey) return undefined;
  return {
    header: env.ACCESS_GATEWAY_HEADER || DEFAULT_GATEWAY_HEADER,
    ...(jwksUrl ? { jwksUrl } : { publicKey }),
    ...(env.ACCESS_GATEWAY_ALGORITHM ? { algorithm: env.ACCESS_GATEWAY_ALGORITHM } : {}),
    ...(env.ACCESS_GATEWAY_AUDIENCE ? { audience: env.ACCESS_GATEWAY_AUDIENCE } : {}),
    ...(env.ACCESS_GATEWAY_ISSUER ? { issuer: env.ACCESS_GATEWAY_ISSUER } : {}),
  };
}
