import ipaddr from 'ipaddr.js';

/** Why a server compile may not connect to `address`, or null when it may. */
export type AddressPolicy = (address: string) => string | null;

const REFUSED = 'is a private, loopback, link-local, metadata or reserved address';

/** IPv6 forms that carry an IPv4 address: judged by the address they carry. */
function embeddedIPv4(v6: ipaddr.IPv6): ipaddr.IPv4 | null {
  const bytes = v6.toByteArray();
  switch (v6.range()) {
    case 'ipv4Mapped':
      return v6.toIPv4Address();
    case 'rfc6052': // NAT64 64:ff9b::/96 (the /48 local-use prefix has no fixed embedding)
      return v6.match(ipaddr.IPv6.parse('64:ff9b::'), 96) ? new ipaddr.IPv4(bytes.slice(12, 16)) : null;
    case '6to4': // 2002:AABB:CCDD::/48 embeds AA.BB.CC.DD
      return new ipaddr.IPv4(bytes.slice(2, 6));
    default:
      return null;
  }
}

/** `::1.2.3.4` as `::102:304`: ipaddr.js reads any dotted tail as IPv4-mapped, which `::/96` is not. */
function withHexTail(address: string): string {
  const tail = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  if (!tail) return address;
  const [a, b, c, d] = tail.slice(2).map(Number);
  return `${tail[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

/**
 * Whether `address` is a public unicast address: ipaddr.js's range table (loopback, private,
 * carrier-grade NAT, link-local and so cloud metadata, multicast, benchmarking, documentation,
 * reserved, unique-local, Teredo, …), with the IPv4-compatible `::/96` refused outright and
 * IPv4-mapped, NAT64 and 6to4 forms judged by the IPv4 address they embed.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const ip = ipaddr.parse(withHexTail(address));
  if (ip.kind() === 'ipv4') return ip.range() === 'unicast';
  const v6 = ip as ipaddr.IPv6;
  if (v6.match(ipaddr.IPv6.parse('::'), 96)) return false;
  const embedded = embeddedIPv4(v6);
  if (embedded) return embedded.range() === 'unicast';
  return ['ipv4Mapped', 'rfc6052', '6to4'].includes(v6.range()) ? false : v6.range() === 'unicast';
}

/**
 * The address policy of server compiles. `isPublic` decides what counts as public (tests
 * inject one that calls a loopback address public, to play the Internet); `allowPrivate`
 * (`--allow-private-sources`) turns the policy off.
 */
export function addressPolicy(
  opts: { allowPrivate?: boolean; isPublic?: (address: string) => boolean } = {},
): AddressPolicy {
  const isPublic = opts.isPublic ?? isPublicAddress;
  return (address) => {
    if (opts.allowPrivate) return null;
    if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
    return isPublic(address) ? null : `${address} ${REFUSED}`;
  };
}
