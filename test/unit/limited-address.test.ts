import { describe, expect, it } from 'vitest';
import { limitedAddress } from '../../src/oauth/limits/limited-address.js';

// The address every limit counts under (SPEC 5 rateLimit).
describe('limitedAddress', () => {
  it('counts IPv4 as it is, IPv6 by its /64, an IPv4-mapped address as its IPv4 address', () => {
    expect(limitedAddress('192.0.2.1')).toBe('192.0.2.1');
    expect(limitedAddress('2001:db8:1:2::9')).toBe('2001:db8:1:2::/64');
    expect(limitedAddress('2001:0db8:0001:0002:ffff::1%eth0')).toBe('2001:db8:1:2::/64');
    expect(limitedAddress('::ffff:192.0.2.1')).toBe('192.0.2.1');
  });

  it('drops the port a proxy may write into X-Forwarded-For, so each connection is not a fresh address', () => {
    expect(limitedAddress('192.0.2.1:51234')).toBe('192.0.2.1');
    expect(limitedAddress('[2001:db8:1:2::9]:51234')).toBe('2001:db8:1:2::/64');
    expect(limitedAddress('[2001:db8:1:2::9]')).toBe('2001:db8:1:2::/64');
    expect(limitedAddress('[::ffff:192.0.2.1]:80')).toBe('192.0.2.1');
    expect(limitedAddress('[fe80::1%eth0]:443')).toBe('fe80:0:0:0::/64');
  });

  it('keeps what is no address as it is', () => {
    expect(limitedAddress('unknown')).toBe('unknown');
    expect(limitedAddress('[[a]')).toBe('[[a]');
    expect(limitedAddress('192.0.2.1:port')).toBe('192.0.2.1:port');
  });
});
