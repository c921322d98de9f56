import { randomUUID, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomSecret, sha256 } from '../crypto/hash.js';
import { OAuthError } from '../errors.js';
import { type AuthorizationRequest, UntrustedRedirectError } from '../oauth/authorization-request.js';
import { messagePage } from '../pages/forms.js';
import { sendPage } from '../pages/layout.js';
import { addressLimit, tooManyFromAddress } from '../rate-limits/rate-limits.js';
import type { RequestRealm } from '../realms/resolve.js';
import type { Client } from '../store/clients.js';
import type { AuthorizationTransaction, TransactionPurpose } from '../store/authorization-flow.js';
import type { Store } from '../store/index.js';
import type { Session } from '../store/sessions.js';
import type { BrowserCookies } from './browser.js';
import { journeyOfTransaction } from './transaction-journey.js';

/** How long a person may take between /authorize and the last page. */
const TRANSACTION_LIFETIME_SECONDS = 30 * 60;
/** How long a sign-in lasts; `max_age` and `prompt=login` ask for a fresher one. */
export const SESSION_LIFETIME_SECONDS = 12 * 3600;

/** The redirect URI with the response parameters added to its query (RFC 6749 §4.1.2, RFC 9207). */
export function redirectTo(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.append(name, value);
  return url.href;
}

/** Sends the person back to the client with an error (RFC 6749 §4.1.2.1), with `state` and `iss`. */
export function redirectError(
  reply: FastifyReply,
  realm: RequestRealm,
  request: { redirectUri: string; state?: string | undefined },
  error: OAuthError,
) {
  const params = { error: error.code, error_description: error.description, state: request.state, iss: realm.issuer };
  return reply.redirect(redirectTo(request.redirectUri, params), 303);
}

/** A transaction a page continues, as `AuthorizationFlow.resume` finds it. */
export interface ResumedTransaction {
  /** The transaction's secret id, as the page's form carries it. */
  readonly id: string;
  readonly transaction: AuthorizationTransaction;
  /** The client the person is asked about; none for a plain sign-in. */
  readonly client: Client | undefined;
  readonly browserHash: Buffer;
}

/**
 * The steps between a request and its answer: sign-in when there is no fitting session,
 * consent when the person has not allowed these scopes, then the answer. For /authorize the
 * answer is a code; for the device page (RFC 8628) it is the device's request approved or
 * denied; for a page that only needs a signed-in person, the way back to it. What is in
 * progress lives in the database (a transaction bound to the browser), so that any instance
 * can serve the next page.
 */
export class AuthorizationFlow {
  constructor(
    private readonly store: Store,
    private readonly cookies: BrowserCookies,
  ) {}

  /** The person's unexpired session at this realm, from the session cookie. */
  async currentSession(request: FastifyRequest, realm: RequestRealm): Promise<Session | undefined> {
    const secret = this.cookies.sessionSecret(request, realm);
    return secret === undefined ? undefined : this.store.sessions.find(sha256(secret), realm.name);
  }

  /**
   * The transaction a page continues, with its client: only in the browser that began it,
   * and only while it lasts.
   */
  async resume(request: FastifyRequest, realm: RequestRealm, transactionId: string | undefined): Promise<ResumedTransaction> {
    if (transactionId === undefined) throw new TransactionGone();
    const transaction = await this.store.authorizationFlow.find(sha256(transactionId), realm.name);
    const browserHash = this.cookies.browserHash(request, realm);
    if (!transaction || !browserHash || !timingSafeEqual(browserHash, transaction.browserHash)) throw new TransactionGone();
    let client: Client | undefined;
    if (transaction.clientId !== undefined) {
      client = await this.store.clients.get(realm.name, transaction.clientId);
      if (!client) throw new TransactionGone();
    }
    // An admin may have removed the redirect URI since the request came: nothing goes there now.
    const { purpose } = transaction;
    if (purpose.kind === 'authorize' && !client?.redirect_uris.includes(purpose.request.redirectUri)) {
      throw new UntrustedRedirectError('the redirect URI is no longer registered for this client');
    }
    return { id: transactionId, transaction, client, browserHash };
  }

  /** Starts the flow for a validated request: the code at once when nothing is to be asked. */
  async start(request: FastifyRequest, reply: FastifyReply, realm: RequestRealm, client: Client, authz: AuthorizationRequest) {
    const session = await this.currentSession(request, realm);
    const purpose: TransactionPurpose = { kind: 'authorize', request: authz };
    const usable =
      session && !authz.prompt.includes('login') && isFreshEnough(session, authz.maxAge) && walkedJourneyOf(realm, purpose, client, session)
        ? session
        : undefined;
    const consentNeeded = !usable || (await this.consentNeeded(realm, client, usable.userId, authz));

    if (authz.prompt.includes('none')) {
      // OIDC Core §3.1.2.6: nothing may be shown, so whatever would be shown is an error.
      if (!usable) return redirectError(reply, realm, authz, new OAuthError('login_required', 'the person is not signed in'));
      if (consentNeeded) return redirectError(reply, realm, authz, new OAuthError('consent_required', 'the person has not allowed this'));
    }
    if (usable && !consentNeeded) return this.deliverCode(reply, realm, authz, usable);
    return this.begin(request, reply, realm, { clientId: client.client_id, purpose, session: usable });
  }

  /**
   * Begins a transaction and sends the person to its first page: consent when a session
   * signs in for it already, else sign-in.
   */
  async begin(
    request: FastifyRequest,
    reply: FastifyReply,
    realm: RequestRealm,
    begun: { clientId: string | undefined; purpose: TransactionPurpose; session: Session | undefined },
  ) {
    // A session of another journey than this transaction's signs in again (CONTRACT.md §8).
    const client = begun.clientId === undefined ? undefined : await this.store.clients.get(realm.name, begun.clientId);
    const session = begun.session && walkedJourneyOf(realm, begun.purpose, client, begun.session) ? begun.session : undefined;
    const id = randomSecret();
    const stored = await this.store.authorizationFlow.begin(
      sha256(id),
      {
        realm: realm.name,
        clientId: begun.clientId,
        browserHash: this.cookies.bindBrowser(request, reply, realm),
        purpose: begun.purpose,
        sid: session?.sid,
        lifetimeSeconds: TRANSACTION_LIFETIME_SECONDS,
      },
      // Anyone may begin one without signing in: the rows an address makes are limited (docs/operations.md "Rate limits").
      addressLimit(request, 'authorize'),
    );
    if (!stored.begun) throw tooManyFromAddress(stored.secondsLeft);
    return reply.redirect(pageUrl(realm, session ? 'consent' : 'login', id), 303);
  }

  /** After sign-in: consent when it is needed, else the answer. */
  async continueAfterSignIn(reply: FastifyReply, realm: RequestRealm, resumed: ResumedTransaction, session: Session) {
    const { purpose } = resumed.transaction;
    if (purpose.kind === 'sign-in') {
      if (!(await this.store.authorizationFlow.finish(sha256(resumed.id)))) throw new TransactionGone();
      return reply.redirect(`${realm.issuer}/${purpose.returnTo}`, 303);
    }
    await this.store.authorizationFlow.signedIn(sha256(resumed.id), session.sid);
    // RFC 8628 §5.4: the person confirms every device request, so that a code read out by
    // someone else is not approved unseen.
    if (purpose.kind === 'device' || (await this.consentNeeded(realm, resumed.client!, session.userId, purpose.request))) {
      return reply.redirect(pageUrl(realm, 'consent', resumed.id), 303);
    }
    return this.allow(reply, realm, resumed, session);
  }

  /** Ends the transaction with the person's consent; a transaction finished already (a double submit) answers nothing. */
  async allow(reply: FastifyReply, realm: RequestRealm, resumed: ResumedTransaction, session: Session) {
    const { purpose } = await this.finish(resumed);
    if (purpose.kind === 'authorize') return this.deliverCode(reply, realm, purpose.request, session);
    if (purpose.kind === 'device') return this.answerDevice(reply, realm, purpose.pendingId, 'approved', session);
    throw new TransactionGone();
  }

  async deny(reply: FastifyReply, realm: RequestRealm, resumed: ResumedTransaction, session: Session) {
    const { purpose } = await this.finish(resumed);
    if (purpose.kind === 'authorize') {
      return redirectError(reply, realm, purpose.request, new OAuthError('access_denied', 'the person denied the request'));
    }
    if (purpose.kind === 'device') return this.answerDevice(reply, realm, purpose.pendingId, 'denied', session);
    throw new TransactionGone();
  }

  private async finish(resumed: ResumedTransaction): Promise<AuthorizationTransaction> {
    if (!(await this.store.authorizationFlow.finish(sha256(resumed.id)))) throw new TransactionGone();
    return resumed.transaction;
  }

  /** Records the answer the device's polls will find (RFC 8628 §3.5), and tells the person. */
  private async answerDevice(reply: FastifyReply, realm: RequestRealm, pendingId: string, decision: 'approved' | 'denied', session: Session) {
    const answered = await this.store.pendingAuthorizations.answer(realm.name, pendingId, decision, session);
    if (!answered) throw new TransactionGone();
    const page =
      decision === 'approved'
        ? messagePage({ realm: realm.name, title: 'Device connected', message: 'You may now return to your device.' })
        : messagePage({ realm: realm.name, title: 'Access denied', message: 'The device was not given access. You may close this page.' });
    return sendPage(reply, page.options, page.body);
  }

  /**
   * Consent is asked when the request says so (`prompt=consent`), else unless the person
   * allowed all these scopes before, or the realm lets the client skip it.
   */
  private async consentNeeded(realm: RequestRealm, client: Client, userId: string, authz: AuthorizationRequest): Promise<boolean> {
    if (authz.prompt.includes('consent')) return true;
    if (realm.settings.allow_consent_bypass && client.skip_consent) return false;
    const granted = await this.store.consents.granted(realm.name, userId, client.client_id);
    return granted === undefined || authz.scope.some((name) => !granted.includes(name));
  }

  /** RFC 6749 §4.1.2: a single-use code bound to the client, redirect URI, challenge and nonce. */
  private async deliverCode(reply: FastifyReply, realm: RequestRealm, authz: AuthorizationRequest, session: Session) {
    const code = randomSecret();
    await this.store.codes.insert(sha256(code), {
      realm: realm.name,
      clientId: authz.clientId,
      grantId: randomUUID(),
      userId: session.userId,
      sid: session.sid,
      scope: authz.scope.join(' '),
      redirectUri: authz.redirectUri,
      redirectUriGiven: authz.redirectUriGiven,
      codeChallenge: authz.codeChallenge,
      nonce: authz.nonce,
      authTime: session.authTime,
      amr: session.amr,
      acr: session.acr,
      expiresAt: new Date(Date.now() + realm.settings.code_lifetime * 1000),
    });
    return reply.redirect(redirectTo(authz.redirectUri, { code, state: authz.state, iss: realm.issuer }), 303);
  }
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

/** The transaction ended (finished, expired, or never existed) before this request. */
export class TransactionGone extends Error {
  override name = 'TransactionGone';
}

/** Whether the session walked the journey this transaction asks for. */
function walkedJourneyOf(realm: RequestRealm, purpose: TransactionPurpose, client: Client | undefined, session: Session): boolean {
  return journeyOfTransaction(realm, purpose, client)?.name === session.journey;
}

function isFreshEnough(session: Session, maxAge: number | undefined): boolean {
  return maxAge === undefined || Date.now() - session.authTime.getTime() <= maxAge * 1000;
}

export function pageUrl(realm: RequestRealm, page: 'login' | 'consent', transactionId: string): string {
  return `${realm.issuer}/${page}?transaction=${encodeURIComponent(transactionId)}`;
}
