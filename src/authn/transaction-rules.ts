import type { AuthorizationRequest } from '../records/authorization-request.js';
import type { RequestRealm } from '../records/realm.js';
import type { TransactionPurpose } from '../store/authorization-flow.js';
import type { Client } from '../store/clients.js';
import type { Consented } from '../store/consents.js';
import type { Session } from '../store/sessions.js';
import { journeyOfTransaction } from './transaction-journey.js';

/*
 * The rules of a transaction between a request and its answer, apart from HTTP
 * (src/web/authorization-flow.ts follows them): what a session is worth to a request, when
 * consent is asked, and what the pages of a transaction may show and send.
 */

/** How long a sign-in lasts; `max_age` and `prompt=login` ask for a fresher one. */
export const SESSION_LIFETIME_SECONDS = 12 * 3600;


/**
 * Consent is asked when the request says so (`prompt=consent`), else unless the person
 * allowed all these scopes and resources before (`consented`), or the realm lets the client
 * skip it. A consent given without a resource does not cover one: the person has not seen
 * where the tokens go (RFC 8707 §2, docs/resources.md).
 */
export function needsConsent(realm: RequestRealm, client: Client, authz: AuthorizationRequest, consented: Consented | undefined): boolean {
  if (authz.prompt.includes('consent')) return true;
  // RFC 9396: authorization details describe this one transaction (a payment): the person sees each, every time.
  if (authz.authorizationDetails) return true;
  if (realm.settings.allow_consent_bypass && client.skip_consent) return false;
  if (consented === undefined) return true;
  return authz.scope.some((name) => !consented.scope.includes(name)) || (authz.resource ?? []).some((value) => !consented.resources.includes(value));
}


/** The scopes a transaction asks the person to allow. */
export function requestedScopeOf(purpose: TransactionPurpose): readonly string[] {
  if (purpose.kind === 'authorize') return purpose.request.scope;
  if (purpose.kind === 'device') return purpose.scope;
  return [];
}


/** Where the forms of a transaction's pages may send the browser next (CSP form-action). */
export function formTargetsOf(purpose: TransactionPurpose): string[] {
  return purpose.kind === 'authorize' ? [purpose.request.redirectUri] : [];
}


/**
 * The session as a code of this request carries it: with the acr of the request's journey, which
 * the session stands for, though it may have signed in through another (CONTRACT.md §8).
 */
export function withAcrOf(realm: RequestRealm, purpose: TransactionPurpose, client: Client | undefined, session: Session): Session {
  return { ...session, acr: journeyOfTransaction(realm, purpose, client)?.acr ?? session.acr };
}


/** The seconds a session has left: what a session that takes its place keeps. */
export function remainingLifetimeOf(session: Session): number {
  return Math.min(SESSION_LIFETIME_SECONDS, Math.max(1, Math.ceil((session.expiresAt.getTime() - Date.now()) / 1000)));
}


export function isFreshEnough(session: Session, maxAge: number | undefined): boolean {
  return maxAge === undefined || Date.now() - session.authTime.getTime() <= maxAge * 1000;
}


/**
 * Initiating User Registration via OpenID Connect 1.0 §4.1: `prompt=create` begins on the
 * registration page (validated to be offered), which goes on with the sign-in as the new person.
 */
export function firstSignInPage(purpose: TransactionPurpose): 'login' | 'register' {
  return purpose.kind === 'authorize' && purpose.request.prompt.includes('create') ? 'register' : 'login';
}
