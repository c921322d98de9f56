import type { FastifyPluginAsync } from 'fastify';
import type { AuditLog } from '../audit/audit-log.js';
import type { ClientAuthenticator } from '../client-auth/authenticate.js';
import type { ClientJwks } from '../client-auth/client-jwks.js';
import { DpopNonces } from '../dpop/nonces.js';
import { DpopProofs } from '../dpop/proofs.js';
import type { GrantRegistry } from '../grants/grant-handler.js';
import type { Metrics } from '../http/metrics.js';
import type { OutboundFetcher } from '../http/outbound-fetch.js';
import type { ClientCertificateOf } from '../http/client-certificate.js';
import type { RateLimits } from '../rate-limits/rate-limits.js';
import { belowIssuerPath } from '../realms/issuer-paths.js';
import { resolveRealmFromPath } from '../realms/resolve.js';
import type { Store } from '../store/index.js';
import type { JwtAccessTokenVerifier } from '../tokens/jwt-access-token.js';
import type { KeyEncryption } from '../tokens/key-encryption.js';
import type { ScopeClaims } from '../tokens/scope-claims.js';
import type { RealmSigner } from '../tokens/signer.js';
import type { Subjects } from '../tokens/subject.js';
import type { SectorIdentifierFetcher } from '../clients/sector-identifier.js';
import { backchannelAuthenticationEndpoint } from './backchannel-authentication.js';
import { type ServerCapabilities, discoveryEndpoint } from './discovery.js';
import { deviceAuthorizationEndpoint } from './device-authorization.js';
import { introspectionEndpoint } from './introspect.js';
import { jwksEndpoint } from './jwks.js';
import { parEndpoint } from './par.js';
import { clientRegistrationEndpoint } from './client-registration.js';
import { revocationEndpoint } from './revoke.js';
import { tokenEndpoint } from './token.js';
import { userinfoEndpoint } from './userinfo.js';

export interface EndpointDeps {
  store: Store;
  encryption: KeyEncryption;
  authenticator: ClientAuthenticator;
  baseUrl: string;
  grants: GrantRegistry;
  /** The request's client certificate (src/http/client-certificate.ts), for certificate-bound tokens. */
  clientCertificate: ClientCertificateOf;
  /** Clients' key sets (`jwks` or `jwks_uri`), for the JWTs they sign. */
  clientJwks: ClientJwks;
  /** Reads back this server's stateless access tokens. */
  jwtAccessTokens: JwtAccessTokenVerifier;
  /** Signs with the realm's keys what the endpoints answer as JWTs (introspection, RFC 9701). */
  signer: RealmSigner;
  /** The claims that tokens' scopes map about their person (CONTRACT.md §10). */
  scopeClaims: ScopeClaims;
  capabilities: ServerCapabilities;
  rateLimits: RateLimits;
  /** The `sub` each client sees of a person (OpenID Connect Core §8). */
  subjects: Subjects;
  /** Checks the `sector_identifier_uri` a registration sets. */
  sectorIdentifiers: SectorIdentifierFetcher;
  /** Every fetch of a URL that a client or an admin supplied (SSRF guard, OUTBOUND_ALLOW). */
  outbound: OutboundFetcher;
  metrics: Metrics;
  audit: AuditLog;
}

/**
 * Every JSON protocol endpoint of a realm, below its issuer path (src/realms/issuer-paths.ts);
 * the browser wing's routes stand beside them (src/web/pages.ts).
 */
export function realmEndpoints(deps: EndpointDeps): FastifyPluginAsync {
  const { store } = deps;
  const { jwtAccessTokens, rateLimits, scopeClaims } = deps;
  // Nonces derive from MASTER_KEY, so that every instance makes and accepts the same ones (src/dpop/nonces.ts).
  const dpop = new DpopProofs({ spent: store.spentAssertions, nonces: new DpopNonces(deps.encryption.deriveKey('dpop nonces')) });
  return async (app) => {
    await belowIssuerPath(app, { realms: store.realms, baseUrl: deps.baseUrl, rateLimits });

    await app.register(discoveryEndpoint({ scopes: store.scopes, capabilities: deps.capabilities }, '/.well-known/openid-configuration'));
    await app.register(jwksEndpoint({ signingKeys: store.signingKeys }));
    await app.register(tokenEndpoint({ metrics: deps.metrics, grants: deps.grants, authenticator: deps.authenticator, clientCertificate: deps.clientCertificate, rateLimits, dpop, resources: store.resources, audit: deps.audit }));
    await app.register(introspectionEndpoint({ authenticator: deps.authenticator, tokens: store.tokens, users: store.users, jwtAccessTokens, scopeClaims, signer: deps.signer, clients: store.clients, subjects: deps.subjects }));
    await app.register(revocationEndpoint({ authenticator: deps.authenticator, tokens: store.tokens, jwtAccessTokens, audit: deps.audit }));
    await app.register(userinfoEndpoint({ tokens: store.tokens, users: store.users, jwtAccessTokens, clientCertificate: deps.clientCertificate, scopeClaims, dpop, clients: store.clients, subjects: deps.subjects }));
    await app.register(parEndpoint({ store, authenticator: deps.authenticator, clientJwks: deps.clientJwks, rateLimits, dpop }));
    await app.register(backchannelAuthenticationEndpoint({ outbound: deps.outbound, store, encryption: deps.encryption, authenticator: deps.authenticator, clientJwks: deps.clientJwks, rateLimits }));
    await app.register(deviceAuthorizationEndpoint({ authenticator: deps.authenticator, pendingAuthorizations: store.pendingAuthorizations, rateLimits }));
    await app.register(clientRegistrationEndpoint({ outbound: deps.outbound, store, capabilities: deps.capabilities, rateLimits, sectorIdentifiers: deps.sectorIdentifiers, audit: deps.audit }));
  };
}

/** RFC 8414 §3: `{BASE_URL}/.well-known/oauth-authorization-server/oauth2[/realm]`. */
export function wellKnownMetadata(deps: EndpointDeps): FastifyPluginAsync {
  return async (app) => {
    resolveRealmFromPath(app, deps.store.realms, deps.baseUrl, 'endpoints');
    await app.register(discoveryEndpoint({ scopes: deps.store.scopes, capabilities: deps.capabilities }, '/'));
  };
}
