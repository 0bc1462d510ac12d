import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import ipaddr from 'ipaddr.js';
import { ConfigError } from '../core/errors/index.js';

/** Whether an address is one of the reverse proxies whose `X-Forwarded-For` is believed. */
export type TrustedProxies = (address: string) => boolean;

/** No proxy is trusted: the client is the socket's peer. */
export const NO_PROXIES: TrustedProxies = () => false;

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/**
 * An address as proxies write it in `X-Forwarded-For`: bare, `ip:port`, `[v6]` or `[v6]:port`,
 * with the port dropped.
 */
function withoutPort(entry: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(entry);
  if (bracketed) return bracketed[1];
  const v4 = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(entry);
  return v4 ? v4[1] : entry;
}

function parse(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const trimmed = withoutPort(address.trim());
  // ipaddr.process turns IPv4-mapped IPv6 (`::ffff:10.0.0.1`, as Node reports IPv4 peers on a
  // dual-stack socket) into plain IPv4, so one range matches both forms.
  return ipaddr.isValid(trimmed) ? ipaddr.process(trimmed) : null;
}

/**
 * `--trust-proxy` / `FLC_TRUST_PROXY`: addresses or CIDR ranges, separated by commas or spaces
 * (e.g. `127.0.0.1, 10.0.0.0/8, ::1`).
 */
export function parseTrustedProxies(setting: string | undefined): TrustedProxies {
  const entries = (setting ?? '').split(/[\s,]+/).filter(Boolean);
  if (entries.length === 0) return NO_PROXIES;
  const ranges: Range[] = entries.map((entry) => {
    try {
      if (entry.includes('/')) {
        const [net, bits] = ipaddr.parseCIDR(entry);
        if (net.kind() === 'ipv6' && (net as ipaddr.IPv6).isIPv4MappedAddress())
          return [(net as ipaddr.IPv6).toIPv4Address(), bits - 96];
        return [net, bits];
      }
      const addr = ipaddr.process(entry);
      return [addr, addr.kind() === 'ipv4' ? 32 : 128];
    } catch {
      throw new ConfigError([
        { path: 'trust-proxy', message: `not an address or CIDR range: ${JSON.stringify(entry)}` },
      ]);
    }
  });
  return (address) => {
    const addr = parse(address);
    return addr !== null && ranges.some(([net, bits]) => net.kind() === addr.kind() && addr.match(net, bits));
  };
}

function socketAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * The client's address. Without trusted proxies: the socket's peer. When the peer is a trusted
 * proxy, `X-Forwarded-For` is read from the right, skipping trusted proxies; the first address
 * that is not one is the client. An entry that is not an address ends the walk at the proxy that
 * sent it; a chain of trusted proxies only gives its leftmost entry.
 */
export function resolveClientAddress(c: Context, trusted: TrustedProxies): string {
  let client = socketAddress(c);
  if (!trusted(client)) return normalise(client);
  const forwarded = (c.req.header('x-forwarded-for') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (let i = forwarded.length - 1; i >= 0; i -= 1) {
    const entry = parse(forwarded[i]);
    if (entry === null) break;
    client = entry.toString();
    if (!trusted(client)) break;
  }
  return normalise(client);
}

/** The IPv6 prefix length whose addresses share one rate-limit count by default (one customer's /64). */
export const DEFAULT_IPV6_LIMIT_PREFIX = 64;

/**
 * The key under which an address is counted by the rate limits: an IPv4 address itself, an IPv6
 * address's network of `ipv6Prefix` bits (`2001:db8:1:2::/64`), since one client holds a whole
 * /64 and could otherwise take a fresh address for every request.
 */
export function addressLimitKey(address: string, ipv6Prefix: number = DEFAULT_IPV6_LIMIT_PREFIX): string {
  const addr = parse(address);
  if (addr === null || addr.kind() === 'ipv4' || ipv6Prefix >= 128) return addr?.toString() ?? address;
  const bytes = (addr as ipaddr.IPv6).toByteArray();
  for (let bit = Math.max(0, ipv6Prefix); bit < 128; bit += 1) bytes[bit >> 3] &= ~(0x80 >> (bit & 7));
  return `${ipaddr.fromByteArray(bytes).toString()}/${ipv6Prefix}`;
}

function normalise(address: string): string {
  return parse(address)?.toString() ?? address;
}

/**
 * Remembers the address the app worked out, for every later reader of this request, and
 * the key the rate limits count it under (`addressLimitKey`).
 */
export function setClientAddress(c: Context, address: string, ipv6Prefix = DEFAULT_IPV6_LIMIT_PREFIX): void {
  c.set('clientAddress', address);
  c.set('clientLimitKey', addressLimitKey(address, ipv6Prefix));
}

/** What the rate limits count this request's address under: its IPv6 network, or its IPv4 address. */
export function clientLimitKey(c: Context): string {
  return c.get('clientLimitKey') ?? addressLimitKey(clientAddress(c));
}

/** The client's address as the access gate worked it out (else the socket's peer; 'unknown' in-process). */
export function clientAddress(c: Context): string {
  return c.get('clientAddress') ?? normalise(socketAddress(c));
}
