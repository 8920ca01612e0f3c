import { isIPv6 } from 'node:net';

/**
 * The client address a limit counts by, from Express's `req.ip` (which honours `trust proxy`).
 * An IPv4 address counts as itself (also written IPv4-mapped, `::ffff:a.b.c.d`); an IPv6
 * address by its /64, since one subscriber usually holds a whole /64 and could rotate within it.
 */
export function clientAddress(ip: string | undefined): string {
  if (!ip) return 'unknown';
  const address = ip.replace(/%.*$/, '').toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (mapped) return mapped[1];
  if (!isIPv6(address)) return address;
  return `${ipv6Groups(address).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, in hex without leading zeros. */
function ipv6Groups(address: string): string[] {
  const split = (part: string) => (part ? part.split(':') : []).flatMap((group) => (group.includes('.') ? ['0', '0'] : [group]));
  const [head, tail] = address.split('::');
  const left = split(head);
  const right = tail === undefined ? [] : split(tail);
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.map((group) => parseInt(group, 16).toString(16));
}
