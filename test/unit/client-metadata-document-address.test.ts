import { describe, expect, it } from 'vitest';
import { refusedAddressReason } from '../../src/oauth/clients/metadata-documents/client-metadata-document-address.js';

// Client ID Metadata Documents, SSRF: which resolved addresses a document may be fetched from.

describe('refusedAddressReason: the addresses a Client ID Metadata Document is never fetched from', () => {
  it('refuses loopback, private, link-local, CGNAT, this-network, multicast and reserved IPv4 ranges, edges included', () => {
    const cases: Array<[string, string]> = [
      ['127.0.0.1', 'loopback'],
      ['127.255.255.255', 'loopback'],
      ['10.0.0.0', 'private'],
      ['10.255.255.255', 'private'],
      ['172.16.0.1', 'private'],
      ['172.31.255.255', 'private'],
      ['192.168.1.1', 'private'],
      ['169.254.169.254', 'link-local'],
      ['100.64.0.0', 'shared address space (CGNAT)'],
      ['100.127.255.255', 'shared address space (CGNAT)'],
      ['0.0.0.0', 'this network'],
      ['0.1.2.3', 'this network'],
      ['224.0.0.1', 'multicast'],
      ['239.255.255.250', 'multicast'],
      ['255.255.255.255', 'reserved'],
      ['192.0.2.10', 'documentation'],
    ];
    for (const [address, reason] of cases) expect(refusedAddressReason(address), address).toBe(reason);
  });

  it('lets public IPv4 addresses through, just outside each refused range', () => {
    for (const address of [
      '8.8.8.8',
      '1.1.1.1',
      '172.15.255.255',
      '172.32.0.0',
      '100.63.255.255',
      '100.128.0.0',
      '11.0.0.0',
      '169.255.0.1',
      '223.255.255.255',
    ]) {
      expect(refusedAddressReason(address), address).toBeNull();
    }
  });

  it('refuses IPv6 loopback, unspecified, unique local, link-local and multicast', () => {
    const cases: Array<[string, string]> = [
      ['::1', 'loopback'],
      ['0:0:0:0:0:0:0:1', 'loopback'],
      ['::', 'unspecified'],
      ['fc00::1', 'unique local'],
      ['fdff:ffff::1', 'unique local'],
      ['fe80::1', 'link-local'],
      ['fe80::1%eth0', 'link-local'],
      ['febf::1', 'link-local'],
      ['ff02::1', 'multicast'],
      ['2001:db8::1', 'documentation'],
    ];
    for (const [address, reason] of cases) expect(refusedAddressReason(address), address).toBe(reason);
  });

  it('checks the IPv4 address inside IPv4-mapped, NAT64 and 6to4 IPv6 addresses', () => {
    expect(refusedAddressReason('::ffff:127.0.0.1')).toBe('IPv4-mapped loopback');
    expect(refusedAddressReason('::ffff:7f00:1')).toBe('IPv4-mapped loopback');
    expect(refusedAddressReason('::ffff:a9fe:a9fe')).toBe('IPv4-mapped link-local');
    expect(refusedAddressReason('64:ff9b::10.0.0.1')).toBe('IPv4-mapped private');
    expect(refusedAddressReason('2002:c0a8:0101::1')).toBe('6to4 private');
    expect(refusedAddressReason('::ffff:8.8.8.8')).toBeNull();
    expect(refusedAddressReason('2002:0808:0808::1')).toBeNull();
  });

  it('issue 29 item 8 (RFC 8215, RFC 2765 section 2.1, RFC 4380): refuses local-use NAT64 and Teredo outright, and checks the IPv4 address inside IPv4-translated addresses', () => {
    const cases: Array<[string, string]> = [
      ['64:ff9b:1::a00:1', 'local-use NAT64'],
      ['64:ff9b:1:ffff:ffff:ffff:ffff:ffff', 'local-use NAT64'],
      ['64:ff9b:1:0:8:808:800::', 'local-use NAT64'],
      ['2001::1', 'Teredo'],
      ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
      ['2001:0:ffff:ffff:ffff:ffff:ffff:ffff', 'Teredo'],
      ['::ffff:0:127.0.0.1', 'IPv4-translated loopback'],
      ['::ffff:0:a00:1', 'IPv4-translated private'],
      ['::ffff:0:169.254.169.254', 'IPv4-translated link-local'],
    ];
    for (const [address, reason] of cases) expect(refusedAddressReason(address), address).toBe(reason);
    // Just outside each range, and a public address inside the translated form.
    for (const address of ['64:ff9b:2::a00:1', '64:ff9b:0:1::a00:1', '2001:1::1', '2001:4860:4860::8888', '::ffff:0:8.8.8.8']) {
      expect(refusedAddressReason(address), address).toBeNull();
    }
  });

  it('lets public IPv6 addresses through', () => {
    for (const address of ['2606:4700:4700::1111', '2a00:1450:4001:80b::200e', 'fbff::1', 'fe00::1']) {
      expect(refusedAddressReason(address), address).toBeNull();
    }
  });

  it('anything that is not an IP address is refused', () => {
    for (const text of ['localhost', '', '1.2.3', 'gggg::1']) expect(refusedAddressReason(text), text).toBe('not an IP address');
  });
});
