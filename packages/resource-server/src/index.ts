import type { FastifyPluginAsync, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { accessTokenOf, looksLikeJwt } from './bearer-token.js';
import { checkCertificateBinding, tlsClientCertificate } from './certificate.js';
import { type AccessTokenClaims, requireScopes } from './claims.js';
import { checkDpopBinding } from './dpop.js';
import { AuthorizationServerUnavailable, BearerError, sendBearerError, sendUnavailable } from './errors.js';
import { Introspector } from './introspection.js';
import { JwtVerifier } from './jwt.js';
import { endpointResolver } from './metadata.js';
import { type ResourceServerOptions, SCOPE_TOKEN, settingsOf } from './options.js';
import { metadataUrlOf, resourceOf, serveMetadata } from './protected-resource.js';
import { type TransactionTokenClaims, TransactionTokenError, sendTransactionTokenError, verifyTransactionToken } from './transaction-token.js';

export { type AccessTokenClaims, type AuthorizationDetail, authorizationDetailsOf } from './claims.js';
export type { TransactionTokenClaims } from './transaction-token.js';
export type { CertificateOf, ResourceServerOptions } from './options.js';
export { type DpopReplayStore, MemoryReplayStore } from './dpop-replay.js';
export { certificateFromHeader, tlsClientCertificate } from './certificate.js';
export type { CertificateHeaderOptions } from './certificate.js';

/** What a route asks of its callers' tokens. */
export interface TokenRequirement {
  /** Scopes the token must all have: one name, several separated by spaces, or a list. */
  scope?: string | readonly string[];
}

/** A hook that lets a request through only with a valid token; for `onRequest` (before the body is read) or `preHandler`. */
export type TokenHook = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>;

declare module 'fastify' {
  interface FastifyInstance {
    /** A hook that requires a valid access token, with these scopes, and sets `request.token`. */
    requireToken(requirement?: TokenRequirement): TokenHook;
    /**
     * A hook that requires a valid transaction token in the `Txn-Token` header (the
     * `transactionTokens` option), whose purpose holds these scopes, and sets `request.transaction`.
     */
    requireTransactionToken(requirement?: TokenRequirement): TokenHook;
  }
  interface FastifyRequest {
    /** The verified token's claims, on the routes that require a token; null elsewhere. */
    token: AccessTokenClaims;
    /** The verified transaction token's claims, on the routes that require one; null elsewhere. */
    transaction: TransactionTokenClaims;
  }
  interface FastifyContextConfig {
    /** `true`, or the scopes: the route requires a token as `app.requireToken(…)` would, on `onRequest`. */
    requireToken?: true | TokenRequirement;
  }
}

function scopesOf(requirement: TokenRequirement | undefined): string[] {
  const scope = requirement?.scope;
  const scopes = scope === undefined ? [] : typeof scope === 'string' ? scope.split(' ').filter(Boolean) : [...scope];
  for (const name of scopes) {
    if (typeof name !== 'string' || !SCOPE_TOKEN.test(name)) throw new TypeError(`resource server: ${JSON.stringify(name)} is not a scope name (RFC 6749 §3.3)`);
  }
  return scopes;
}

/**
 * The resource-server side of realmgate: Fastify routes that need an access token of a
 * realm. JWT access tokens are verified offline with the realm's key set; opaque tokens are
 * introspected; DPoP-bound ones need a proof of their key (RFC 9449). The API describes itself
 * at `/.well-known/oauth-protected-resource` (RFC 9728). See docs/resource-server.md.
 *
 * ```js
 * await app.register(resourceServer, { issuer: 'https://auth.example.com/oauth2/acme', resource: 'https://api.example.com' });
 * app.get('/orders', { onRequest: app.requireToken({ scope: 'orders:read' }) }, (request) => list(request.token.sub));
 * ```
 */
const plugin: FastifyPluginAsync<ResourceServerOptions> = async (app, options) => {
  const settings = settingsOf(options);
  const endpoints = endpointResolver(settings);
  const jwts = new JwtVerifier(settings, endpoints);
  const introspector = settings.introspection && new Introspector(settings, settings.introspection, endpoints, () => jwts.keySet());
  const certificateOf = options.certificate ?? tlsClientCertificate;
  /** The scopes the routes require, which the metadata document lists unless `scopes` is given. */
  const routeScopes = new Set<string>();

  async function verify(request: FastifyRequest, presented: ReturnType<typeof accessTokenOf>): Promise<AccessTokenClaims> {
    if (presented === undefined) throw new BearerError(undefined, 'an access token is required');
    const { token } = presented;
    let claims: AccessTokenClaims;
    if (looksLikeJwt(token)) {
      claims = await jwts.verify(token);
      // Only introspection sees a revoked JWT; checked offline first, a forged one costs the authorization server nothing.
      if (introspector && settings.introspection?.introspectJwts) await introspector.introspect(token);
    } else if (introspector) {
      claims = await introspector.introspect(token);
    } else {
      throw new BearerError('invalid_token', 'the token is not a JWT access token, and this API does not introspect others');
    }
    checkCertificateBinding(claims, request, certificateOf);
    await checkDpopBinding(claims, request, presented, settings);
    return claims;
  }

  function requireToken(requirement?: TokenRequirement): TokenHook {
    const scopes = scopesOf(requirement);
    for (const scope of scopes) routeScopes.add(scope);
    return async (request, reply) => {
      let scheme: 'Bearer' | 'DPoP' = 'Bearer';
      try {
        const presented = accessTokenOf(request);
        scheme = presented?.scheme ?? 'Bearer';
        const claims = await verify(request, presented);
        requireScopes(claims, scopes);
        request.token = claims;
        return undefined;
      } catch (error) {
        if (error instanceof BearerError) {
          // A refusal of a token sent with the DPoP scheme challenges with that scheme (RFC 9449 §7.1).
          const answered = error.code !== undefined && scheme === 'DPoP' && error.scheme === 'Bearer' ? new BearerError(error.code, error.message, error.scope, scheme) : error;
          return sendBearerError(reply, settings.realm, answered, metadataUrlOf(resourceOf(settings)));
        }
        if (error instanceof AuthorizationServerUnavailable) {
          request.log.warn({ reason: error.message }, 'resource server: the authorization server could not be reached');
          return sendUnavailable(reply);
        }
        throw error;
      }
    };
  }

  /** draft-ietf-oauth-transaction-tokens §10.2, for services inside the trust domain (./transaction-token.ts). */
  function requireTransactionToken(requirement?: TokenRequirement): TokenHook {
    const { trustDomain } = settings;
    if (trustDomain === undefined) throw new TypeError('resource server: requireTransactionToken needs the transactionTokens option (the trust domain)');
    const purpose = scopesOf(requirement);
    return async (request, reply) => {
      try {
        request.transaction = await verifyTransactionToken(request, settings, trustDomain, () => jwts.keySet(), purpose);
        return undefined;
      } catch (error) {
        if (error instanceof TransactionTokenError) return sendTransactionTokenError(reply, error);
        if (error instanceof AuthorizationServerUnavailable) {
          request.log.warn({ reason: error.message }, 'resource server: the authorization server could not be reached');
          return sendUnavailable(reply);
        }
        throw error;
      }
    };
  }

  serveMetadata(app, settings, routeScopes);
  app.decorateRequest('token', null as unknown as AccessTokenClaims);
  app.decorateRequest('transaction', null as unknown as TransactionTokenClaims);
  app.decorate('requireToken', requireToken);
  app.decorate('requireTransactionToken', requireTransactionToken);
  // Routes that say `config: { requireToken: … }` get the hook first of their onRequest hooks.
  app.addHook('onRoute', (route) => {
    const requirement: unknown = route.config?.requireToken;
    if (!requirement) return;
    const hook = requireToken(requirement === true ? {} : (requirement as TokenRequirement)) as onRequestHookHandler;
    const existing = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
    route.onRequest = [hook, ...existing];
  });
};

export const resourceServer = fp(plugin, { name: 'realmgate-resource-server', fastify: '5.x' });
export default resourceServer;
