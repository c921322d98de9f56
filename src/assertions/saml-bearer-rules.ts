import type { Element } from '@xmldom/xmldom';
import { SAML_ASSERTION_NS } from './saml-document.js';
import { refuse } from './saml-refusal.js';
import { timeAttribute } from './saml-time.js';
import { childElements, optionalChild, requiredChild, simpleText } from './saml-xml.js';

/** SAML Profiles §3.3: the bearer subject confirmation method. */
const BEARER = 'urn:oasis:names:tc:SAML:2.0:cm:bearer';
/** SAML Core §8.3.6: the Issuer's format; absent means this one (§2.2.5). */
const ENTITY_FORMAT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:entity';
/**
 * SAML Core §2.5.1: a condition the relying party does not understand makes the assertion's
 * validity Indeterminate. These are the ones understood: OneTimeUse holds anyway (each
 * assertion is used once), ProxyRestriction limits assertions issued on from this one, and
 * this server issues none.
 */
const UNDERSTOOD_CONDITIONS = new Set(['AudienceRestriction', 'OneTimeUse', 'ProxyRestriction']);

export interface BearerExpectations {
  /** Acceptable `<Audience>` values: the realm's issuer and its token endpoint URL (RFC 7522 §3 item 2). */
  readonly audiences: readonly string[];
  /** The `Recipient` a bearer confirmation must name: the token endpoint URL (RFC 7522 §3 item 4). */
  readonly recipient: string;
  readonly now: number;
  readonly skewMs: number;
  /** The assertion may stay acceptable at most this long after it is received (RFC 7522 §3 item 4, "limits"). */
  readonly maxLifetimeMs: number;
}

export interface BearerAssertionFacts {
  /** The subject's `<NameID>`. */
  readonly nameId: string;
  /** The last instant (before skew) at which this server could accept the assertion: until then, its ID is remembered. */
  readonly acceptableUntil: number;
}

/** `<Issuer>` (SAML Core §2.3.3, RFC 7522 §3 item 1): the entity that issued the assertion. */
export function issuerName(assertion: Element): string {
  const issuer = requiredChild(assertion, SAML_ASSERTION_NS, 'Issuer', 'Issuer');
  const format = issuer.getAttribute('Format');
  if (format !== null && format !== ENTITY_FORMAT) refuse('its Issuer is not an entity identifier');
  return simpleText(issuer, 'Issuer', true);
}

/**
 * The rules RFC 7522 §3 sets for a bearer assertion used as a grant, on the signed assertion:
 * items 2 (audience), 3 (subject), 4 (bearer confirmation and expiry), and the validity
 * period of SAML Core §2.5.1.2.
 */
export function checkBearerRules(assertion: Element, expect: BearerExpectations): BearerAssertionFacts {
  const { now, skewMs } = expect;
  const issued = timeAttribute(assertion, 'IssueInstant', 'IssueInstant') ?? refuse('it has no IssueInstant');
  if (issued > now + skewMs) refuse('it was issued in the future');

  const conditionsUntil = checkConditions(assertion, expect);
  const subject = requiredChild(assertion, SAML_ASSERTION_NS, 'Subject', 'Subject');
  // RFC 7522 §3 item 3; an EncryptedID or BaseID is not served.
  const nameId = simpleText(requiredChild(subject, SAML_ASSERTION_NS, 'NameID', 'subject NameID'), 'subject NameID');
  const confirmedUntil = checkBearerConfirmation(subject, expect);

  const acceptableUntil = Math.min(conditionsUntil ?? Infinity, confirmedUntil);
  if (acceptableUntil > now + expect.maxLifetimeMs + skewMs) refuse('it expires more than an hour from now');
  return { nameId, acceptableUntil };
}

/** `<Conditions>` (SAML Core §2.5): its period holds now, and every AudienceRestriction names this server. */
function checkConditions(assertion: Element, expect: BearerExpectations): number | undefined {
  const { now, skewMs } = expect;
  const conditions = requiredChild(assertion, SAML_ASSERTION_NS, 'Conditions', 'Conditions');
  const notBefore = timeAttribute(conditions, 'NotBefore', 'Conditions NotBefore');
  const notOnOrAfter = timeAttribute(conditions, 'NotOnOrAfter', 'Conditions NotOnOrAfter');
  if (notBefore !== undefined && notOnOrAfter !== undefined && notBefore >= notOnOrAfter) refuse('its Conditions period is empty');
  if (notBefore !== undefined && now < notBefore - skewMs) refuse('it is not valid yet');
  if (notOnOrAfter !== undefined && now >= notOnOrAfter + skewMs) refuse('it has expired');

  const children = childElements(conditions);
  if (children.some((child) => child.namespaceURI !== SAML_ASSERTION_NS || !UNDERSTOOD_CONDITIONS.has(child.localName ?? ''))) {
    refuse('it has a condition this server does not understand');
  }
  // SAML Core §2.5.1.4: each restriction must be met; within one, any of its audiences will do.
  const restrictions = childElements(conditions, SAML_ASSERTION_NS, 'AudienceRestriction');
  if (restrictions.length === 0) refuse('it has no audience restriction');
  for (const restriction of restrictions) {
    const audiences = childElements(restriction, SAML_ASSERTION_NS, 'Audience').map((audience) => simpleText(audience, 'Audience', true));
    if (!audiences.some((audience) => expect.audiences.includes(audience))) refuse('its audience is not this server');
  }
  return notOnOrAfter;
}

/**
 * RFC 7522 §3 item 4: a bearer `<SubjectConfirmation>` whose `<SubjectConfirmationData>` names
 * the token endpoint as `Recipient` and has a `NotOnOrAfter` still ahead (and a `NotBefore`, if
 * any, passed). Every bearer confirmation for this server must expire, so that the assertion's
 * ID need not be remembered forever. Returns the latest of their `NotOnOrAfter`: after it, no
 * confirmation can admit the assertion here.
 */
function checkBearerConfirmation(subject: Element, expect: BearerExpectations): number {
  const { now, skewMs } = expect;
  const bearers = childElements(subject, SAML_ASSERTION_NS, 'SubjectConfirmation').filter(
    (confirmation) => confirmation.getAttribute('Method') === BEARER,
  );
  if (bearers.length === 0) refuse('it has no bearer subject confirmation');
  const forThisServer = bearers
    .map((bearer) => optionalChild(bearer, SAML_ASSERTION_NS, 'SubjectConfirmationData', 'SubjectConfirmationData in a confirmation'))
    .filter((data): data is Element => data?.getAttribute('Recipient') === expect.recipient);
  if (forThisServer.length === 0) refuse('its bearer subject confirmation is not for this token endpoint');

  const periods = forThisServer.map((data) => ({
    notBefore: timeAttribute(data, 'NotBefore', 'SubjectConfirmationData NotBefore'),
    notOnOrAfter:
      timeAttribute(data, 'NotOnOrAfter', 'SubjectConfirmationData NotOnOrAfter') ?? refuse('its bearer subject confirmation does not expire'),
  }));
  const expired = (period: { notOnOrAfter: number }) => now >= period.notOnOrAfter + skewMs;
  const current = periods.some((period) => !expired(period) && (period.notBefore === undefined || now >= period.notBefore - skewMs));
  if (!current) {
    refuse(periods.every(expired) ? 'its bearer subject confirmation has expired' : 'its bearer subject confirmation is not valid yet');
  }
  return Math.max(...periods.map((period) => period.notOnOrAfter));
}
