import { describe, expect, test } from 'vitest';
import { addressPolicy, isPublicAddress } from '../../src/node/address-policy.js';

describe('the address policy', () => {
  test.each([
    '0.0.0.0',
    '127.0.0.1',
    '127.255.255.254',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '100.64.0.1', // carrier-grade NAT
    '169.254.169.254', // cloud metadata (link-local)
    '192.0.0.170',
    '198.18.0.1', // benchmarking
    '192.0.2.1', // documentation
    '224.0.0.1',
    '240.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    '::127.0.0.1', // IPv4-compatible (::/96)
    '::8.8.8.8',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    '64:ff9b::127.0.0.1', // NAT64 of loopback
    '64:ff9b::a00:1',
    '64:ff9b:1::1', // local-use NAT64
    '2002:7f00:1::1', // 6to4 of 127.0.0.1
    '2002:a9fe:a9fe::', // 6to4 of 169.254.169.254
    '2002:c0a8:101::1', // 6to4 of 192.168.1.1
    'fc00::1',
    'fd12:3456::1', // unique-local
    'fe80::1', // link-local
    'ff02::1', // multicast
    '2001:db8::1', // documentation
    '2001::1', // Teredo
    '100::1', // discard
  ])('%s is refused', (address) => {
    expect(isPublicAddress(address)).toBe(false);
    expect(addressPolicy()(address)).toMatch(/is a private, loopback, link-local, metadata or reserved address/);
  });

  test.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('%s is public', (address) => {
    expect(isPublicAddress(address)).toBe(true);
    expect(addressPolicy()(address)).toBeNull();
  });

  test('--allow-private-sources turns it off; an injected view of "public" replaces the ranges', () => {
    expect(addressPolicy({ allowPrivate: true })('127.0.0.1')).toBeNull();
    const policy = addressPolicy({ isPublic: (a) => a === '127.0.0.2' });
    expect(policy('127.0.0.2')).toBeNull();
    expect(policy('127.0.0.1')).not.toBeNull();
    expect(policy('not-an-address')).toMatch(/not an IP address/);
  });
});
