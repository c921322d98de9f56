import { BlockList, isIP } from 'node:net';

/**
 * `TRUST_PROXY` (CONTRACT.md §1): the load balancers' addresses and CIDR ranges, or `false`.
 * `X-Forwarded-*` and the client certificate header are believed only on a connection from one
 * of them; anyone else could send them.
 */
export type TrustedProxies = false | readonly string[];

/** Whether a connection's peer (the socket's remote address, never a header) is a trusted proxy. */
export type PeerCheck = (address: string | undefined) => boolean;

const EXAMPLE = 'e.g. 10.0.0.0/8,127.0.0.1';

/**
 * The widest ranges taken: an IPv4 /8, an IPv6 /32 (an IPv4-mapped one, `::ffff:…`, as its IPv4
 * /8). A wider range is no load balancer's: `0.0.0.0/1,128.0.0.0/1` trusts every peer.
 */
const SHORTEST_PREFIX = { ipv4: 8, ipv6: 32, ipv4Mapped: 96 + 8 } as const;

/**
 * The entries of a comma-separated list (or a list) of IP addresses and CIDR ranges, checked.
 * `true` is refused: it would let every peer forge the headers.
 */
export function parseTrustedProxies(value: string | readonly string[]): string[] {
  const entries = (typeof value === 'string' ? value.split(',') : [...value]).map((entry) => String(entry).trim()).filter((entry) => entry !== '');
  if (entries.length === 0) throw new TypeError(`expected the load balancers' addresses (${EXAMPLE})`);
  for (const entry of entries) {
    if (entry === 'true' || entry === '1') {
      throw new TypeError(`"${entry}" (trust every peer) is refused: list the load balancers' addresses instead (${EXAMPLE})`);
    }
    addEntry(new BlockList(), entry);
  }
  return entries;
}

/** The check of a connection's peer against `proxies`: IPv4, IPv6, and IPv4-mapped IPv6 peers (`::ffff:127.0.0.1`). */
export function trustedPeer(proxies: TrustedProxies): PeerCheck {
  if (proxies === false) return () => false;
  if (!Array.isArray(proxies)) throw new TypeError(`trustProxy: expected false or a list of addresses and CIDR ranges (${EXAMPLE})`);
  const list = new BlockList();
  for (const entry of parseTrustedProxies(proxies)) addEntry(list, entry);
  return (address) => {
    const family = typeof address === 'string' ? isIP(address) : 0;
    return family !== 0 && list.check(address!, family === 6 ? 'ipv6' : 'ipv4');
  };
}

function addEntry(list: BlockList, entry: string): void {
  const slash = entry.indexOf('/');
  const address = slash === -1 ? entry : entry.slice(0, slash);
  const family = isIP(address);
  const type = family === 6 ? 'ipv6' : 'ipv4';
  if (family === 0 || address.includes('%')) throw new TypeError(`"${entry}" is neither an IP address nor a CIDR range (${EXAMPLE})`);
  if (slash === -1) {
    list.addAddress(address, type);
    return;
  }
  const prefix = entry.slice(slash + 1);
  const bits = Number(prefix);
  if (!/^\d{1,3}$/.test(prefix) || bits > (family === 6 ? 128 : 32)) {
    throw new TypeError(`"${entry}" is neither an IP address nor a CIDR range (${EXAMPLE})`);
  }
  if (bits === 0) throw new TypeError(`"${entry}" trusts every peer and is refused: list the load balancers' addresses instead (${EXAMPLE})`);
  const shortest = family === 4 ? SHORTEST_PREFIX.ipv4 : /^::ffff:/i.test(address) ? SHORTEST_PREFIX.ipv4Mapped : SHORTEST_PREFIX.ipv6;
  if (bits < shortest) {
    throw new TypeError(
      `"${entry}" is refused: a range wider than /${shortest} would trust peers that are no load balancer; list the load balancers' addresses instead (${EXAMPLE})`,
    );
  }
  list.addSubnet(address, bits, type);
}
