// What rate limits count a client under: IPv4 as it is, IPv4 through a dual-stack socket as IPv4, IPv6 by its /64.
import { addressKey } from '../../src/services/rate-limits.js';

it('counts an IPv6 client by its /64, however it writes the address', () => {
  expect(addressKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
  expect(addressKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
  expect(addressKey('2001:0db8:0001:0002:0:0:0:ffff')).toBe('2001:db8:1:2::/64');
  expect(addressKey('2001:db8::5')).toBe('2001:db8:0:0::/64');
  expect(addressKey('::1')).toBe('0:0:0:0::/64');
  expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  expect(addressKey('2001:db8:1:3::1')).not.toBe(addressKey('2001:db8:1:2::1'));
});

it('counts IPv4 as it is, also when seen through a dual-stack socket', () => {
  expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
  expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
  expect(addressKey('')).toBe('');
});
