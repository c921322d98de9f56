import { promises as dns } from 'node:dns';
import { type Agent as HttpAgent, type IncomingHttpHeaders, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { type LookupFunction, isIP } from 'node:net';
import { OutboundAllowList, isSpecialPurposeAddress } from './address-ranges.js';
import { spendOutboundBudget } from './outbound-budget.js';
import { type OutboundSlots, PROCESS_OUTBOUND_SLOTS } from './outbound-slots.js';

/** Name resolution: every address the name has. */
export type Resolve = (hostname: string) => Promise<ReadonlyArray<{ address: string; family: number }>>;

export interface OutboundFetcherOptions {
  /** `OUTBOUND_ALLOW`: CIDR ranges, addresses or host names reachable despite the guard. */
  allow?: readonly string[];
  /** Tests pass their own resolver; the default is the system's (dns.lookup). */
  resolve?: Resolve;
  /** The bound on fetches in flight; the default is the one of this process, shared by every fetcher. */
  slots?: OutboundSlots;
}

export interface OutboundRequest {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** The whole exchange (resolution, connection, headers and body) must end within this. */
  timeoutMs: number;
  /** A larger body is refused while it streams in. */
  maxBytes: number;
  /** Refuse `http:` URLs. */
  httpsOnly?: boolean;
  /** Tests pass an HTTPS agent that trusts their certificate authority. */
  agent?: HttpAgent;
  /**
   * A delivery this server owes (a CIBA notification), not a fetch that the request being
   * handled asks for: it spends nothing of that request's rate limit (src/http/outbound-budget.ts).
   */
  uncounted?: boolean;
}

export interface OutboundResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export type OutboundFailure = 'invalid_url' | 'scheme' | 'refused_address' | 'not_found' | 'timeout' | 'too_large' | 'network';

/** Why a fetch failed. The message never quotes the URL, whose path or query may hold a credential. */
export class OutboundError extends Error {
  override name = 'OutboundError';
  constructor(
    readonly failure: OutboundFailure,
    message: string,
  ) {
    super(message);
  }
}

/** Names that only ever lead inside (RFC 6761 `localhost`, RFC 6762 `local`, RFC 9476-style `internal`). */
const RESERVED_NAME = /(^|\.)(localhost|internal|local)$/i;

const systemResolve: Resolve = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

/**
 * The one way this server calls a URL that a client or an admin supplied (jwks_uri,
 * notification endpoints…). The guard against server-side request forgery judges the
 * address actually connected to: it is the `lookup` of the connection, so a name that
 * resolves elsewhere between a check and the connection (DNS rebinding) gains nothing;
 * literal addresses are judged before connecting. Redirects are never followed (a 3xx is
 * the caller's answer), the whole exchange has a deadline, and the body a size cap.
 *
 * A fetch that a request causes is first counted under that request's rate limit (src/http/outbound-budget.ts),
 * and then waits for one of the instance's slots (src/http/outbound-slots.ts): a refused request fetches
 * nothing, and no number of requests opens more than a few connections at once.
 */
export class OutboundFetcher {
  private readonly allow: OutboundAllowList;
  private readonly resolve: Resolve;
  private readonly slots: OutboundSlots;

  constructor(options: OutboundFetcherOptions = {}) {
    this.allow = new OutboundAllowList(options.allow);
    this.resolve = options.resolve ?? systemResolve;
    this.slots = options.slots ?? PROCESS_OUTBOUND_SLOTS;
  }

  /** Whether the guard lets a connection reach `address`. */
  permits(address: string): boolean {
    return this.allow.allowsAddress(address) || !isSpecialPurposeAddress(address);
  }

  /**
   * Whether a fetch of `url` would get past the guard, as far as its name resolves now: for a
   * clear refusal when a URL is registered. The connection is judged again when it is made.
   */
  async admits(url: URL): Promise<'admitted' | 'refused' | 'unresolved'> {
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (this.allow.allowsHost(host)) return 'admitted';
    if (isIP(host) !== 0) return this.permits(host) ? 'admitted' : 'refused';
    if (RESERVED_NAME.test(host.replace(/\.$/, ''))) return 'refused';
    let answers: ReadonlyArray<{ address: string }>;
    try {
      answers = await this.resolve(host);
    } catch {
      return 'unresolved';
    }
    if (answers.length === 0) return 'unresolved';
    return answers.every((answer) => this.permits(answer.address)) ? 'admitted' : 'refused';
  }

  fetch(url: string, request: OutboundRequest): Promise<OutboundResponse> {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return Promise.reject(new OutboundError('invalid_url', 'not a URL'));
    }
    if (target.protocol !== 'https:' && (request.httpsOnly || target.protocol !== 'http:')) {
      return Promise.reject(new OutboundError('scheme', request.httpsOnly ? 'not an https URL' : 'not an http(s) URL'));
    }
    const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
    const allowedHost = this.allow.allowsHost(host);
    if (!allowedHost && isIP(host) !== 0 && !this.permits(host)) {
      return Promise.reject(refusedAddress());
    }
    return this.counted(target, request, this.lookup(allowedHost));
  }

  private async counted(target: URL, request: OutboundRequest, lookup: LookupFunction): Promise<OutboundResponse> {
    if (!request.uncounted) await spendOutboundBudget();
    const giveBack = await this.slots.take();
    try {
      return await this.exchange(target, request, lookup);
    } finally {
      giveBack();
    }
  }

  /** The connection's name resolution: every answer must be permitted (unless the host is allowed), else none is used. */
  private lookup(allowedHost: boolean): LookupFunction {
    return (hostname, options, callback) => {
      const answered = (error: NodeJS.ErrnoException | null, addresses: Array<{ address: string; family: number }> = []): void => {
        if (error) callback(error, '', 0);
        else if (options.all) callback(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      };
      this.resolve(hostname).then(
        (answers) => {
          const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
          const usable = answers.filter((answer) => !family || answer.family === family);
          if (!allowedHost && answers.some((answer) => !this.permits(answer.address))) answered(refusedAddress());
          else if (usable.length === 0) answered(new OutboundError('not_found', 'the host name has no address'));
          else answered(null, usable.map(({ address, family }) => ({ address, family })));
        },
        () => answered(new OutboundError('not_found', 'the host name does not resolve')),
      );
    };
  }

  private exchange(target: URL, request: OutboundRequest, lookup: LookupFunction): Promise<OutboundResponse> {
    const { timeoutMs, maxBytes } = request;
    return new Promise((resolve, reject) => {
      let settled = false;
      const settle = (error: Error | undefined, response?: OutboundResponse): void => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        if (error) {
          outgoing.destroy();
          reject(error instanceof OutboundError ? error : networkError(error));
        } else resolve(response!);
      };
      const headers = { ...request.headers, ...(request.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(request.body)) }) };
      const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
      const outgoing = send(target, {
        method: request.method ?? 'GET',
        headers,
        lookup,
        // No pooled connection: each one is made, and its address judged, for this request.
        agent: request.agent ?? false,
      });
      const deadline = setTimeout(() => settle(new OutboundError('timeout', `no complete answer within ${timeoutMs} ms`)), timeoutMs);
      outgoing.on('error', (error) => settle(error));
      outgoing.on('response', (response) => {
        response.on('error', (error) => settle(error));
        response.on('aborted', () => settle(new OutboundError('network', 'the response was cut off')));
        const declared = Number(response.headers['content-length']);
        if (Number.isFinite(declared) && declared > maxBytes) {
          settle(new OutboundError('too_large', `larger than ${maxBytes} bytes`));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) settle(new OutboundError('too_large', `larger than ${maxBytes} bytes`));
          else chunks.push(chunk);
        });
        response.on('end', () => settle(undefined, { status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
      });
      outgoing.end(request.body);
    });
  }
}

const refusedAddress = (): OutboundError =>
  new OutboundError('refused_address', 'the address is loopback, private, link-local or otherwise special-purpose (OUTBOUND_ALLOW lets operators reach it)');

/** A socket or TLS error by its code (ECONNREFUSED, CERT_HAS_EXPIRED…): its message may name the host. */
function networkError(error: Error): OutboundError {
  const code = (error as NodeJS.ErrnoException).code;
  return new OutboundError('network', typeof code === 'string' ? code : error.name);
}
