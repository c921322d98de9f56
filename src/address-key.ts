import { isIPv4, isIPv6 } from 'node:net';

/**
 * What every per-address count keys on: an IPv4 address as it is (a /32), an IPv6 address
 * by its /64 (`2001:db8:0:1::/64`). A /64 is the smallest block an IPv6 network is given
 * (RFC 6177, RFC 7421), and every host in it may choose any of its 2^64 addresses: keyed on
 * the whole address, an attacker holding one would have a fresh budget for every request.
 * An IPv4-mapped address (`::ffff:192.0.2.1`, RFC 4291 §2.5.5.2, what a dual-stack socket
 * reports for an IPv4 peer) is the IPv4 address. Anything else is returned as it is.
 */
export function addressKey(ip: string): string {
  if (isIPv4(ip)) return ip;
  const unzoned = ip.split('%', 1)[0]!;
  if (!isIPv6(unzoned)) return ip;
  const groups = ipv6Groups(unzoned);
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (RFC 4291 §2.2), `::` and a dotted IPv4 tail included. */
function ipv6Groups(ip: string): number[] {
  const toGroups = (part: string): number[] => {
    if (part === '') return [];
    return part.split(':').flatMap((piece) => {
      if (!piece.includes('.')) return [Number.parseInt(piece, 16)];
      const [a, b, c, d] = piece.split('.').map(Number) as [number, number, number, number];
      return [(a << 8) | b, (c << 8) | d];
    });
  };
  const [head = '', tail] = ip.split('::');
  const front = toGroups(head);
  if (tail === undefined) return front;
  const back = toGroups(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}
