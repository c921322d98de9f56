import { isIP } from 'node:net';

/**
 * The addresses an outbound fetch must not reach unless the operator allows them
 * (`OUTBOUND_ALLOW`): the IANA IPv4 and IPv6 special-purpose address registries (RFC 6890 and
 * its updates), with the IPv4 address inside an IPv6 translation prefix judged as IPv4.
 */

/** An address as its bytes: 4 for IPv4, 16 for IPv6. */
type Bytes = Uint8Array;

interface Cidr {
  bytes: Bytes;
  prefix: number;
}

const IPV4_SPECIAL = [
  '0.0.0.0/8', // "this network"
  '10.0.0.0/8', // RFC 1918
  '100.64.0.0/10', // RFC 6598 shared address space (CGNAT)
  '127.0.0.0/8', // loopback
  '169.254.0.0/16', // link-local, where cloud metadata services answer
  '172.16.0.0/12', // RFC 1918
  '192.0.0.0/24', // IETF protocol assignments
  '192.0.2.0/24', // TEST-NET-1
  '192.88.99.0/24', // 6to4 relay anycast (RFC 7526)
  '192.168.0.0/16', // RFC 1918
  '198.18.0.0/15', // benchmarking (RFC 2544)
  '198.51.100.0/24', // TEST-NET-2
  '203.0.113.0/24', // TEST-NET-3
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, and the limited broadcast 255.255.255.255
].map((text) => parseCidr(text));

const IPV6_SPECIAL = [
  '::/128', // unspecified
  '::1/128', // loopback
  '::/96', // IPv4-compatible (deprecated, RFC 4291 §2.5.5.1)
  '64:ff9b:1::/48', // local-use IPv4/IPv6 translation (RFC 8215)
  '100::/64', // discard-only (RFC 6666)
  '2001::/23', // IETF protocol assignments: Teredo 2001::/32, benchmarking, ORCHID
  '2001:db8::/32', // documentation
  '3fff::/20', // documentation (RFC 9637)
  '5f00::/16', // SRv6 SIDs (RFC 9602)
  'fc00::/7', // unique local (RFC 4193)
  'fe80::/10', // link-local
  'fec0::/10', // site-local, deprecated but still routed by some
  'ff00::/8', // multicast
].map((text) => parseCidr(text));

/** Global unicast (RFC 4291 §2.4); nothing outside it is reachable on the internet. */
const GLOBAL_UNICAST = parseCidr('2000::/3');

/** IPv6 prefixes that carry an IPv4 address, and where it sits (bytes). */
const EMBEDDING_V4: ReadonlyArray<{ cidr: Cidr; at: number }> = [
  { cidr: parseCidr('::ffff:0:0/96'), at: 12 }, // IPv4-mapped
  { cidr: parseCidr('64:ff9b::/96'), at: 12 }, // NAT64 well-known prefix (RFC 6052)
  { cidr: parseCidr('2002::/16'), at: 2 }, // 6to4 (RFC 3056): bits 16 to 48
];

/** Whether an outbound fetch must not reach `address` on its own; an unreadable address is special too. */
export function isSpecialPurposeAddress(address: string): boolean {
  const bytes = parseAddress(address);
  if (!bytes) return true;
  if (bytes.length === 4) return IPV4_SPECIAL.some((cidr) => contains(cidr, bytes));
  const embedded = embeddedV4(bytes);
  if (embedded) return IPV4_SPECIAL.some((cidr) => contains(cidr, embedded));
  return !contains(GLOBAL_UNICAST, bytes) || IPV6_SPECIAL.some((cidr) => contains(cidr, bytes));
}

/**
 * `OUTBOUND_ALLOW`: the CIDR ranges, addresses and host names that outbound fetches may reach
 * despite the guard. A host name matches exactly (case and a final dot aside), not its subdomains.
 */
export class OutboundAllowList {
  private readonly ranges: Cidr[] = [];
  private readonly hosts = new Set<string>();

  /** Throws a message naming the first entry that is neither a range, an address nor a host name. */
  constructor(entries: readonly string[] = []) {
    for (const raw of entries) {
      const entry = raw.trim();
      if (entry === '') continue;
      const address = parseAddress(entry);
      const cidr = address ? { bytes: address, prefix: address.length * 8 } : entry.includes('/') ? parseCidr(entry, false) : undefined;
      if (cidr) {
        this.ranges.push(canonicalCidr(cidr));
      } else if (entry.includes('/')) {
        throw new Error(`"${entry}" is not a CIDR range`);
      } else if (HOST_NAME.test(entry)) {
        this.hosts.add(hostKey(entry));
      } else {
        throw new Error(`"${entry}" is neither a CIDR range, an IP address nor a host name`);
      }
    }
  }

  allowsHost(hostname: string): boolean {
    return this.hosts.has(hostKey(hostname));
  }

  allowsAddress(address: string): boolean {
    const bytes = parseAddress(address);
    if (!bytes) return false;
    const key = canonical(bytes);
    return this.ranges.some((cidr) => contains(cidr, key));
  }
}

const HOST_NAME = /^(?=.{1,253}\.?$)[a-z0-9_](?:[a-z0-9_-]{0,62})(?:\.[a-z0-9_](?:[a-z0-9_-]{0,62}))*\.?$/i;

function hostKey(hostname: string): string {
  return hostname.toLowerCase().replace(/\.$/, '');
}
function unbracket(host: string): string {
  return host.replace(/^\[(.*)\]$/, '$1');
}

/** The 4 or 16 bytes of an IP address (an IPv6 zone is ignored); undefined when it is not one. */
export function parseAddress(text: string): Bytes | undefined {
  const address = unbracket(text).replace(/%.*$/, '');
  const family = isIP(address);
  if (family === 4) return Uint8Array.from(address.split('.').map(Number));
  if (family !== 6) return undefined;
  let tail: number[] = [];
  let head = address;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    tail = [(a << 8) | b, (c << 8) | d];
    head = address.slice(0, -dotted[1]!.length);
    if (head.endsWith(':') && !head.endsWith('::')) head = head.slice(0, -1);
  }
  const groups = (part: string): number[] => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const [left, right] = head.split('::') as [string, string | undefined];
  const before = groups(left);
  const after = [...(right === undefined ? [] : groups(right)), ...tail];
  const words = right === undefined ? [...before, ...after] : [...before, ...new Array<number>(8 - before.length - after.length).fill(0), ...after];
  const bytes = new Uint8Array(16);
  words.forEach((word, i) => {
    bytes[2 * i] = word >> 8;
    bytes[2 * i + 1] = word & 0xff;
  });
  return bytes;
}

function parseCidr(text: string): Cidr;
function parseCidr(text: string, strict: false): Cidr | undefined;
function parseCidr(text: string, strict = true): Cidr | undefined {
  const match = /^([^/]+)\/(\d{1,3})$/.exec(text.trim());
  const bytes = match ? parseAddress(match[1]!) : undefined;
  const prefix = match ? Number(match[2]) : NaN;
  if (!bytes || !(prefix <= bytes.length * 8)) {
    if (strict) throw new Error(`not a CIDR range: ${text}`);
    return undefined;
  }
  return { bytes, prefix };
}

function contains(cidr: Cidr, bytes: Bytes): boolean {
  if (cidr.bytes.length !== bytes.length) return false;
  for (let bit = 0; bit < cidr.prefix; bit += 8) {
    const mask = cidr.prefix - bit >= 8 ? 0xff : (0xff << (8 - (cidr.prefix - bit))) & 0xff;
    if ((cidr.bytes[bit / 8]! & mask) !== (bytes[bit / 8]! & mask)) return false;
  }
  return true;
}

function embeddedV4(bytes: Bytes): Bytes | undefined {
  const embedding = EMBEDDING_V4.find(({ cidr }) => contains(cidr, bytes));
  return embedding ? bytes.slice(embedding.at, embedding.at + 4) : undefined;
}

function isMapped(bytes: Bytes): boolean {
  return contains(EMBEDDING_V4[0]!.cidr, bytes);
}

/** An IPv4-mapped IPv6 address as the IPv4 address it connects to. */
function canonical(bytes: Bytes): Bytes {
  return bytes.length === 16 && isMapped(bytes) ? bytes.slice(12) : bytes;
}

/** A range of IPv4-mapped addresses as the IPv4 range, so that either spelling of an address matches it. */
function canonicalCidr(cidr: Cidr): Cidr {
  return cidr.bytes.length === 16 && cidr.prefix >= 96 && isMapped(cidr.bytes) ? { bytes: cidr.bytes.slice(12), prefix: cidr.prefix - 96 } : cidr;
}
