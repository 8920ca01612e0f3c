import { clientAddress } from '../../src/http/client-address';

describe('clientAddress', () => {
  it('counts an IPv4 address as itself, also when written IPv4-mapped', () => {
    expect(clientAddress('203.0.113.7')).toBe('203.0.113.7');
    expect(clientAddress('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('counts an IPv6 address by its /64, however it is written', () => {
    const prefix = '2001:db8:1:2::/64';
    expect(clientAddress('2001:db8:1:2::1')).toBe(prefix);
    expect(clientAddress('2001:0DB8:0001:0002:ffff:ffff:ffff:ffff')).toBe(prefix);
    expect(clientAddress('2001:db8:1:2:0:0:0:1%eth0')).toBe(prefix);
    expect(clientAddress('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(clientAddress('::1')).toBe('0:0:0:0::/64');
    expect(clientAddress('64:ff9b::198.51.100.1')).toBe('64:ff9b:0:0::/64');
  });

  it('names a missing address', () => {
    expect(clientAddress(undefined)).toBe('unknown');
  });
});
