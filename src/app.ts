import type { ServerOptions as HttpsServerOptions } from 'node:https';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { ADMIN_BODY_LIMIT } from './admin/body-limit.js';
import { adminApi } from './admin/index.js';
import { adminConsole } from './admin/console/index.js';
import { CONSOLE_PATH } from './admin/console/page.js';
import { AuditTrail } from './audit/audit-trail.js';
import { ClientAuthenticator } from './client-auth/authenticate.js';
import { ClientJwks } from './client-auth/client-jwks.js';
import { clientAuthMethods } from './client-auth/methods.js';
import { readCaBundle } from './client-auth/tls-client-auth.js';
import { ClientDirectory, MetadataDocumentClients } from './clients/metadata-document-clients.js';
import { MetadataDocumentFetcher } from './clients/metadata-document-fetcher.js';
import type { Config } from './config.js';
import { realmEndpoints, wellKnownMetadata } from './endpoints/index.js';
import { authorizationCodeGrant } from './grants/authorization-code.js';
import { clientCredentialsGrant } from './grants/client-credentials.js';
import { GrantRegistry } from './grants/grant-handler.js';
import { passwordGrant } from './grants/resource-owner-password.js';
import { cibaGrant } from './grants/ciba.js';
import { deviceCodeGrant } from './grants/device-code.js';
import { jwtBearerGrant } from './grants/jwt-bearer.js';
import { tokenExchangeGrant } from './grants/token-exchange.js';
import { refreshTokenGrant } from './grants/refresh-token.js';
import { saml2BearerGrant } from './grants/saml2-bearer.js';
import type { AdminPort } from './http/admin-port.js';
import { clientCertificateExtractor } from './http/client-certificate.js';
import { OutboundFetcher } from './http/outbound-fetch.js';
import { trustedPeer } from './http/trusted-proxies.js';
import { clientErrorHandler, errorHandling, frameworkErrors } from './http/error-handler.js';
import { lingeringClose } from './http/lingering-close.js';
import { healthRoutes } from './http/health.js';
import { metricsRoutes, newMetrics } from './http/metrics.js';
import { requestLog } from './http/request-log.js';
import { Mailer } from './mail/mailer.js';
import { landingRoute } from './web/landing.js';
import { browserPages } from './web/pages.js';
import { backchannelLogoutSender } from './outbox/backchannel-logout.js';
import { cibaPingSender } from './outbox/ciba-ping.js';
import { WEBHOOK, webhookSender } from './outbox/webhook.js';
import { cibaPushSender } from './outbox/ciba-push.js';
import { CIBA_PING } from './store/pending-authorizations.js';
import { CIBA_PUSH } from './store/ciba-push.js';
import { OutboxDeliverer, type OutboxOptions } from './outbox/deliverer.js';
import { RateLimits } from './rate-limits/rate-limits.js';
import { type CleanupOptions, DEFAULT_CLEANUP, startCleanup } from './store/cleanup.js';
import type { Store } from './store/index.js';
import { MetadataDocumentAnchors } from './store/metadata-document-anchors.js';
import { TokenIssuer } from './tokens/issuer.js';
import { ScopeClaims } from './tokens/scope-claims.js';
import { RealmSigner } from './tokens/signer.js';
import { BACKCHANNEL_LOGOUT } from './store/session-endings.js';
import type { KeyEncryption } from './tokens/key-encryption.js';
import { JwtAccessTokenVerifier } from './tokens/jwt-access-token.js';
import { Subjects } from './tokens/subject.js';
import { SectorIdentifierFetcher } from './clients/sector-identifier.js';
import { type KeyPairSource, newKeyPair } from './tokens/signing-keys.js';
import { PASSWORD_HASHING, type PasswordHashing } from './authn/password-hashing.js';

export interface AppDeps {
  config: Pick<Config, 'baseUrl' | 'trustProxy'> & Partial<Pick<Config, 'clientCertHeader' | 'outboundAllow' | 'mail'>>;
  store: Store;
  encryption: KeyEncryption;
  adminTokenHash: Buffer;
  logger?: FastifyBaseLogger;
  https?: HttpsServerOptions;
  /** `TLS_CA`: the PEM bundle of the CAs that issue `tls_client_auth` certificates (RFC 8705 §2.1). */
  clientCa?: string | Buffer;
  /** Fetches and caches clients' `jwks_uri` key sets; tests pass one whose agent trusts their certificate. */
  clientJwks?: ClientJwks;
  /** Fetches and caches clients' metadata documents; tests pass one whose agent trusts their certificate. */
  metadataDocuments?: MetadataDocumentFetcher;
  /** Fetches clients' `sector_identifier_uri` documents; tests pass one whose agent trusts their certificate. */
  sectorIdentifiers?: SectorIdentifierFetcher;
  /** Expired-row cleanup; `false` turns it off. */
  cleanup?: CleanupOptions | false;
  /** `ADMIN_PORT`: the listener that alone serves /admin and /metrics (src/http/admin-port.ts). */
  adminPort?: AdminPort;
  /** The outbox's delivery (logout tokens, CIBA notifications); `false` turns its polling off. */
  outbox?: OutboxOptions | false;
  /**
   * argon2id's cost for the passwords the server hashes; PASSWORD_HASHING unless given. Only the
   * code that builds the server chooses it (the test suite does, where the cost is not under test):
   * no configuration variable reaches it.
   */
  passwordHashing?: PasswordHashing;
  /** Where the key pairs of new realms and rotations come from; generated afresh unless given (the test suite supplies them). */
  keyPairs?: KeyPairSource;
}

/** The application, and the services that a test drives by hand: it flushes the audit trail and ticks the outbox. */
export interface AssembledApp {
  app: FastifyInstance;
  audit: AuditTrail;
  outbox: OutboxDeliverer;
}

/**
 * The application, apart from the process that runs it: every plugin registered
 * explicitly. It owns the store from here on and closes it in `onClose`.
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  return (await assembleApp(deps)).app;
}

/** The application built as `buildApp` builds it, with the services it hands its routes. */
export async function assembleApp(deps: AppDeps): Promise<AssembledApp> {
  const { config, store } = deps;
  const passwordHashing = deps.passwordHashing ?? PASSWORD_HASHING;
  const app = Fastify({
    ...(deps.logger ? { loggerInstance: deps.logger } : { logger: false }),
    ...(deps.https ? { https: deps.https } : {}),
    // X-Forwarded-* (request.ip, X-Forwarded-For's hops) only from the listed peers; the client
    // certificate header's peer is checked the same way (src/http/client-certificate.ts).
    trustProxy: config.trustProxy === false ? false : trustedPeer(config.trustProxy),
    bodyLimit: ADMIN_BODY_LIMIT,
    // Node's default, which Fastify would turn off (0): a request, its body included, arrives within
    // 5 minutes, long enough for the largest body (a 32 MiB realm document) at ~110 KiB/s.
    requestTimeout: 300_000,
    // A request read while closing is served like any in flight (the drain of src/http/health.ts
    // turned new ones away before), rather than answered in Fastify's own 503 shape.
    return503OnClosing: false,
    // What the HTTP parser and the router refuse, in the contract's error shape.
    clientErrorHandler,
    frameworkErrors,
    // Path parameters carry usernames of up to 255 characters, each up to 12 when percent-encoded.
    routerOptions: { maxParamLength: 4096 },
    // src/http/request-log.ts logs one redacted line per request instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
  });

  // Before every other hook: a request for the other listener's paths is 404, whatever else it holds.
  deps.adminPort?.attach(app);
  const audit = new AuditTrail({ events: store.auditEvents, realms: store.realms, logger: app.log });
  const metrics = newMetrics();
  // Every fetch of a URL that a client or an admin supplied goes through it (SSRF guard, OUTBOUND_ALLOW).
  const outbound = new OutboundFetcher({ allow: config.outboundAllow ?? [] });
  // Without SMTP_URL there is no mailer, and no realm may turn on what sends mail (CONTRACT.md §9).
  const mailer = config.mail ? new Mailer({ settings: config.mail, logger: app.log }) : undefined;
  const scopeClaims = new ScopeClaims(store.scopes, store.memberships);
  const signer = new RealmSigner(store.signingKeys, deps.encryption);
  // Every `sub` that reaches a client (OpenID Connect Core §8), pairwise ones from MASTER_KEY.
  const subjects = new Subjects(deps.encryption);
  const sectorIdentifiers = deps.sectorIdentifiers ?? new SectorIdentifierFetcher({ outbound });
  const issuer = new TokenIssuer(signer, audit, scopeClaims, subjects);
  const clientJwks = deps.clientJwks ?? new ClientJwks({ logger: app.log, outbound });
  // Every lookup of a client by a request's client_id: registered clients and client_id URLs.
  const clients = new ClientDirectory(
    store.clients,
    new MetadataDocumentClients(deps.metadataDocuments ?? new MetadataDocumentFetcher({ outbound }), new MetadataDocumentAnchors(store.db)),
  );
  const jwtAccessTokens = new JwtAccessTokenVerifier(store.signingKeys, store.revokedJwts, subjects);
  const assertionDeps = { trustedIssuers: store.trustedIssuers, clientJwks, users: store.users, tokens: store.tokens, issuer };
  const grants = new GrantRegistry([
    clientCredentialsGrant({ issuer, tokens: store.tokens }),
    authorizationCodeGrant({ tokens: store.tokens, issuer }),
    refreshTokenGrant({ tokens: store.tokens, store, issuer }),
    passwordGrant({ store, encryption: deps.encryption, issuer, audit, passwordHashing }),
    deviceCodeGrant({ store, issuer }),
    cibaGrant({ store, issuer }),
    saml2BearerGrant({ trustedIssuers: store.trustedIssuers, users: store.users, usedAssertions: store.spentAssertions, tokens: store.tokens, issuer }),
    jwtBearerGrant({
      ...assertionDeps,
      spentAssertions: store.spentAssertions,
      identityProviders: store.identityProviders,
      userIdentities: store.userIdentities,
      resources: store.resources,
    }),
    tokenExchangeGrant({ ...assertionDeps, jwtAccessTokens, signer, signingKeys: store.signingKeys, revokedJwts: store.revokedJwts, subjects }),
  ]);
  const clientCertificate = clientCertificateExtractor({ trustProxy: config.trustProxy, clientCertHeader: config.clientCertHeader });
  const authenticator = new ClientAuthenticator(
    clients,
    clientAuthMethods(
      { clientJwks, spentAssertions: store.spentAssertions },
      { trustedCas: readCaBundle(deps.clientCa), clientKeys: async (client, refresh) => (await clientJwks.keySet(client, refresh))?.jwks().keys },
    ),
    clientCertificate,
  );
  const rateLimits = new RateLimits(store.attemptCounters, store.requestBudgets);
  const endpointDeps = {
    store,
    encryption: deps.encryption,
    authenticator,
    baseUrl: config.baseUrl,
    grants,
    clientCertificate,
    clientJwks,
    jwtAccessTokens,
    signer,
    scopeClaims,
    capabilities: { grantTypes: grants.types, clientAuthMethods: authenticator.methodNames },
    rateLimits,
    subjects,
    sectorIdentifiers,
    outbound,
    metrics,
    audit,
  };
  const browserDeps = { store, encryption: deps.encryption, baseUrl: config.baseUrl, mailer, clientJwks, clients, signer, outbound, metrics, subjects, rateLimits, audit, passwordHashing };

  if (config.baseUrl.startsWith('https:')) {
    // RFC 6797: a browser that once reached the public origin over https never tries http again.
    app.addHook('onSend', async (_request, reply) => {
      reply.header('strict-transport-security', 'max-age=31536000');
    });
  }
  await app.register(errorHandling);
  await app.register(lingeringClose);
  await app.register(requestLog);
  await app.register(metricsRoutes(metrics));
  await app.register(healthRoutes(store));
  await app.register(realmEndpoints(endpointDeps), { prefix: '/oauth2' });
  await app.register(realmEndpoints(endpointDeps), { prefix: '/oauth2/:realm' });
  await app.register(browserPages(browserDeps), { prefix: '/oauth2' });
  await app.register(browserPages(browserDeps), { prefix: '/oauth2/:realm' });
  await app.register(wellKnownMetadata(endpointDeps), { prefix: '/.well-known/oauth-authorization-server/oauth2' });
  await app.register(wellKnownMetadata(endpointDeps), { prefix: '/.well-known/oauth-authorization-server/oauth2/:realm' });
  await app.register(landingRoute({ consoleUrl: deps.adminPort === undefined ? `${CONSOLE_PATH}/` : undefined }));
  await app.register(adminConsole({ clients: store.clients, baseUrl: config.baseUrl }), { prefix: CONSOLE_PATH }); // no data: outside the admin token's hook
  await app.register(
    adminApi({ store, audit, encryption: deps.encryption, baseUrl: config.baseUrl, adminTokenHash: deps.adminTokenHash, mailer, sectorIdentifiers, outbound, passwordHashing, keyPairs: deps.keyPairs ?? newKeyPair }),
    { prefix: '/admin' },
  );

  const outbox = new OutboxDeliverer(
    { store: store.outbox, outbound, senders: {
        [BACKCHANNEL_LOGOUT]: backchannelLogoutSender(signer, subjects, config.baseUrl),
        [CIBA_PING]: cibaPingSender(store.pendingAuthorizations, deps.encryption),
        [WEBHOOK]: webhookSender({ webhooks: store.webhooks, auditEvents: store.auditEvents, encryption: deps.encryption }),
        [CIBA_PUSH]: cibaPushSender({ store, issuer, encryption: deps.encryption, baseUrl: config.baseUrl }),
      }, registry: metrics.registry, logger: app.log },
    deps.outbox || {},
  );
  if (deps.outbox !== false && deps.outbox?.polling !== false) outbox.start();

  const cleanup = deps.cleanup ?? DEFAULT_CLEANUP;
  const stopCleanup = cleanup ? startCleanup(store.db, { ...cleanup, logger: app.log }) : undefined;
  app.addHook('onClose', async () => {
    await audit.flush();
    await outbox.stop();
    await mailer?.close();
    await stopCleanup?.();
    await store.close();
  });
  return { app, audit, outbox };
}
