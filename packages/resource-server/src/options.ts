import type { X509Certificate } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { type DpopReplayStore, MemoryReplayStore } from './dpop-replay.js';

/** Returns the client certificate of a request (RFC 8705), or undefined when it has none. */
export type CertificateOf = (request: FastifyRequest) => X509Certificate | undefined;

/** How the API checks tokens; see docs/resource-server.md. */
export interface ResourceServerOptions {
  /** The realm's issuer, exactly as its tokens say it, e.g. `https://auth.example.com/oauth2/acme`. */
  issuer: string;
  /**
   * The API's resource identifier (RFC 9728 §1.2, RFC 8707): the URL clients name in
   * `resource` when they ask for its tokens, e.g. `https://api.example.com` or
   * `https://api.example.com/orders` (no query, no fragment). Tokens must name it in `aud`
   * (unless `audience` lists others beside it); the metadata document (RFC 9728 §3) names it as
   * `resource`. Required: derived from a request's `Host`, it would be whatever a client sent,
   * and a cache would hand that to everyone.
   */
  resource: string;
  /**
   * The audiences the API answers to: a token must name one of them in `aud`. Default: the
   * `resource`. The list must include it; add the issuer to accept tokens asked for no
   * resource, which realmgate gives the issuer as `aud` (RFC 8707, RFC 8693). An
   * introspection answer without `aud` stands for the issuer.
   */
  audience?: string | readonly string[];
  /**
   * The scopes the metadata document lists as `scopes_supported` (RFC 9728 §2). Default: the
   * scopes the routes require.
   */
  scopes?: readonly string[];
  /**
   * Opaque tokens are introspected (RFC 7662) as this client of the realm, which needs
   * `introspect_any_token` to see tokens issued to other clients. Without it, only JWT
   * access tokens (the realm's `stateless_tokens`) are accepted.
   */
  introspection?: {
    clientId: string;
    clientSecret: string;
    /** How long an answer, active or not, is reused; never past the token's `exp`. Seconds, default 5. */
    cacheTtl?: number;
    /** Answers kept at most (least recently used go first). Default 10,000. */
    cacheSize?: number;
    /**
     * Introspect JWT access tokens too, after their offline check, so that revocation is
     * seen (within `cacheTtl`). Default false: a JWT is valid offline until its `exp`.
     */
    introspectJwts?: boolean;
    /**
     * Ask for signed answers (RFC 9701, `Accept: application/token-introspection+jwt`) and
     * take only a JWT of `typ` `token-introspection+jwt` that the issuer's key set verifies,
     * from the issuer (`iss`) for this client (`aud`); any other answer fails the request
     * (503). Default false: plain JSON over the TLS connection.
     */
    signedResponses?: boolean;
  };
  /**
   * The key set's cache: refetched when older than `maxAge`, or on an unknown `kid` (a key
   * rotated in) unless it was fetched less than `cooldown` ago. Seconds: 600 and 5. Right
   * after a rotation, an API that fetched the set within the cooldown refuses the new key's
   * tokens until the cooldown ends.
   */
  jwks?: { maxAge?: number; cooldown?: number };
  /** Leeway for `exp`, `nbf` and `iat` between the clocks, seconds. Default 5. */
  clockTolerance?: number;
  /** How long a call to the authorization server may take, seconds. Default 5. */
  timeout?: number;
  /**
   * The client certificate, for tokens bound to one (`cnf.x5t#S256`, RFC 8705 §3). Default:
   * the TLS connection's; `certificateFromHeader(name, { trustProxy })` also reads the header
   * that a TLS-terminating proxy at one of the `trustProxy` addresses sets.
   */
  certificate?: CertificateOf;
  /**
   * DPoP-bound tokens (`cnf.jkt`, RFC 9449), sent with the DPoP scheme and a proof:
   * - `replay`: where each proof's `jti` is spent. Default: this process's memory
   *   (MemoryReplayStore), which another process behind the same load balancer does not share.
   * - `origin`: the API's public origin (`https://api.example.com`), which proofs name in `htu`.
   *   Default: the request's protocol and Host header (as Fastify's `trustProxy` reads them).
   * - `clockSkew`: seconds of difference allowed with the client's clock, beyond a proof's 60 s
   *   of life. Default 60.
   */
  dpop?: { replay?: DpopReplayStore; origin?: string; clockSkew?: number };
  /**
   * Transaction tokens (draft-ietf-oauth-transaction-tokens) for the services inside the trust
   * domain: `app.requireTransactionToken()` then verifies the `Txn-Token` header of a request
   * against the issuer's key set and this `trustDomain` (the realm's `transaction_tokens.trust_domain`).
   */
  transactionTokens?: { trustDomain: string };
  /** The `realm` of the `WWW-Authenticate` challenge. Default: the issuer. */
  realm?: string;
  /** Skip discovery for these; by default both come from `{issuer}/.well-known/openid-configuration`. */
  jwksUri?: string;
  introspectionEndpoint?: string;
}

/** The options with their defaults, durations in milliseconds. */
export interface Settings {
  issuer: string;
  /** The configured resource identifier, verbatim, and its parsed form. */
  resource: { identifier: string; url: URL };
  audience: string[];
  scopes: string[] | undefined;
  introspection:
    | { clientId: string; clientSecret: string; cacheTtlMs: number; cacheSize: number; introspectJwts: boolean; signedResponses: boolean }
    | undefined;
  jwksMaxAgeMs: number;
  jwksCooldownMs: number;
  clockToleranceSeconds: number;
  timeoutMs: number;
  realm: string;
  dpop: { replay: DpopReplayStore; origin: string | undefined; clockSkewSeconds: number };
  jwksUri: URL | undefined;
  introspectionEndpoint: URL | undefined;
  trustDomain: string | undefined;
}

/** Checks the options once, at registration, so that a typo fails the start rather than every request. */
export function settingsOf(options: ResourceServerOptions): Settings {
  httpUrl(options.issuer, 'issuer');
  // Compared as a string, exactly (RFC 8414 §3.3, RFC 9068 §4): never normalized.
  const issuer = options.issuer;
  if (options.resource === undefined) {
    throw new TypeError('resource server: resource is required: the URL clients name in `resource` for this API (never derived from a request\'s Host)');
  }
  const resource = resourceIdentifier(options.resource);
  const audience = options.audience === undefined ? [resource.identifier] : typeof options.audience === 'string' ? [options.audience] : [...options.audience];
  if (audience.length === 0 || audience.some((value) => typeof value !== 'string' || value === '')) {
    throw new TypeError('resource server: audience must be a non-empty string or a list of them');
  }
  if (!audience.includes(resource.identifier)) {
    throw new TypeError('resource server: audience must include the resource, which tokens for this API name in aud');
  }
  const scopes: unknown[] | undefined = options.scopes === undefined ? undefined : Array.isArray(options.scopes) ? [...(options.scopes as unknown[])] : [''];
  if (scopes !== undefined && scopes.some((scope) => typeof scope !== 'string' || !SCOPE_TOKEN.test(scope))) {
    throw new TypeError('resource server: scopes must be a list of scope names (RFC 6749 §3.3)');
  }
  const introspection = options.introspection;
  if (introspection && (!nonEmpty(introspection.clientId) || !nonEmpty(introspection.clientSecret))) {
    throw new TypeError('resource server: introspection needs a clientId and a clientSecret');
  }
  return {
    issuer,
    resource,
    audience,
    scopes: scopes as string[] | undefined,
    introspection: introspection && {
      clientId: introspection.clientId,
      clientSecret: introspection.clientSecret,
      cacheTtlMs: milliseconds(introspection.cacheTtl, 5, 'introspection.cacheTtl'),
      cacheSize: count(introspection.cacheSize, 10_000, 'introspection.cacheSize'),
      introspectJwts: introspection.introspectJwts === true,
      signedResponses: introspection.signedResponses === true,
    },
    jwksMaxAgeMs: milliseconds(options.jwks?.maxAge, 600, 'jwks.maxAge'),
    jwksCooldownMs: milliseconds(options.jwks?.cooldown, 5, 'jwks.cooldown', 0),
    clockToleranceSeconds: milliseconds(options.clockTolerance, 5, 'clockTolerance', 0) / 1000,
    timeoutMs: milliseconds(options.timeout, 5, 'timeout'),
    realm: options.realm ?? issuer,
    dpop: dpopSettings(options.dpop),
    jwksUri: options.jwksUri === undefined ? undefined : httpUrl(options.jwksUri, 'jwksUri'),
    introspectionEndpoint: options.introspectionEndpoint === undefined ? undefined : httpUrl(options.introspectionEndpoint, 'introspectionEndpoint'),
    trustDomain: trustDomainOf(options.transactionTokens),
  };
}

function dpopSettings(options: ResourceServerOptions['dpop']): Settings['dpop'] {
  const replay = options?.replay ?? new MemoryReplayStore();
  if (typeof replay.use !== 'function') throw new TypeError('resource server: dpop.replay must have a use(thumbprint, jti, expiresAt) method');
  const origin = options?.origin === undefined ? undefined : httpUrl(options.origin, 'dpop.origin');
  if (origin && origin.pathname !== '/') throw new TypeError('resource server: dpop.origin must be an origin, without a path');
  return { replay, origin: origin?.origin, clockSkewSeconds: milliseconds(options?.clockSkew, 60, 'dpop.clockSkew', 0) / 1000 };
}

function trustDomainOf(options: ResourceServerOptions['transactionTokens']): string | undefined {
  if (options === undefined) return undefined;
  if (!nonEmpty(options.trustDomain)) throw new TypeError('resource server: transactionTokens.trustDomain must be the trust domain the tokens name in aud');
  return options.trustDomain;
}

/** RFC 6749 §3.3: a scope name. */
export const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/**
 * RFC 9728 §1.2: an http(s) URL (https in production) without a fragment; a query is refused
 * too (the RFC advises against one), and so is `*` in the path, which the metadata route cannot hold.
 */
function resourceIdentifier(value: unknown): { identifier: string; url: URL } {
  const url = httpUrl(value, 'resource');
  const identifier = value as string;
  if (identifier.includes('#') || identifier.includes('?') || url.username !== '' || url.password !== '' || url.pathname.includes('*')) {
    throw new TypeError('resource server: resource must be a URL without a query, fragment, user or `*`');
  }
  return { identifier, url };
}

const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value !== '';

function httpUrl(value: unknown, name: string): URL {
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw new TypeError(`resource server: ${name} must be an http or https URL`);
  }
  return url;
}

function milliseconds(seconds: number | undefined, fallback: number, name: string, min = 0.001): number {
  const value = seconds ?? fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
    throw new TypeError(`resource server: ${name} must be a number of seconds${min === 0 ? '' : ' above 0'}`);
  }
  return Math.round(value * 1000);
}

function count(value: number | undefined, fallback: number, name: string): number {
  const n = value ?? fallback;
  if (!Number.isInteger(n) || n < 1) throw new TypeError(`resource server: ${name} must be a positive whole number`);
  return n;
}
