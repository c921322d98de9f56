import type { X509Certificate } from 'node:crypto';

/**
 * Distinguished names for `tls_client_auth` (RFC 8705 §2.1.2): the certificate's subject is
 * compared with the client's `tls_client_auth_subject_dn`, an RFC 4514 string.
 *
 * Node's `X509Certificate.subject` is a display string (`O=Example\nCN=app`), so the subject is
 * read from the certificate's DER instead, and both sides become the same canonical form: a
 * list of RDNs, each a sorted set of `oid=value` with the attribute type as its OID
 * (`CN`, `commonName` and `2.5.4.3` are one type) and the value with insignificant spaces
 * removed and compared case-insensitively (the caseIgnoreMatch of X.520 names, RFC 4517
 * §4.2.11). RDNs are compared in order; the configured string may be written in RFC 4514
 * order (most specific first: `CN=app,O=Example`) or in the certificate's order, as openssl
 * prints it (`O=Example,CN=app`). A value written as `#hex` (RFC 4514 §2.4) matches the
 * attribute's DER encoding exactly.
 */

/** RFC 4514 §3 names, and the others openssl and Node print. */
const TYPE_OIDS: Record<string, string> = {
  cn: '2.5.4.3',
  commonname: '2.5.4.3',
  sn: '2.5.4.4',
  surname: '2.5.4.4',
  serialnumber: '2.5.4.5',
  c: '2.5.4.6',
  countryname: '2.5.4.6',
  l: '2.5.4.7',
  localityname: '2.5.4.7',
  st: '2.5.4.8',
  s: '2.5.4.8',
  stateorprovincename: '2.5.4.8',
  street: '2.5.4.9',
  streetaddress: '2.5.4.9',
  o: '2.5.4.10',
  organizationname: '2.5.4.10',
  ou: '2.5.4.11',
  organizationalunitname: '2.5.4.11',
  title: '2.5.4.12',
  givenname: '2.5.4.42',
  gn: '2.5.4.42',
  initials: '2.5.4.43',
  generationqualifier: '2.5.4.44',
  dnqualifier: '2.5.4.46',
  pseudonym: '2.5.4.65',
  organizationidentifier: '2.5.4.97',
  dc: '0.9.2342.19200300.100.1.25',
  domaincomponent: '0.9.2342.19200300.100.1.25',
  uid: '0.9.2342.19200300.100.1.1',
  userid: '0.9.2342.19200300.100.1.1',
  emailaddress: '1.2.840.113549.1.9.1',
  email: '1.2.840.113549.1.9.1',
  e: '1.2.840.113549.1.9.1',
};

interface Attribute {
  oid: string;
  /** The decoded string, or undefined when the value is not a string type. */
  value: string | undefined;
  /** The DER encoding of the value, for `#hex` values. */
  der: string;
}

type Rdn = Attribute[];

export class DistinguishedNameError extends Error {
  override name = 'DistinguishedNameError';
}

/** Whether the certificate's subject is the RFC 4514 DN `expected`; false for anything unreadable. */
export function subjectMatches(certificate: X509Certificate, expected: string): boolean {
  let subject: Rdn[];
  let wanted: Rdn[];
  try {
    subject = certificateSubject(certificate.raw);
    wanted = parseRfc4514(expected);
  } catch {
    return false;
  }
  if (subject.length === 0 || subject.length !== wanted.length) return false;
  const inCertificateOrder = [...wanted].reverse(); // RFC 4514 §2.1 writes the last RDN first
  return sameRdns(subject, inCertificateOrder) || sameRdns(subject, wanted);
}

function sameRdns(actual: Rdn[], wanted: Rdn[]): boolean {
  return actual.every((rdn, index) => sameRdn(rdn, wanted[index]!));
}

function sameRdn(actual: Rdn, wanted: Rdn): boolean {
  if (actual.length !== wanted.length) return false;
  const remaining = [...actual];
  for (const want of wanted) {
    const at = remaining.findIndex((have) => sameAttribute(have, want));
    if (at === -1) return false;
    remaining.splice(at, 1);
  }
  return true;
}

function sameAttribute(have: Attribute, want: Attribute): boolean {
  if (have.oid !== want.oid) return false;
  if (want.value === undefined) return have.der === want.der;
  return have.value !== undefined && canonicalValue(have.value) === canonicalValue(want.value);
}

const canonicalValue = (value: string): string => value.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();

// ---------------------------------------------------------------------------------------------
// RFC 4514 strings

/** Parses an RFC 4514 string into its RDNs, in the order written. Throws on malformed input. */
export function parseRfc4514(text: string): Rdn[] {
  const rdns: Rdn[] = [];
  let rdn: Rdn = [];
  let i = 0;
  const fail = (why: string): never => {
    throw new DistinguishedNameError(`malformed distinguished name: ${why}`);
  };
  const skipSpaces = (): void => {
    while (text[i] === ' ') i++;
  };
  if (text.trim() === '') fail('empty');
  for (;;) {
    skipSpaces();
    const typeStart = i;
    while (i < text.length && text[i] !== '=' && text[i] !== ',' && text[i] !== '+') i++;
    if (text[i] !== '=') fail('expected type=value');
    const type = text.slice(typeStart, i).trim();
    i++; // '='
    skipSpaces();
    const oid = typeOid(type) ?? fail(`unknown attribute type ${JSON.stringify(type)}`);

    let attribute: Attribute;
    if (text[i] === '#') {
      const hexStart = ++i;
      while (i < text.length && /[0-9A-Fa-f]/.test(text[i]!)) i++;
      const hex = text.slice(hexStart, i).toLowerCase();
      if (hex.length === 0 || hex.length % 2 !== 0) fail('bad #hex value');
      attribute = { oid, value: undefined, der: hex };
    } else {
      const bytes: number[] = [];
      let trailingSpaces = 0;
      while (i < text.length && text[i] !== ',' && text[i] !== '+' && text[i] !== ';') {
        const char = text[i]!;
        if (char === '\\') {
          const next = text[i + 1];
          if (next === undefined) fail('dangling escape');
          if (/[0-9A-Fa-f]/.test(next!) && /[0-9A-Fa-f]/.test(text[i + 2] ?? '')) {
            bytes.push(Number.parseInt(text.slice(i + 1, i + 3), 16));
            i += 3;
          } else {
            bytes.push(...Buffer.from(next!, 'utf8'));
            i += 2;
          }
          trailingSpaces = 0;
        } else {
          const codePoint = text.codePointAt(i)!;
          const encoded = Buffer.from(String.fromCodePoint(codePoint), 'utf8');
          bytes.push(...encoded);
          trailingSpaces = char === ' ' ? trailingSpaces + 1 : 0;
          i += codePoint > 0xffff ? 2 : 1;
        }
      }
      // Unescaped trailing spaces are not part of the value (RFC 4514 §2.4); canonicalValue trims anyway.
      const value = Buffer.from(bytes.slice(0, bytes.length - trailingSpaces)).toString('utf8');
      attribute = { oid, value, der: '' };
    }
    rdn.push(attribute);
    skipSpaces();
    if (i >= text.length) break;
    const separator = text[i++];
    if (separator === ',' || separator === ';') {
      rdns.push(rdn);
      rdn = [];
    } else if (separator !== '+') {
      fail('expected , or +');
    }
  }
  rdns.push(rdn);
  return rdns;
}

function typeOid(type: string): string | undefined {
  if (/^\d+(\.\d+)+$/.test(type)) return type;
  const bare = type.replace(/^oid\./i, '');
  if (/^\d+(\.\d+)+$/.test(bare)) return bare;
  return TYPE_OIDS[type.toLowerCase()];
}

// ---------------------------------------------------------------------------------------------
// The subject of a DER certificate (RFC 5280 §4.1)

interface Tlv {
  tag: number;
  /** The contents. */
  value: Buffer;
  /** The whole element: tag, length and contents. */
  element: Buffer;
}

function readTlv(buffer: Buffer, offset: number): { tlv: Tlv; next: number } {
  const fail = (): never => {
    throw new DistinguishedNameError('malformed certificate');
  };
  if (offset + 2 > buffer.length) fail();
  const tag = buffer[offset]!;
  if ((tag & 0x1f) === 0x1f) fail(); // high tag numbers do not occur in a Name
  let length = buffer[offset + 1]!;
  let start = offset + 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count === 0 || count > 4 || start + count > buffer.length) fail();
    length = 0;
    for (let k = 0; k < count; k++) length = length * 256 + buffer[start + k]!;
    start += count;
  }
  const end = start + length;
  if (end > buffer.length) fail();
  return { tlv: { tag, value: buffer.subarray(start, end), element: buffer.subarray(offset, end) }, next: end };
}

function children(parent: Buffer): Tlv[] {
  const list: Tlv[] = [];
  for (let offset = 0; offset < parent.length; ) {
    const { tlv, next } = readTlv(parent, offset);
    list.push(tlv);
    offset = next;
  }
  return list;
}

const SEQUENCE = 0x30;
const SET = 0x31;

/** The subject's RDNs, in the certificate's order (most significant first). */
export function certificateSubject(der: Buffer): Rdn[] {
  const certificate = readTlv(der, 0).tlv;
  const tbs = children(certificate.value)[0];
  if (certificate.tag !== SEQUENCE || tbs?.tag !== SEQUENCE) throw new DistinguishedNameError('malformed certificate');
  const fields = children(tbs.value);
  // [0] version is optional; then serialNumber, signature, issuer, validity, subject.
  const subject = fields[fields[0]?.tag === 0xa0 ? 5 : 4];
  if (subject?.tag !== SEQUENCE) throw new DistinguishedNameError('malformed certificate');
  return children(subject.value).map((set) => {
    if (set.tag !== SET) throw new DistinguishedNameError('malformed certificate');
    return children(set.value).map((pair) => {
      const [type, value] = children(pair.value);
      if (pair.tag !== SEQUENCE || type?.tag !== 0x06 || !value) throw new DistinguishedNameError('malformed certificate');
      return { oid: decodeOid(type.value), value: decodeString(value), der: value.element.toString('hex') };
    });
  });
}

function decodeOid(bytes: Buffer): string {
  const arcs: number[] = [];
  let arc = 0;
  for (const byte of bytes) {
    arc = arc * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) {
      arcs.push(arc);
      arc = 0;
    }
  }
  const first = arcs.shift() ?? 0;
  const head = first < 80 ? [Math.floor(first / 40), first % 40] : [2, first - 80];
  return [...head, ...arcs].join('.');
}

function decodeString(value: Tlv): string | undefined {
  switch (value.tag) {
    case 0x0c: // UTF8String
      return value.value.toString('utf8');
    case 0x12: // NumericString
    case 0x13: // PrintableString
    case 0x16: // IA5String
    case 0x1a: // VisibleString
      return value.value.toString('ascii');
    case 0x14: // TeletexString, read as Latin-1 as most software does
      return value.value.toString('latin1');
    case 0x1e: // BMPString: UTF-16BE
      return Buffer.from(value.value).swap16().toString('utf16le');
    case 0x1c: {
      // UniversalString: UTF-32BE
      let text = '';
      for (let k = 0; k + 4 <= value.value.length; k += 4) text += String.fromCodePoint(value.value.readUInt32BE(k));
      return text;
    }
    default:
      return undefined;
  }
}
