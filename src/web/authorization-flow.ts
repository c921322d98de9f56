import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuditLog } from '../audit/audit-log.js';
import { recordSignInFailed, signInSucceeded } from '../audit/sign-in.js';
import { OAuthError } from '../errors.js';
import { messagePage } from '../pages/forms.js';
import { chosenForLaterOf, chosenLocaleOf, messagesOf } from './locale.js';
import { sendPage } from './send-page.js';
import { tooManyFromAddress, uncountedAddressLimit } from '../rate-limits/rate-limits.js';
import type { RequestRealm } from '../records/realm.js';
import type { AuthorizationRequest } from '../records/authorization-request.js';
import { UntrustedRedirectError } from '../requests/authorization-request.js';
import type { Subjects } from '../tokens/subject.js';
import { answersAskedSubject } from '../requests/claims-request.js';
import type { Client } from '../store/clients.js';
import type { TransactionEnding, TransactionPurpose } from '../store/authorization-flow.js';
import type { Store } from '../store/index.js';
import type { Session } from '../store/sessions.js';
import { randomSecret, sha256 } from '../secrets.js';
import type { BrowserCookies } from './browser-cookies.js';
import { sendCannotSignIn } from './disabled.js';
import { type AuthorizationResponses, newCode } from './authorization-response.js';
import { followFlowLocale, followSessionLocale } from './followed-locale.js';
import type { ClientDirectory } from '../clients/metadata-document-clients.js';
import { journeyFacts } from '../authn/journey-facts.js';
import { type RiskAssessor, networkOf } from '../authn/risk.js';
import { type SessionFit, sessionFit } from '../authn/session-fit.js';
import { SESSION_LIFETIME_SECONDS, firstSignInPage, isFreshEnough, needsConsent, remainingLifetimeOf, withAcrOf } from '../authn/transaction-rules.js';
import { journeyOfTransaction } from '../authn/transaction-journey.js';
import { type CompletedJourney, type Decision, type ResumedTransaction, TransactionGone, pageUrl } from './transaction.js';

export { redirectTo } from './authorization-response.js';
export { type CompletedJourney, type Decision, type ResumedTransaction, TransactionGone, pageUrl } from './transaction.js';
export { formTargetsOf, requestedScopeOf } from '../authn/transaction-rules.js';

/** How long a person may take between /authorize and the last page. */
const TRANSACTION_LIFETIME_SECONDS = 30 * 60;

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
    private readonly risk: RiskAssessor,
    private readonly clients: ClientDirectory,
    /** How the flow answers the client; the routes that answer it before a flow begins use it too. */
    readonly responses: AuthorizationResponses,
    private readonly subjects: Pick<Subjects, 'for'>,
    private readonly audit: AuditLog,
  ) {}

  /** The person's unexpired session at this realm, from the session cookie. */
  async currentSession(request: FastifyRequest, realm: RequestRealm): Promise<Session | undefined> {
    const secret = this.cookies.sessionSecret(request, realm);
    if (secret === undefined) return undefined;
    const session = await this.store.sessions.find(sha256(secret), realm.name);
    await followSessionLocale(this.store, request, sha256(secret), session);
    return session;
  }

  /**
   * The transaction a page continues, with its client: only in the browser that began it,
   * and only while it lasts.
   */
  async resume(request: FastifyRequest, realm: RequestRealm, transactionId: string | undefined): Promise<ResumedTransaction> {
    if (transactionId === undefined) throw new TransactionGone();
    const sessionSecret = this.cookies.sessionSecret(request, realm);
    const found = await this.store.authorizationFlow.find(sha256(transactionId), realm.name, sessionSecret === undefined ? undefined : sha256(sessionSecret));
    const { transaction, session } = found ?? {};
    const browserHash = this.cookies.browserHash(request, realm);
    if (!transaction || !browserHash || !timingSafeEqual(browserHash, transaction.browserHash)) throw new TransactionGone();
    let client: Client | undefined;
    if (transaction.clientId !== undefined) {
      client = await this.clients.get(realm, transaction.clientId);
      if (!client) throw new TransactionGone();
    }
    // The sign-in's pages speak the language its request asked for, or its pages chose (CONTRACT.md §10, §16).
    if (sessionSecret !== undefined) await followSessionLocale(this.store, request, sha256(sessionSecret), session);
    await followFlowLocale(this.store, request, sha256(transactionId), transaction);
    const { purpose } = transaction;
    // An admin may have removed the redirect URI since the request came: nothing goes there now.
    if (purpose.kind === 'authorize' && !client?.redirect_uris.includes(purpose.request.redirectUri)) {
      throw new UntrustedRedirectError('the redirect URI is no longer registered for this client');
    }
    return { id: transactionId, transaction, client, browserHash, session };
  }

  /** Starts the flow for a validated request: the code at once when nothing is to be asked. */
  async start(request: FastifyRequest, reply: FastifyReply, realm: RequestRealm, client: Client, authz: AuthorizationRequest) {
    const secret = this.cookies.sessionSecret(request, realm);
    const current = secret === undefined ? undefined : await this.store.sessions.findWithConsent(sha256(secret), realm.name, client.client_id);
    const session = current?.session;
    const purpose: TransactionPurpose = { kind: 'authorize', request: authz };
    // `max_age` and `prompt=login` ask for the whole journey again (CONTRACT.md §8); `prompt=create`
    // for a new person's. OIDC Core §3.1.2.2: a request for a given `sub` is answered only for that person's session.
    const fit = !authz.prompt.includes('login') && !authz.prompt.includes('create') && session && isFreshEnough(session, authz.maxAge) && answersAskedSubject(authz.claims, this.subjects.for(client, session.userId))
      ? await this.fitOf(request, reply, realm, purpose, client, session)
      : undefined;
    const usable = fit?.kind === 'fits' ? fit.session : undefined;
    const consentNeeded = !usable || needsConsent(realm, client, authz, current?.consented);

    if (authz.prompt.includes('none')) {
      // OIDC Core §3.1.2.6: nothing may be shown, so whatever would be shown is an error.
      if (fit?.kind === 'step-up') return this.responses.redirectError(reply, realm, authz, new OAuthError('interaction_required', 'the sign-in must go on for this request'));
      if (!usable) return this.responses.redirectError(reply, realm, authz, new OAuthError('login_required', 'the person is not signed in'));
      if (consentNeeded) return this.responses.redirectError(reply, realm, authz, new OAuthError('consent_required', 'the person has not allowed this'));
    }
    if (usable && !consentNeeded) {
      const code = newCode(realm, authz, withAcrOf(realm, purpose, client, usable));
      await this.store.codes.insert(code.hash, code.code);
      return this.responses.deliverCode(reply, realm, authz, code.value);
    }
    return this.begin(request, reply, realm, { clientId: client.client_id, purpose, fit });
  }

  /**
   * What the browser's session is worth for a transaction (CONTRACT.md §8): the transaction's
   * journey walked for its client and the session's person (src/authn/session-fit.ts).
   */
  async fitOf(
    request: FastifyRequest,
    reply: FastifyReply,
    realm: RequestRealm,
    purpose: TransactionPurpose,
    client: Client | undefined,
    session: Session | undefined,
  ): Promise<SessionFit | undefined> {
    const selected = session && journeyOfTransaction(realm, purpose, client);
    if (!session || !selected) return undefined;
    const source = () => ({ device: this.cookies.device(request, reply, realm), address: request.ip });
    return sessionFit(selected, session, journeyFacts({ store: this.store, risk: this.risk }, realm, { source, clientId: client?.client_id }));
  }

  /**
   * Begins a transaction and sends the person to its first page: consent when a session
   * stands for it already, else sign-in: where a step-up stands (the session's person, the
   * nodes it has not passed), or from the start.
   */
  async begin(
    request: FastifyRequest,
    reply: FastifyReply,
    realm: RequestRealm,
    begun: { clientId: string | undefined; purpose: TransactionPurpose; fit: SessionFit | undefined },
  ) {
    const session = begun.fit?.kind === 'fits' ? begun.fit.session : undefined;
    const id = randomSecret();
    const stored = await this.store.authorizationFlow.begin(
      sha256(id),
      {
        realm: realm.name,
        clientId: begun.clientId,
        browserHash: this.cookies.bindBrowser(request, reply, realm),
        purpose: begun.purpose,
        sid: session?.sid,
        progress: begun.fit?.kind === 'step-up' ? begun.fit.progress : undefined,
        lifetimeSeconds: TRANSACTION_LIFETIME_SECONDS,
        locale: chosenLocaleOf(request),
      },
      // Anyone may begin one without signing in: the rows an address makes are limited (docs/operations.md "Rate limits"),
      // once per request: a request whose fetch of a client's document was counted there is not counted again.
      uncountedAddressLimit(request, 'authorize'),
    );
    if (!stored.begun) throw tooManyFromAddress(stored.secondsLeft);
    return reply.redirect(pageUrl(realm, session ? 'consent' : firstSignInPage(begun.purpose), id), 303);
  }

  /**
   * The transaction's journey reached `done`: the session starts (its cookie set, the browser's
   * previous session replaced), in one statement with what comes with it (src/store/authorization-flow.ts
   * signedIn), and the flow goes on: back to the page of a plain sign-in, to consent when it is
   * needed, else the answer.
   */
  async signedIn(request: FastifyRequest, reply: FastifyReply, resumed: ResumedTransaction, done: CompletedJourney) {
    const realm = request.realm;
    const { purpose } = resumed.transaction;
    const secret = randomSecret();
    const previous = this.cookies.sessionSecret(request, realm);
    // A step-up completes the browser's session: only while it is still the one it began from
    // (not signed out, not another person's since), and the new one keeps its sign-in time and end.
    const completed = done.stepUpOf === undefined ? undefined : resumed.session;
    if (done.stepUpOf !== undefined && completed?.sid !== done.stepUpOf) throw new TransactionGone();
    const lifetimeSeconds = completed ? remainingLifetimeOf(completed) : SESSION_LIFETIME_SECONDS;
    const event = this.audit.prepare(signInSucceeded(done.attempt, done), realm.settings.audit_event_lifetime);
    const written = await this.store.authorizationFlow.signedIn(sha256(resumed.id), {
      secretHash: sha256(secret),
      session: {
        realm: realm.name,
        userId: done.userId,
        authTime: completed?.authTime ?? new Date(),
        amr: done.amr,
        journey: done.journey,
        acr: done.acr,
        nodes: done.nodes,
        lifetimeSeconds,
        passwordOf: done.passwordOf,
        // The pages after the sign-in, and its mails, speak the language chosen for it (CONTRACT.md §16).
        locale: chosenForLaterOf(request),
      },
      replaces: previous === undefined ? undefined : sha256(previous),
      completes: completed?.sid,
      finish: purpose.kind === 'sign-in',
      source: networkOf({ device: this.cookies.device(request, reply, realm), address: request.ip }),
      event: event.row,
      consentOf: purpose.kind === 'authorize' ? resumed.client?.client_id : undefined,
    });
    if (!written) {
      // Disabled (or deleted), or the password checked changed, while signing in: no session
      // began, and the browser's previous one ended.
      this.cookies.clearSession(reply, realm);
      const enabled = (await this.store.users.getById(realm.name, done.userId))?.enabled === true;
      // The session a step-up completed ended meanwhile (a sign-out, a password change): it begins again.
      if (completed && enabled) throw new TransactionGone();
      const changed = done.passwordOf !== undefined && enabled;
      recordSignInFailed(this.audit, done.attempt, { step: 'done', username: undefined, userId: done.userId, reason: changed ? 'password_changed' : 'disabled' });
      return sendCannotSignIn(request, reply, changed ? 'passwordChangedDuringSignIn' : 'accountDisabled', resumed);
    }
    this.cookies.setSession(reply, realm, secret, lifetimeSeconds);
    event.committed();
    if (!written.found) throw new TransactionGone();
    if (purpose.kind === 'sign-in') return reply.redirect(`${realm.issuer}/${purpose.returnTo}`, 303);
    // RFC 8628 §5.4: the person confirms every device request, so that a code read out by
    // someone else is not approved unseen.
    if (purpose.kind === 'device' || needsConsent(realm, resumed.client!, purpose.request, written.consented)) {
      return reply.redirect(pageUrl(realm, 'consent', resumed.id), 303);
    }
    return this.allow(reply, realm, resumed, written.session);
  }

  /**
   * Ends the transaction with the person's consent: the code (or the device's approval) and
   * what the person decided are written with its end. A transaction finished already (a
   * double submit) answers nothing.
   */
  async allow(reply: FastifyReply, realm: RequestRealm, resumed: ResumedTransaction, session: Session, decision: Decision = {}) {
    const { purpose } = resumed.transaction;
    const consent = decision.consent &&
      resumed.client && {
        realm: realm.name,
        userId: session.userId,
        clientId: resumed.client.client_id,
        scope: decision.consent,
        resources: purpose.kind === 'authorize' ? purpose.request.resource : undefined,
      };
    if (purpose.kind === 'authorize') {
      // The asked `sub` is the one the client sees (OpenID Connect Core §8).
      if (!resumed.client || !answersAskedSubject(purpose.request.claims, this.subjects.for(resumed.client, session.userId))) {
        await this.finish(resumed, decision);
        return this.responses.redirectError(reply, realm, purpose.request, new OAuthError('access_denied', 'the person who signed in is not the one the request asked for'));
      }
      const code = newCode(realm, purpose.request, withAcrOf(realm, purpose, resumed.client, session));
      await this.finish(resumed, decision, { consent, code });
      return this.responses.deliverCode(reply, realm, purpose.request, code.value);
    }
    await this.finish(resumed, decision, { consent });
    if (purpose.kind === 'device') return this.answerDevice(reply, realm, purpose.pendingId, 'approved', session);
    throw new TransactionGone();
  }

  async deny(reply: FastifyReply, realm: RequestRealm, resumed: ResumedTransaction, session: Session, decision: Decision = {}) {
    const { purpose } = resumed.transaction;
    await this.finish(resumed, decision);
    if (purpose.kind === 'authorize') {
      return this.responses.redirectError(reply, realm, purpose.request, new OAuthError('access_denied', 'the person denied the request'));
    }
    if (purpose.kind === 'device') return this.answerDevice(reply, realm, purpose.pendingId, 'denied', session);
    throw new TransactionGone();
  }

  private async finish(resumed: ResumedTransaction, decision: Decision, ending: TransactionEnding = {}): Promise<void> {
    if (!(await this.store.authorizationFlow.finish(sha256(resumed.id), { ...ending, event: decision.event?.row }))) throw new TransactionGone();
    decision.event?.committed();
  }

  /** Records the answer the device's polls will find (RFC 8628 §3.5), and tells the person. */
  private async answerDevice(reply: FastifyReply, realm: RequestRealm, pendingId: string, decision: 'approved' | 'denied', session: Session) {
    const answered = await this.store.pendingAuthorizations.answer(realm.name, pendingId, decision, session);
    if (!answered) throw new TransactionGone();
    const t = messagesOf(reply.request);
    const page =
      decision === 'approved'
        ? messagePage(t, { title: t.device.connectedTitle, message: t.device.connected })
        : messagePage(t, { title: t.device.deniedTitle, message: t.device.denied });
    return sendPage(reply, page.options, page.body);
  }

}

