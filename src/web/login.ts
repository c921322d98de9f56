import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AuditLog } from '../audit/audit-log.js';
import { type AuthorizationFlow, type ResumedTransaction, formTargetsOf } from './authorization-flow.js';
import type { Metrics } from '../http/metrics.js';
import type { BrowserCookies } from './browser-cookies.js';
import type { BruteForceGuard } from '../authn/brute-force.js';
import { sendAccountDisabled } from './disabled.js';
import { endOf } from '../authn/journeys/walk.js';
import type { JourneyProgress } from '../records/journey.js';
import type { SignInNodes } from '../authn/nodes/index.js';
import type { Shown } from '../authn/nodes/node.js';
import type { RiskAssessor } from '../authn/risk.js';
import { SignInCore, type SignInRequest, type SignInWalk, attemptOf } from '../authn/sign-in.js';
import { storedWalkOf } from '../authn/transaction-journey.js';
import { describedByDocument } from '../clients/metadata-document-url.js';
import { OAuthError } from '../errors.js';
import { formParams } from '../http/form-params.js';
import { type Broker, providersOfferedAt } from '../identity-providers/broker.js';
import { UpstreamFailure, failureDetails } from '../identity-providers/failures.js';
import { passkeyScripts } from '../pages/assets/scripts.js';
import { clientBrand } from '../pages/branding.js';
import { signInPage } from '../pages/forms.js';
import { type Text } from '../pages/i18n/index.js';
import { localeOf, messagesOf } from './locale.js';
import { sendPage } from './send-page.js';
import { sendFailurePage, wayBackOfTransaction } from './failure-page.js';
import { type SignInView, passkeyAlternativeBody, providerAlternativeBody, signInBody, titleOf } from '../pages/sign-in/views.js';
import { countAddress } from '../rate-limits/rate-limits.js';
import type { RequestRealm } from '../records/realm.js';
import type { Store } from '../store/index.js';
import { sha256 } from '../secrets.js';
import { GET_ONLY, InvalidFormError } from './page-routes.js';

export interface SignInDeps {
  store: Store;
  flow: AuthorizationFlow;
  cookies: BrowserCookies;
  metrics: Metrics;
  /** The nodes of the person's this server runs (src/authn/nodes/). */
  nodes: SignInNodes;
  bruteForce: BruteForceGuard;
  risk: RiskAssessor;
  audit: AuditLog;
  /** Sign-in through the realm's upstream providers (src/identity-providers/). */
  broker: Broker;
}

const FORM_FIELDS = [
  ...['transaction', 'csrf', 'step', 'option', 'username', 'password', 'otp', 'recovery_code', 'credential', 'passkey_name', 'unavailable', 'provider'],
  ...['email', 'given_name', 'family_name', 'resend'],
];

/**
 * The sign-in page of a transaction: a driver of the sign-in core (src/authn/sign-in.ts),
 * which walks the transaction's journey (CONTRACT.md §8), one page per node of the person's,
 * the progress kept in the transaction so that any instance serves the next page. The core
 * counts, checks and records each step; this page turns its results into pages. At `done` a
 * session starts (stored in the database, its secret in a cookie) with what the core says a
 * session records; at `deny` the sign-in is refused.
 */
export function loginPage(deps: SignInDeps): FastifyPluginAsync {
  const { store, flow, cookies, broker } = deps;

  return async (app) => {
    const core = new SignInCore({ store, nodes: deps.nodes, bruteForce: deps.bruteForce, risk: deps.risk, audit: deps.audit });

    /** This request of the sign-in, as the core knows it. */
    function signInRequestOf(request: FastifyRequest, reply: FastifyReply, resumed: ResumedTransaction): SignInRequest {
      return {
        realm: request.realm,
        address: request.ip,
        via: 'sign_in_page',
        clientId: resumed.client?.client_id,
        transactionId: resumed.id,
        locale: localeOf(request),
        log: request.log,
        device: () => cookies.device(request, reply, request.realm),
      };
    }

    /** The transaction's journey and where it stands, its decided nodes taken. */
    async function walkOf(signIn: SignInRequest, resumed: ResumedTransaction): Promise<SignInWalk | undefined> {
      const stored = storedWalkOf(signIn.realm, resumed);
      return stored && core.resume(signIn, stored.selected, stored.progress);
    }

    /** The page of the node the person stands at, with the other ways through it. */
    async function showNode(
      reply: FastifyReply,
      signIn: SignInRequest,
      resumed: ResumedTransaction,
      walk: SignInWalk,
      shown: Shown & { error?: Text; notice?: Text; status?: number } = {},
    ) {
      const { realm } = signIn;
      const t = messagesOf(reply.request);
      const node = core.nodeOf(walk);
      const hidden = { transaction: resumed.id, csrf: cookies.csrfToken(resumed.browserHash, resumed.id), step: walk.progress.node };
      const providers = await broker.offered(realm.name, providersOfferedAt(node, walk.progress.userId !== undefined));
      const view: SignInView | undefined =
        node.type === 'identity_provider'
          ? providers[0] && { kind: 'identity_provider', provider: broker.buttonOf(providers[0]) }
          : await core.view(signIn, walk, shown);
      if (!view) return unavailable(reply, resumed);

      // A passwordless passkey beside the password, when the password node offers one.
      const passkey = await core.passkeyAlternative(signIn, walk);
      const alternatives = [
        ...(passkey ? [{ body: passkeyAlternativeBody(t, passkey.options), hidden: { step: passkey.node } }] : []),
        // The realm's providers beside a password form, each a form of its own (CONTRACT.md §10).
        ...(node.type === 'password' ? providers.map((provider) => ({ body: providerAlternativeBody(t, broker.buttonOf(provider)), hidden: {} })) : []),
      ];
      const page = signInPage(t, {
        title: titleOf(t, view),
        client: resumed.client && clientBrand(resumed.client, describedByDocument(resumed.client), localeOf(reply.request)),
        hidden,
        step: { body: signInBody(t, view), hidden: {} },
        alternatives,
        error: shown.error?.(t),
        notice: shown.notice?.(t),
        status: shown.status,
        formTargets: [...formTargetsOf(resumed.transaction.purpose), ...broker.formTargets(providers)],
        scripts: view.kind === 'passkey' || passkey ? passkeyScripts(realm.issuer) : [],
      });
      return sendPage(reply, page.options, page.body);
    }

    /**
     * A provider's button was posted: the person goes to the upstream provider, and the progress
     * is kept for the callback (src/web/broker.ts), which passes the node on their return.
     */
    async function beginUpstream(reply: FastifyReply, signIn: SignInRequest, resumed: ResumedTransaction, walk: SignInWalk, at: JourneyProgress, alias: string | undefined) {
      if (alias === undefined) return showNode(reply, signIn, resumed, walk);
      const offer = providersOfferedAt(core.nodeOf({ ...walk, progress: at }), at.userId !== undefined);
      try {
        const url = await broker.begin(signIn.realm, offer, alias, { transactionId: resumed.id, node: at.node });
        await store.authorizationFlow.saveProgress(sha256(resumed.id), walk.progress);
        return reply.redirect(url, 303);
      } catch (error) {
        if (!(error instanceof UpstreamFailure)) throw error;
        reply.request.log.warn({ provider: alias, ...failureDetails(error) }, 'sign-in through an upstream provider could not begin');
        const { kind, providerName } = error;
        return showNode(reply, signIn, resumed, walk, { error: (t) => t.upstream[kind](providerName), status: error.status });
      }
    }

    /** The journey ended: a session at `done`, a refusal at `deny`; else the next page. */
    async function afterStep(reply: FastifyReply, signIn: SignInRequest, resumed: ResumedTransaction, walk: SignInWalk) {
      const { realm } = signIn;
      const end = core.end(signIn, walk);
      if (end === 'done') {
        deps.metrics.signIns.inc({ outcome: 'success' });
        return flow.signedIn(reply.request, reply, resumed, { ...core.signedIn(walk), attempt: attemptOf(signIn) });
      }
      if (end === 'deny') return refused(reply, realm, resumed);
      await store.authorizationFlow.saveProgress(sha256(resumed.id), walk.progress);
      return reply.redirect(`${realm.issuer}/login?transaction=${encodeURIComponent(resumed.id)}`, 303);
    }

    /** `deny`: the transaction ends; an authorization request goes back to its client with access_denied. */
    async function refused(reply: FastifyReply, realm: RequestRealm, resumed: ResumedTransaction) {
      if (!(await store.authorizationFlow.finish(sha256(resumed.id)))) return unavailable(reply, resumed);
      const { purpose } = resumed.transaction;
      if (purpose.kind === 'authorize') return flow.responses.redirectError(reply, realm, purpose.request, new OAuthError('access_denied', 'the sign-in was refused'));
      const t = messagesOf(reply.request);
      const page = { title: t.errors.cannotSignIn, message: t.errors.signInRefused, status: 403, error: 'sign_in_refused' };
      return sendFailurePage(reply.request, reply, page, wayBackOfTransaction(reply.request, resumed));
    }

    app.get('/login', GET_ONLY, async (request, reply) => {
      const resumed = await flow.resume(request, request.realm, formParams(request.query, ['transaction']).transaction);
      const signIn = signInRequestOf(request, reply, resumed);
      const walk = await walkOf(signIn, resumed);
      if (!walk) return unavailable(reply, resumed);
      if (endOf(walk.selected.journey, walk.progress) !== undefined) return afterStep(reply, signIn, resumed, walk);
      // Each page with a passkey ceremony stores a challenge: counted like the transactions (docs/operations.md "Rate limits").
      if (Object.values(walk.selected.journey.nodes).some((node) => node.type === 'passkey')) await countAddress(store.attemptCounters, request, 'authorize');
      const { purpose } = resumed.transaction;
      return showNode(reply, signIn, resumed, walk, { username: purpose.kind === 'authorize' ? purpose.request.loginHint : undefined });
    });

    app.post('/login', async (request, reply) => {
      const realm = request.realm;
      const form = formParams(request.body, FORM_FIELDS);
      const resumed = await flow.resume(request, realm, form.transaction);
      if (!cookies.csrfTokenMatches(request, realm, resumed.id, form.csrf)) throw new InvalidFormError();
      const signIn = signInRequestOf(request, reply, resumed);
      const walk = await walkOf(signIn, resumed);
      if (!walk) return unavailable(reply, resumed);
      if (endOf(walk.selected.journey, walk.progress) !== undefined) return afterStep(reply, signIn, resumed, walk);

      const step = await core.submit(signIn, walk, form);
      const again = (error: Text, extra: { status?: number } = {}) => showNode(reply, signIn, resumed, walk, { error, username: form.username, form, ...extra });
      switch (step.kind) {
        case 'moved':
          return afterStep(reply, signIn, resumed, step.walk);
        case 'unchanged':
          return showNode(reply, signIn, resumed, walk);
        case 'upstream':
          return beginUpstream(reply, signIn, resumed, walk, step.at, step.alias);
        case 'unavailable':
          return unavailable(reply, resumed);
        case 'locked':
          reply.header('retry-after', String(step.wait));
          return again((t) => t.signIn.lockedOut(Math.ceil(step.wait / 60)), { status: 429 });
        case 'refused':
          if (step.counted) deps.metrics.signIns.inc({ outcome: 'failure' });
          return again(step.error);
        case 'again':
          return reply.redirect(`${realm.issuer}/login?transaction=${encodeURIComponent(resumed.id)}`, 303);
        case 'notice':
          return showNode(reply, signIn, resumed, walk, { notice: step.notice });
        case 'disabled':
          return sendAccountDisabled(request, reply, resumed);
      }
    });
  };
}

/** A journey this sign-in cannot walk: the client names one the realm does not have. */
function unavailable(reply: FastifyReply, resumed: ResumedTransaction) {
  const t = messagesOf(reply.request);
  const page = { title: t.errors.cannotSignIn, message: t.errors.signInUnavailable, status: 400, error: 'sign_in_unavailable' };
  return sendFailurePage(reply.request, reply, page, wayBackOfTransaction(reply.request, resumed));
}
