import formBody from '@fastify/formbody';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ClientAuthenticator } from '../client-auth/authenticate.js';
import type { ClientJwks } from '../client-auth/client-jwks.js';
import { DpopNonces } from '../dpop/nonces.js';
import { DpopProofs } from '../dpop/proofs.js';
import type { GrantRegistry } from '../grants/grant-handler.js';
import type { Mailer } from '../mail/mailer.js';
import type { ClientDirectory } from '../clients/metadata-document-clients.js';
import type { Metrics } from '../http/metrics.js';
import type { OutboundFetcher } from '../http/outbound-fetch.js';
import type { ClientCertificateOf } from '../http/client-certificate.js';
import { withOutboundSpend } from '../http/outbound-budget.js';
import type { AddressPage, RateLimits } from '../rate-limits/rate-limits.js';
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
import { browserPages } from '../web/pages.js';
import type { PasswordHashing } from '../authn/password-hashing.js';
import { parEndpoint } from './par.js';
import { clientRegistrationEndpoint } from './client-registration.js';
import { revocationEndpoint } from './revoke.js';
import { tokenEndpoint } from './token.js';
import { userinfoEndpoint } from './userinfo.js';

const LIMITED_PAGES: ReadonlyArray<readonly [path: string, page: AddressPage]> = [
  ['/login', 'sign_in'],
  ['/device/user', 'device_page'],
];

/** Form bodies of OAuth endpoints are small; SAML assertions are the largest expected. */
export const OAUTH_BODY_LIMIT = 64 * 1024;

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
  /** Outgoing mail (src/mail/); none without `SMTP_URL`. */
  mailer: Mailer | undefined;
  /** The `sub` each client sees of a person (OpenID Connect Core §8). */
  subjects: Subjects;
  /** Checks the `sector_identifier_uri` a registration sets. */
  sectorIdentifiers: SectorIdentifierFetcher;
  /** Every lookup of a client by the client_id a request names. */
  clients: ClientDirectory;
  /** Every fetch of a URL that a client or an admin supplied (SSRF guard, OUTBOUND_ALLOW). */
  outbound: OutboundFetcher;
  metrics: Metrics;
  /** argon2id's cost for new passwords (src/authn/password-hashing.ts). */
  passwordHashing: PasswordHashing;
}

/**
 * Every endpoint of a realm, below its issuer path (mounted at `/oauth2` for the root
 * realm and `/oauth2/:realm` for the others). Bodies are form-encoded only; responses
 * are `no-store` unless an endpoint says otherwise.
 */
export function realmEndpoints(deps: EndpointDeps): FastifyPluginAsync {
  const { store } = deps;
  const { jwtAccessTokens, rateLimits, scopeClaims } = deps;
  // Nonces derive from MASTER_KEY, so that every instance makes and accepts the same ones (src/dpop/nonces.ts).
  const dpop = new DpopProofs({ spent: store.spentAssertions, nonces: new DpopNonces(deps.encryption.deriveKey('dpop nonces')) });
  return async (app) => {
    resolveRealmFromPath(app, store.realms, deps.baseUrl, 'endpoints');
    // What a request causes to be fetched (a client_id URL's document, its keys, an upstream's
    // discovery) is counted under its rate limit first (src/http/outbound-budget.ts). Set once
    // the body is read, so that the handler and everything it awaits run within it.
    app.addHook('preValidation', (request, _reply, done) => withOutboundSpend(() => rateLimits.outboundFetch(request), done));
    app.removeAllContentTypeParsers();
    await app.register(formBody, { bodyLimit: OAUTH_BODY_LIMIT });
    app.addHook('onSend', async (_request, reply) => {
      if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    });

    await app.register(discoveryEndpoint({ scopes: store.scopes, capabilities: deps.capabilities }, '/.well-known/openid-configuration'));
    await app.register(jwksEndpoint({ signingKeys: store.signingKeys }));
    await app.register(tokenEndpoint({ metrics: deps.metrics, grants: deps.grants, authenticator: deps.authenticator, clientCertificate: deps.clientCertificate, rateLimits, dpop, resources: store.resources }));
    await app.register(introspectionEndpoint({ authenticator: deps.authenticator, tokens: store.tokens, users: store.users, jwtAccessTokens, scopeClaims, signer: deps.signer, clients: store.clients, subjects: deps.subjects }));
    await app.register(revocationEndpoint({ authenticator: deps.authenticator, tokens: store.tokens, jwtAccessTokens }));
    await app.register(userinfoEndpoint({ tokens: store.tokens, users: store.users, jwtAccessTokens, clientCertificate: deps.clientCertificate, scopeClaims, dpop, clients: store.clients, subjects: deps.subjects }));
    await app.register(parEndpoint({ store, authenticator: deps.authenticator, clientJwks: deps.clientJwks, rateLimits, dpop }));
    await app.register(backchannelAuthenticationEndpoint({ outbound: deps.outbound, store, encryption: deps.encryption, authenticator: deps.authenticator, clientJwks: deps.clientJwks, rateLimits }));
    await app.register(deviceAuthorizationEndpoint({ authenticator: deps.authenticator, pendingAuthorizations: store.pendingAuthorizations, rateLimits }));
    await app.register(clientRegistrationEndpoint({ outbound: deps.outbound, store, capabilities: deps.capabilities, rateLimits, sectorIdentifiers: deps.sectorIdentifiers }));
    // Posts to the sign-in steps and the device page, per address (src/rate-limits/rate-limits.ts):
    // a preHandler of those two routes only, so that no other request pays for it.
    app.addHook('onRoute', (route) => {
      const page = route.method === 'POST' ? LIMITED_PAGES.find(([path]) => route.url.endsWith(path))?.[1] : undefined;
      if (!page) return;
      const limit = async (request: FastifyRequest) => rateLimits.address(request, page);
      route.preHandler = [limit, ...[route.preHandler ?? []].flat()];
    });
    await app.register(browserPages({ store, encryption: deps.encryption, baseUrl: deps.baseUrl, mailer: deps.mailer, clientJwks: deps.clientJwks, clients: deps.clients, signer: deps.signer, outbound: deps.outbound, metrics: deps.metrics, subjects: deps.subjects, passwordHashing: deps.passwordHashing }));
  };
}

/** RFC 8414 §3: `{BASE_URL}/.well-known/oauth-authorization-server/oauth2[/realm]`. */
export function wellKnownMetadata(deps: EndpointDeps): FastifyPluginAsync {
  return async (app) => {
    resolveRealmFromPath(app, deps.store.realms, deps.baseUrl, 'endpoints');
    await app.register(discoveryEndpoint({ scopes: deps.store.scopes, capabilities: deps.capabilities }, '/'));
  };
}
