import { userByMapping } from '../authn/user-by-subject.js';
import { CLOCK_SKEW_SECONDS } from './signed-jwt.js';
import type { RequestRealm } from '../records/realm.js';
import type { Client } from '../store/clients.js';
import type { TrustedIssuer, TrustedIssuerStore } from '../store/trusted-issuers.js';
import type { SpentAssertionStore } from '../store/spent-assertions.js';
import type { User, UserStore } from '../store/users.js';
import { checkBearerRules, issuerName } from './saml-bearer-rules.js';
import { type ParsedAssertion, parseAssertionDocument } from './saml-document.js';
import { refuse } from './saml-refusal.js';
import { signedAssertionXml } from './saml-signature.js';
import { decodeAssertionXml } from './saml-xml.js';
import { admitsClient } from '../records/trusted-issuer.js';

/** RFC 7522 §3 item 4: an assertion may stay acceptable at most this long after it is received. */
export const MAX_SAML_ASSERTION_LIFETIME_SECONDS = 3600;

export interface SamlAssertionDeps {
  trustedIssuers: Pick<TrustedIssuerStore, 'find'>;
  users: Pick<UserStore, 'get' | 'getById' | 'getByEmail'>;
  usedAssertions: Pick<SpentAssertionStore, 'use'>;
  now?: () => number;
}

export interface VerifiedSamlAssertion {
  issuer: TrustedIssuer;
  /** The subject's NameID, as the issuer wrote it. */
  subject: string;
  /** The realm user the subject maps to. */
  user: User;
  assertionId: string;
  /** Until when its ID is remembered as used. */
  expiresAt: Date;
}

/**
 * A SAML 2.0 bearer assertion presented as an authorization grant (RFC 7522 §2.1, §3): signed
 * by a `saml2` issuer the realm trusts and that admits this client, for this server, naming a
 * user of the realm, and never seen before (its ID is spent here, last, so that a refused
 * assertion spends nothing). Anything wrong is `invalid_grant`.
 */
export async function verifySamlBearerAssertion(
  deps: SamlAssertionDeps,
  realm: RequestRealm,
  client: Pick<Client, 'client_id'>,
  encoded: string,
): Promise<VerifiedSamlAssertion> {
  const now = (deps.now ?? Date.now)();
  const xml = decodeAssertionXml(encoded);
  const received = parseAssertionDocument(xml, 1);
  // The received Issuer only chooses the certificate; the signed one is compared below.
  const issuer = await trustedIssuerOf(deps, realm, client, received);
  const signed = parseAssertionDocument(signedAssertionXml(xml, received, issuer.certificate_pem), 0);
  if (signed.id !== received.id || issuerName(signed.element) !== issuer.issuer) refuse('its signed content is not the assertion');

  const tokenEndpoint = `${realm.issuer}/access_token`;
  const skewMs = CLOCK_SKEW_SECONDS * 1000;
  const { nameId, acceptableUntil } = checkBearerRules(signed.element, {
    audiences: [realm.issuer, tokenEndpoint],
    recipient: tokenEndpoint,
    now,
    skewMs,
    maxLifetimeMs: MAX_SAML_ASSERTION_LIFETIME_SECONDS * 1000,
  });

  const user = await userByMapping(deps.users, realm.name, issuer.subject_mapping, nameId);
  if (!user) refuse('its subject is not a user of this realm');
  if (!user.enabled) refuse('its subject is disabled');
  const expiresAt = new Date(acceptableUntil + skewMs);
  // RFC 7522 §3 item 7: the ID, per issuer, until the assertion could no longer be accepted.
  if (!(await deps.usedAssertions.use(realm.name, issuer.id, signed.id, expiresAt))) refuse('it was used already');
  return { issuer, subject: nameId, user, assertionId: signed.id, expiresAt };
}

async function trustedIssuerOf(
  deps: SamlAssertionDeps,
  realm: RequestRealm,
  client: Pick<Client, 'client_id'>,
  assertion: ParsedAssertion,
): Promise<TrustedIssuer & { certificate_pem: string }> {
  const issuer = await deps.trustedIssuers.find(realm.name, 'saml2', issuerName(assertion.element));
  if (!issuer?.certificate_pem) refuse('its issuer is not trusted by this realm');
  if (!admitsClient(issuer, client.client_id)) refuse("its issuer's assertions are not accepted from this client");
  return { ...issuer, certificate_pem: issuer.certificate_pem };
}
