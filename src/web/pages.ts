import type { Subjects } from '../tokens/subject.js';
import type { AuditLog } from '../audit/audit-log.js';
import cookie from '@fastify/cookie';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ClientDirectory } from '../clients/metadata-document-clients.js';
import type { Metrics } from '../http/metrics.js';
import type { OutboundFetcher } from '../http/outbound-fetch.js';
import type { RealmSigner } from '../tokens/signer.js';
import { AuthorizationResponses } from './authorization-response.js';
import { AuthorizationFlow } from './authorization-flow.js';
import { pageErrorHandler } from './error-page.js';
import { BrowserCookies } from './browser-cookies.js';
import { BruteForceGuard } from '../authn/brute-force.js';
import type { PasswordHashing } from '../authn/password-hashing.js';
import type { ClientJwks } from '../client-auth/client-jwks.js';
import { RiskAssessor } from '../authn/risk.js';
import { signInNodes } from '../authn/nodes/index.js';
import { Broker } from '../identity-providers/broker.js';
import { noteChosenLocales } from './locale.js';
import type { Mailer } from '../mail/mailer.js';
import type { AddressPage, RateLimits } from '../rate-limits/rate-limits.js';
import { belowIssuerPath } from '../realms/issuer-paths.js';
import type { Store } from '../store/index.js';
import type { KeyEncryption } from '../tokens/key-encryption.js';
import { accountPage } from './account.js';
import { staticAssets } from './assets.js';
import { authorizationEndpoint } from './authorize.js';
import { consentPageEndpoint } from './consent.js';
import { deviceVerificationPage } from './device-verification.js';
import { backchannelApprovalPage } from './backchannel-approval.js';
import { brokerPages } from './broker.js';
import { endSessionEndpoint } from './end-session.js';
import { loginPage } from './login.js';
import { personRegistrationPage } from './person-registration.js';
import { resetEndpoint } from './reset.js';
import { verifyEndpoint } from './verify.js';

const LIMITED_PAGES: ReadonlyArray<readonly [path: string, page: AddressPage]> = [
  ['/login', 'sign_in'],
  ['/device/user', 'device_page'],
];

/**
 * The routes a person's browser visits: /authorize, the sign-in and consent pages,
 * sign-out, the device page, the CIBA approval page, the account page, and the pages by which
 * people register, confirm their email address and reset their password. They answer HTML, errors included,
 * and are the only routes that read cookies. Mounted below a realm's issuer path, beside the JSON
 * protocol endpoints (src/realms/issuer-paths.ts).
 */
export function browserPages(deps: {
  store: Store;
  encryption: KeyEncryption;
  baseUrl: string;
  mailer: Mailer | undefined;
  /** Clients' key sets, for their signed request objects at /authorize. */
  clientJwks: ClientJwks;
  clients: ClientDirectory;
  /** Signs JARM responses. */
  signer: RealmSigner;
  outbound: OutboundFetcher;
  metrics: Metrics;
  /** The `sub` each client sees of a person (OpenID Connect Core §8). */
  subjects: Subjects;
  rateLimits: RateLimits;
  audit: AuditLog;
  /** argon2id's cost for new passwords (src/authn/password-hashing.ts). */
  passwordHashing: PasswordHashing;
}): FastifyPluginAsync {
  const cookies = new BrowserCookies(deps.encryption.deriveKey('csrf'), deps.baseUrl.startsWith('https:'));
  const bruteForce = new BruteForceGuard(deps.store.attemptCounters);
  const risk = new RiskAssessor(deps.store.signInSources, bruteForce);
  const responses = new AuthorizationResponses({ signer: deps.signer, clients: deps.clients });
  const flow = new AuthorizationFlow(deps.store, cookies, risk, deps.clients, responses, deps.subjects, deps.audit);
  const routeDeps = { store: deps.store, flow, cookies, audit: deps.audit };
  const signInDeps = {
    ...routeDeps,
    metrics: deps.metrics,
    nodes: signInNodes({ store: deps.store, encryption: deps.encryption, baseUrl: deps.baseUrl, mailer: deps.mailer, passwordHashing: deps.passwordHashing }),
    bruteForce,
    risk,
  };
  return async (app) => {
    await belowIssuerPath(app, { realms: deps.store.realms, baseUrl: deps.baseUrl, rateLimits: deps.rateLimits });
    // Posts to the sign-in steps and the device page, per address (src/rate-limits/rate-limits.ts):
    // a preHandler of those two routes only, so that no other request pays for it.
    app.addHook('onRoute', (route) => {
      const page = route.method === 'POST' ? LIMITED_PAGES.find(([path]) => route.url.endsWith(path))?.[1] : undefined;
      if (!page) return;
      const limit = async (request: FastifyRequest) => deps.rateLimits.address(request, page);
      route.preHandler = [limit, ...[route.preHandler ?? []].flat()];
    });
    await app.register(cookie, { secret: deps.encryption.deriveKey('cookie signing') });
    // A page's address may choose its language (`?ui_locales=`): the language picker, a mail's link (CONTRACT.md §16).
    app.addHook('preHandler', async (request) => noteChosenLocales(request));
    app.setErrorHandler(pageErrorHandler(routeDeps));
    await app.register(authorizationEndpoint({ ...routeDeps, clients: deps.clients, clientJwks: deps.clientJwks }));
    // Sign-in through upstream providers: the sign-in page begins it, the broker's callback ends it.
    const broker = new Broker({ store: deps.store, encryption: deps.encryption, outbound: deps.outbound });
    await app.register(loginPage({ ...signInDeps, broker }));
    await app.register(brokerPages({ ...routeDeps, broker, metrics: deps.metrics }));
    await app.register(consentPageEndpoint(routeDeps));
    await app.register(endSessionEndpoint({ ...routeDeps, clients: deps.clients, subjects: deps.subjects }));
    await app.register(deviceVerificationPage(routeDeps));
    await app.register(backchannelApprovalPage(routeDeps));
    await app.register(accountPage({ ...routeDeps, encryption: deps.encryption, baseUrl: deps.baseUrl, broker, mailer: deps.mailer, passwordHashing: deps.passwordHashing }));
    // People manage themselves (CONTRACT.md §9): registration, email verification, password reset.
    await app.register(personRegistrationPage({ ...routeDeps, mailer: deps.mailer, passwordHashing: deps.passwordHashing, risk, nodes: signInDeps.nodes, bruteForce }));
    await app.register(verifyEndpoint({ ...routeDeps, mailer: deps.mailer }));
    await app.register(resetEndpoint({ ...routeDeps, mailer: deps.mailer, passwordHashing: deps.passwordHashing }));
    await app.register(staticAssets());
  };
}
