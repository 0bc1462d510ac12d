import { BlockList, isIP } from 'node:net';

/**
 * Addresses a server-side compile must never reach: this host, private networks,
 * link-local (cloud metadata lives at 169.254.169.254), carrier-grade NAT, multicast,
 * reserved ranges, and their IPv6 counterparts (including IPv4-mapped forms).
 */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96], ['100::', 64]] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/** Why `address` is refused, or null when it is a public address. */
export function addressProblem(address: string): string | null {
  const family = isIP(address);
  if (family === 0) return `${address} is not an IP address`;
  let check = address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) check = mapped[1];
  const type = isIP(check) === 4 ? 'ipv4' : 'ipv6';
  return blocked.check(check, type) ? `${address} is a private, loopback, link-local or reserved address` : null;
}
