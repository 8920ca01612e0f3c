import { isPublicAddress } from '../../src/verify/private-addresses';

describe('isPublicAddress', () => {
  it.each([
    ['IPv4 loopback', '127.0.0.1', false],
    ['IPv4 private', '10.1.2.3', false],
    ['IPv4 link-local (cloud metadata)', '169.254.169.254', false],
    ['IPv4 documentation', '203.0.113.9', false],
    ['IPv6 unspecified', '::', false],
    ['IPv6 loopback', '::1', false],
    ['IPv6 unique local', 'fd12:3456::1', false],
    ['IPv6 link-local with a zone', 'fe80::1%eth0', false],
    ['IPv6 documentation', '2001:db8::1', false],
    ['IPv4-mapped loopback, dotted', '::ffff:127.0.0.1', false],
    ['IPv4-mapped loopback, hex', '::ffff:7f00:1', false],
    ['IPv4-mapped private, full form', '0:0:0:0:0:ffff:a00:1', false],
    ['IPv4-translated loopback', '::ffff:0:127.0.0.1', false],
    ['IPv4-compatible loopback, dotted', '::127.0.0.1', false],
    ['IPv4-compatible private, hex', '::a00:1', false],
    ['NAT64 of loopback', '64:ff9b::7f00:1', false],
    ['NAT64 of a private address, dotted', '64:ff9b::10.0.0.1', false],
    ['NAT64 of the metadata address', '64:ff9b::a9fe:a9fe', false],
    ['local-use NAT64', '64:ff9b:1::808:808', false],
    ['6to4 of loopback', '2002:7f00:1::', false],
    ['6to4 of a private address', '2002:a00:1::1', false],
    ['6to4 of 192.168.1.1', '2002:c0a8:101:5::9', false],
    ['Teredo of loopback', '2001:0:4136:e378:8000:63bf:80ff:fffe', false],
    ['not an address', 'example.com', false],
    ['public IPv4', '8.8.8.8', true],
    ['public IPv6', '2606:4700:4700::1111', true],
    ['IPv4-mapped public', '::ffff:8.8.8.8', true],
    ['NAT64 of a public address', '64:ff9b::808:808', true],
    ['6to4 of a public address', '2002:808:808::1', true],
  ])('%s (%s) is public: %s', (_what, address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});
