/**
 * Who a caller is, for a count kept over hours or days: the source address, except that an IPv6
 * caller is its /64. One host is normally given a whole /64 and may take any address in it, so
 * counting single IPv6 addresses would give it 2^64 fresh allowances; an IPv4-mapped address is
 * the IPv4 address it maps.
 */
import { isIPv4, isIPv6 } from 'node:net';

/** The 8 groups of an IPv6 address, `::` expanded (an embedded IPv4 tail becomes two groups). */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.split('%')[0]!.toLowerCase();
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (v4) {
    const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -v4.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const part = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const left = part(head);
  const right = part(tail);
  const groups = tail === undefined ? left : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

/** The key a caller is counted under: the IPv4 address, or the IPv6 /64 (`2001:db8:1:2::/64`); anything else as given. */
export function callerKey(sourceIp: string): string {
  if (isIPv4(sourceIp) || !isIPv6(sourceIp)) return sourceIp;
  const g = ipv6Groups(sourceIp);
  if (!g) return sourceIp;
  // ::ffff:a.b.c.d is an IPv4 caller on a dual-stack socket.
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return [g[6]! >> 8, g[6]! & 0xff, g[7]! >> 8, g[7]! & 0xff].join('.');
  return `${g
    .slice(0, 4)
    .map((x) => x.toString(16))
    .join(':')}::/64`;
}
