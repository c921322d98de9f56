import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { isSpecialPurposeAddress } from '../../src/http/address-ranges.js';
import { OutboundError, OutboundFetcher, type Resolve } from '../../src/http/outbound-fetch.js';

/**
 * The one outbound fetcher (ARCHITECTURE.md "One outbound fetcher", CONTRACT.md §1
 * OUTBOUND_ALLOW): the SSRF guard on the address connected to, the allow list, and the size,
 * time and redirect limits. The HTTP paths that use it are tested in
 * test/client-auth/private-key-jwt.test.ts (jwks_uri) and test/http/outbound-notification.test.ts.
 */

/** Special-purpose addresses: the first, a middle and the last of each IANA range, and the IPv4 inside IPv6 translations. */
const SPECIAL = [
  ['0.0.0.0/8', '0.0.0.0', '0.1.2.3', '0.255.255.255'],
  ['10.0.0.0/8', '10.0.0.0', '10.20.30.40', '10.255.255.255'],
  ['100.64.0.0/10', '100.64.0.0', '100.100.100.200', '100.127.255.255'],
  ['127.0.0.0/8', '127.0.0.1', '127.1.2.3', '127.255.255.255'],
  ['169.254.0.0/16', '169.254.0.0', '169.254.169.254', '169.254.255.255'],
  ['172.16.0.0/12', '172.16.0.0', '172.20.1.1', '172.31.255.255'],
  ['192.0.0.0/24', '192.0.0.0', '192.0.0.170', '192.0.0.255'],
  ['192.0.2.0/24', '192.0.2.0', '192.0.2.1', '192.0.2.255'],
  ['192.88.99.0/24', '192.88.99.0', '192.88.99.1', '192.88.99.255'],
  ['192.168.0.0/16', '192.168.0.0', '192.168.1.1', '192.168.255.255'],
  ['198.18.0.0/15', '198.18.0.0', '198.18.0.1', '198.19.255.255'],
  ['198.51.100.0/24', '198.51.100.0', '198.51.100.7', '198.51.100.255'],
  ['203.0.113.0/24', '203.0.113.0', '203.0.113.9', '203.0.113.255'],
  ['224.0.0.0/4', '224.0.0.0', '239.255.255.250', '239.255.255.255'],
  ['240.0.0.0/4', '240.0.0.0', '250.1.1.1', '255.255.255.255'],
  ['::/128', '::'],
  ['::1/128', '::1', '0:0:0:0:0:0:0:1'],
  ['::ffff:0:0/96 (loopback, private and metadata inside)', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:a9fe:a9fe'],
  ['64:ff9b::/96 (NAT64 of internal addresses)', '64:ff9b::127.0.0.1', '64:ff9b::a00:1', '64:ff9b::c0a8:101', '64:ff9b::198.18.0.1'],
  ['2002::/16 (6to4 of internal addresses)', '2002:7f00:1::', '2002:7f00:1::1', '2002:a9fe:a9fe::1', '2002:c0a8:101:1::1', '2002:c612:1::'],
  ['2001::/32 (Teredo)', '2001::', '2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001:0:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['fc00::/7', 'fc00::', 'fd12:3456:789a::1', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['fe80::/10', 'fe80::', 'fe80::1', 'fe80::1%eth0', 'febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['ff00::/8', 'ff00::', 'ff02::1', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['100::/64', '100::', '100::1', '100::ffff:ffff:ffff:ffff'],
  ['2001:db8::/32', '2001:db8::', '2001:db8::1', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff'],
] as const;

/** Their public neighbours, and public addresses inside the IPv6 translations. */
const PUBLIC = [
  '1.1.1.1',
  '8.8.8.8',
  '93.184.215.14',
  '100.63.255.255',
  '100.128.0.0',
  '172.15.255.255',
  '172.32.0.0',
  '192.0.1.255',
  '192.0.3.0',
  '198.17.255.255',
  '198.20.0.0',
  '223.255.255.255',
  '2606:4700:4700::1111',
  '2a00:1450:4001:81c::200e',
  '::ffff:8.8.8.8',
  '64:ff9b::808:808',
  '2002:808:808::1',
  '2001:4860:4860::8888',
];

/** A plain HTTP server on loopback that records what reaches it. */
class TargetServer {
  readonly paths: string[] = [];
  readonly routes = new Map<string, (request: IncomingMessage, response: ServerResponse) => void>();
  private server!: Server;
  port = 0;

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      this.paths.push(request.url ?? '/');
      const route = this.routes.get(request.url ?? '/');
      if (route) route(request, response);
      else response.writeHead(200, { 'content-type': 'text/plain' }).end('reached');
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  url(host: string, path: string): string {
    return `http://${host}:${this.port}${path}`;
  }

  reached(path: string): boolean {
    return this.paths.includes(path);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

/** A resolver that answers from a table; each name's answers are taken in turn, the last one repeated. */
function resolverOf(table: Record<string, string[][]>): Resolve & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (hostname: string) => {
    calls.push(hostname);
    const answers = table[hostname];
    if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    const seen = calls.filter((name) => name === hostname).length;
    const addresses = answers[Math.min(seen, answers.length) - 1]!;
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolve, { calls });
}

async function failure(promise: Promise<unknown>): Promise<OutboundError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(OutboundError);
  return error as OutboundError;
}

const LIMITS = { timeoutMs: 2_000, maxBytes: 1024 };

describe('the special-purpose address ranges (IANA IPv4 and IPv6 registries)', () => {
  for (const [range, ...addresses] of SPECIAL) {
    it(`refuses ${range}`, () => {
      for (const address of addresses) expect(isSpecialPurposeAddress(address), address).toBe(true);
    });
  }

  it('lets public addresses through, public IPv4 inside IPv6 translations included', () => {
    for (const address of PUBLIC) expect(isSpecialPurposeAddress(address), address).toBe(false);
  });

  it('treats what is not an address as special', () => {
    for (const text of ['', 'localhost', '1.2.3.4.5', '::g', '10.0.0.0/8']) expect(isSpecialPurposeAddress(text), text).toBe(true);
  });
});

describe('the outbound fetcher', () => {
  const target = new TargetServer();

  beforeAll(() => target.start());
  afterAll(() => target.stop());

  describe('the SSRF guard', () => {
    it('refuses literal special-purpose addresses before connecting', async () => {
      const fetcher = new OutboundFetcher();
      for (const host of ['127.0.0.1', '[::1]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[2002:7f00:1::]', '[64:ff9b::7f00:1]', '10.0.0.1', '169.254.169.254', '198.18.0.1', '192.0.0.8', '0x7f.1']) {
        const error = await failure(fetcher.fetch(target.url(host, '/literal'), LIMITS));
        expect(error.failure, host).toBe('refused_address');
      }
      expect(target.reached('/literal')).toBe(false);
    });

    it('refuses a host name that resolves to loopback, at connect time', async () => {
      const resolve = resolverOf({ 'keys.example': [['127.0.0.1']] });
      const error = await failure(new OutboundFetcher({ resolve }).fetch(target.url('keys.example', '/named'), LIMITS));
      expect(error.failure).toBe('refused_address');
      expect(resolve.calls).toEqual(['keys.example']);
      // The system's resolver, too.
      expect((await failure(new OutboundFetcher().fetch(target.url('localhost', '/named'), LIMITS))).failure).toBe('refused_address');
      expect(target.reached('/named')).toBe(false);
    });

    it('refuses a name when any of its addresses is special-purpose', async () => {
      const resolve = resolverOf({ 'mixed.example': [['93.184.215.14', '127.0.0.1']], 'mapped.example': [['::ffff:127.0.0.1']] });
      const fetcher = new OutboundFetcher({ resolve });
      expect((await failure(fetcher.fetch(target.url('mixed.example', '/mixed'), LIMITS))).failure).toBe('refused_address');
      expect((await failure(fetcher.fetch(target.url('mapped.example', '/mixed'), LIMITS))).failure).toBe('refused_address');
      expect(target.reached('/mixed')).toBe(false);
    });

    it('judges the answer it connects to, so a name that rebinds to loopback after a check gains nothing', async () => {
      // First answer public (what a check at registration sees), every later answer loopback.
      const resolve = resolverOf({ 'rebind.example': [['93.184.215.14'], ['127.0.0.1']] });
      const checked = await resolve('rebind.example');
      expect(checked.every(({ address }) => !isSpecialPurposeAddress(address))).toBe(true);

      const fetcher = new OutboundFetcher({ resolve });
      const error = await failure(fetcher.fetch(target.url('rebind.example', '/rebind'), LIMITS));
      expect(error.failure).toBe('refused_address');
      expect(resolve.calls).toEqual(['rebind.example', 'rebind.example']);
      expect(target.reached('/rebind')).toBe(false);
    });

    it('names no URL in its errors', async () => {
      const error = await failure(new OutboundFetcher().fetch(target.url('127.0.0.1', '/hook?key=receiver-secret'), LIMITS));
      expect(error.message).not.toContain('receiver-secret');
      expect(error.message).not.toContain('/hook');
    });
  });

  describe('OUTBOUND_ALLOW', () => {
    it('lets an allowed address, range or host name be reached', async () => {
      const resolve = resolverOf({ 'keys.internal': [['127.0.0.1']], 'other.internal': [['127.0.0.1']] });
      const byAddress = await new OutboundFetcher({ allow: ['127.0.0.1'] }).fetch(target.url('127.0.0.1', '/allowed-address'), LIMITS);
      expect(byAddress).toMatchObject({ status: 200 });
      expect(byAddress.body.toString()).toBe('reached');

      const byRange = new OutboundFetcher({ allow: ['10.0.0.0/8', '127.0.0.0/8'], resolve });
      expect((await byRange.fetch(target.url('keys.internal', '/allowed-range'), LIMITS)).status).toBe(200);
      // An IPv4-mapped spelling of an allowed address is the same address.
      expect((await byRange.fetch(target.url('[::ffff:127.0.0.1]', '/allowed-range'), LIMITS)).status).toBe(200);

      const byName = new OutboundFetcher({ allow: ['Keys.Internal.'], resolve });
      expect((await byName.fetch(target.url('keys.internal', '/allowed-name'), LIMITS)).status).toBe(200);
      // Only that name: another one resolving to the same address is still refused.
      expect((await failure(byName.fetch(target.url('other.internal', '/allowed-name'), LIMITS))).failure).toBe('refused_address');
      expect(target.paths.filter((path) => path === '/allowed-name')).toHaveLength(1);
    });

    it('lends no connection to another fetcher: each connection is judged for its own request', async () => {
      const resolve = resolverOf({ 'keys.internal': [['127.0.0.1']] });
      const allowing = new OutboundFetcher({ allow: ['keys.internal'], resolve });
      expect((await allowing.fetch(target.url('keys.internal', '/pooled'), LIMITS)).status).toBe(200);
      const guarded = new OutboundFetcher({ resolve });
      expect((await failure(guarded.fetch(target.url('keys.internal', '/pooled'), LIMITS))).failure).toBe('refused_address');
      expect(target.paths.filter((path) => path === '/pooled')).toHaveLength(1);
    });

    it('allows only what it lists', async () => {
      const fetcher = new OutboundFetcher({ allow: ['10.0.0.0/8'] });
      expect((await failure(fetcher.fetch(target.url('127.0.0.1', '/not-listed'), LIMITS))).failure).toBe('refused_address');
      expect(target.reached('/not-listed')).toBe(false);
    });

    it('is read from the environment: comma-separated ranges, addresses and host names; anything else is refused at start', () => {
      expect(loadConfig({}).outboundAllow).toEqual([]);
      expect(loadConfig({ OUTBOUND_ALLOW: ' 10.0.0.0/8, 127.0.0.1 ,keys.internal,fd00::/8,' }).outboundAllow).toEqual([
        '10.0.0.0/8',
        '127.0.0.1',
        'keys.internal',
        'fd00::/8',
      ]);
      for (const bad of ['10.0.0.0/33', '10.0.0.0/x', 'not a host', 'https://keys.internal/']) {
        expect(() => loadConfig({ OUTBOUND_ALLOW: bad }), bad).toThrow(/OUTBOUND_ALLOW/);
      }
    });
  });

  describe('limits', () => {
    const allowed = new OutboundFetcher({ allow: ['127.0.0.1'] });
    const big = 'x'.repeat(4096);

    it('refuses a body larger than the limit, declared or streamed, without reading it all', async () => {
      target.routes.set('/big', (_request, response) => response.writeHead(200, { 'content-length': big.length }).end(big));
      target.routes.set('/big-chunked', (_request, response) => {
        response.writeHead(200);
        for (let offset = 0; offset < big.length; offset += 512) response.write(big.slice(offset, offset + 512));
        response.end();
      });
      for (const path of ['/big', '/big-chunked']) {
        expect((await failure(allowed.fetch(target.url('127.0.0.1', path), { timeoutMs: 2_000, maxBytes: 1024 }))).failure, path).toBe('too_large');
      }
      expect((await allowed.fetch(target.url('127.0.0.1', '/big'), { timeoutMs: 2_000, maxBytes: big.length })).body.length).toBe(big.length);
    });

    it('abandons a request that does not complete within the time limit, headers or body', async () => {
      target.routes.set('/silent', () => {}); // never answers
      target.routes.set('/stalled-body', (_request, response) => {
        response.writeHead(200);
        response.write('{"keys":['); // and never ends
      });
      for (const path of ['/silent', '/stalled-body']) {
        const started = Date.now();
        expect((await failure(allowed.fetch(target.url('127.0.0.1', path), { timeoutMs: 200, maxBytes: 1024 }))).failure, path).toBe('timeout');
        expect(Date.now() - started).toBeLessThan(1_500);
      }
    });

    it('never follows a redirect: the 3xx is the answer', async () => {
      target.routes.set('/redirect', (_request, response) => response.writeHead(302, { location: '/redirect-target' }).end());
      const response = await allowed.fetch(target.url('127.0.0.1', '/redirect'), LIMITS);
      expect(response.status).toBe(302);
      expect(target.reached('/redirect-target')).toBe(false);
    });

    it('refuses http where the caller asks for https only, and schemes other than http(s)', async () => {
      expect((await failure(allowed.fetch(target.url('127.0.0.1', '/plain'), { ...LIMITS, httpsOnly: true }))).failure).toBe('scheme');
      expect((await failure(allowed.fetch('file:///etc/passwd', LIMITS))).failure).toBe('scheme');
      expect((await failure(allowed.fetch('not a url', LIMITS))).failure).toBe('invalid_url');
      expect(target.reached('/plain')).toBe(false);
    });

    it('sends the method, headers and body asked for', async () => {
      let received: { method?: string; type?: string; body: string } | undefined;
      target.routes.set('/post', (request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          received = { method: request.method, type: request.headers['content-type'], body: Buffer.concat(chunks).toString() };
          response.writeHead(204).end();
        });
      });
      const response = await allowed.fetch(target.url('127.0.0.1', '/post'), {
        ...LIMITS,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"é":1}',
      });
      expect(response.status).toBe(204);
      expect(received).toEqual({ method: 'POST', type: 'application/json', body: '{"é":1}' });
    });
  });
});
