import { BlockList, isIPv4, isIPv6 } from 'node:net';

/** Loopback, private, link-local, shared, documentation, benchmarking, multicast and reserved ranges. */
const NON_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
// `::` and `::1` lie in `::/96` and are judged by the IPv4 address they embed (0.0.0.0, 0.0.0.1).
for (const [network, prefix] of [
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

/** The eight 16-bit groups of a valid IPv6 address (a dotted IPv4 tail counts as two; a zone is ignored). */
function ipv6Groups(address: string): number[] {
  let text = address.replace(/%.*$/, '');
  const dotted = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const [head, tail] = text.split('::');
  if (tail === undefined) return parse(head);
  const [first, last] = [parse(head), parse(tail)];
  return [...first, ...new Array<number>(8 - first.length - last.length).fill(0), ...last];
}

/**
 * The IPv4 address an IPv6 address carries, for the forms that deliver to it: IPv4-compatible
 * (`::a.b.c.d`, `::/96`), IPv4-mapped (`::ffff:a.b.c.d`), IPv4-translated (`::ffff:0:a.b.c.d`),
 * NAT64 (`64:ff9b::/96`), 6to4 (`2002:AABB:CCDD::/48`) and Teredo (`2001::/32`, client address
 * inverted in the last 32 bits).
 */
function embeddedIPv4(groups: number[]): string | undefined {
  const dotted = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  const zero = (from: number, to: number) => groups.slice(from, to).every((group) => group === 0);
  const [g0, g1, g2, , g4, g5, g6, g7] = groups;
  if (zero(0, 5) && (g5 === 0 || g5 === 0xffff)) return dotted(g6, g7);
  if (zero(0, 4) && g4 === 0xffff && g5 === 0) return dotted(g6, g7);
  if (g0 === 0x64 && g1 === 0xff9b && zero(2, 6)) return dotted(g6, g7);
  if (g0 === 0x2002) return dotted(g1, g2);
  if (g0 === 0x2001 && g1 === 0) return dotted(g6 ^ 0xffff, g7 ^ 0xffff);
  return undefined;
}

/**
 * Whether an IP address is reachable on the public internet (not loopback, private, link-local or
 * reserved). An IPv6 address that embeds an IPv4 address is judged by that address as well.
 */
export function isPublicAddress(address: string): boolean {
  if (isIPv4(address)) return !NON_PUBLIC.check(address, 'ipv4');
  if (!isIPv6(address)) return false;
  const groups = ipv6Groups(address);
  const embedded = embeddedIPv4(groups);
  if (embedded !== undefined && !isPublicAddress(embedded)) return false;
  return !NON_PUBLIC.check(groups.map((group) => group.toString(16)).join(':'), 'ipv6');
}
