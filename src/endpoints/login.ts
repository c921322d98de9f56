import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { type SignInAttempt, recordSignInFailed } from '../audit/sign-in.js';
import { type AuthorizationFlow, type ResumedTransaction, formTargetsOf, redirectError } from '../authn/authorization-flow.js';
import type { BrowserCookies } from '../authn/browser.js';
import type { BruteForceGuard } from '../authn/brute-force.js';
import { sendAccountDisabled } from '../authn/disabled.js';
import { journeyFacts } from '../authn/journey-facts.js';
import { finalAmr } from '../authn/journeys/amr.js';
import type { JourneyNode } from '../authn/journeys/graph.js';
import type { SelectedJourney } from '../authn/journeys/select.js';
import { type JourneyProgress, PersonChanged, currentNode, endOf, follow, settle } from '../authn/journeys/walk.js';
import type { SignInNodes } from '../authn/nodes/index.js';
import type { NodeContext, NodeRunner, Shown } from '../authn/nodes/node.js';
import type { RiskAssessor } from '../authn/risk.js';
import { storedWalkOf } from '../authn/transaction-journey.js';
import { OAuthError } from '../errors.js';
import { formParams } from '../http/form-params.js';
import { type Broker, providersOfferedAt } from '../identity-providers/broker.js';
import { UpstreamFailure, failureDetails } from '../identity-providers/failures.js';
import { passkeyScripts } from '../pages/assets/scripts.js';
import { clientBrand } from '../pages/branding.js';
import { messagePage, signInPage } from '../pages/forms.js';
import { type Text, localeOf, messagesOf } from '../pages/i18n/index.js';
import { sendPage } from '../pages/layout.js';
import { type SignInView, passkeyAlternativeBody, providerAlternativeBody, signInBody, titleOf } from '../pages/sign-in/views.js';
import { countAddress } from '../rate-limits/rate-limits.js';
import type { Store } from '../store/index.js';
import { sha256 } from '../tokens/secrets.js';
import { GET_ONLY, InvalidFormError } from './page-routes.js';

export interface SignInDeps {
  store: Store;
  flow: AuthorizationFlow;
  cookies: BrowserCookies;
  /** The nodes of the person's this server runs (src/authn/nodes/). */
  nodes: SignInNodes;
  bruteForce: BruteForceGuard;
  risk: RiskAssessor;
  /** Sign-in through the realm's upstream providers (src/identity-providers/). */
  broker: Broker;
}

const FORM_FIELDS = [
  ...['transaction', 'csrf', 'step', 'option', 'username', 'password', 'otp', 'recovery_code', 'credential', 'passkey_name', 'unavailable', 'provider'],
  ...['email', 'given_name', 'family_name', 'resend'],
];

/** Where a sign-in stands: its journey, and the progress through it (decided nodes taken). */
interface Walk {
  readonly selected: SelectedJourney;
  readonly progress: JourneyProgress;
}

/**
 * The sign-in page of a transaction: it walks the transaction's journey (CONTRACT.md §8) with
 * the engine of src/authn/journeys/, one page per node of the person's, the progress kept in
 * the transaction so that any instance serves the next page. Each check of a credential takes
 * a place within the brute-force limits per account and per address before it runs
 * (src/authn/brute-force.ts). At `done` a session starts (stored in the database, its secret in
 * a cookie) with the methods that passed as its `amr` and the journey's `acr`; at `deny` the
 * sign-in is refused.
 */
export function loginPage(deps: SignInDeps): FastifyPluginAsync {
  const { store, flow, cookies, bruteForce, risk, nodes, broker } = deps;

  const runnerOf = (node: JourneyNode): NodeRunner | undefined => (Object.hasOwn(nodes, node.type) ? nodes[node.type as keyof SignInNodes] : undefined);

  function contextOf(request: FastifyRequest, resumed: ResumedTransaction, progress: JourneyProgress): NodeContext {
    return {
      realm: request.realm,
      transactionId: resumed.id,
      userId: progress.userId,
      address: request.ip,
      locale: localeOf(request),
      audit: request.server.audit,
      log: request.log,
    };
  }

  /** The transaction's journey and where it stands, its decided nodes taken. */
  async function walkOf(request: FastifyRequest, reply: FastifyReply, resumed: ResumedTransaction): Promise<Walk | undefined> {
    const stored = storedWalkOf(request.realm, resumed);
    if (!stored) return undefined;
    return { selected: stored.selected, progress: await settle(stored.selected.journey, stored.progress, factsOf(request, reply, resumed)) };
  }

  /** Takes the decided nodes after a step of the person's. */
  async function resettle(request: FastifyRequest, reply: FastifyReply, resumed: ResumedTransaction, walk: Walk, moved: JourneyProgress): Promise<Walk> {
    return { selected: walk.selected, progress: await settle(walk.selected.journey, moved, factsOf(request, reply, resumed)) };
  }

  function factsOf(request: FastifyRequest, reply: FastifyReply, resumed: ResumedTransaction) {
    const source = () => ({ device: cookies.device(request, reply, request.realm), address: request.ip });
    return journeyFacts({ store, risk }, request.realm, { source, clientId: resumed.client?.client_id });
  }

  /** The page of the node the person stands at, with the other ways through it. */
  async function showNode(
    request: FastifyRequest,
    reply: FastifyReply,
    resumed: ResumedTransaction,
    walk: Walk,
    shown: Shown & { error?: Text; notice?: Text; status?: number } = {},
  ) {
    const realm = request.realm;
    const t = messagesOf(request);
    const { journey } = walk.selected;
    const node = currentNode(journey, walk.progress);
    const context = contextOf(request, resumed, walk.progress);
    const hidden = { transaction: resumed.id, csrf: cookies.csrfToken(resumed.browserHash, resumed.id), step: walk.progress.node };
    const runner = runnerOf(node);
    const providers = await broker.offered(realm.name, providersOfferedAt(node, walk.progress.userId !== undefined));
    const view: SignInView | undefined =
      node.type === 'choice'
        ? { kind: 'choice', labels: node.options.map((option) => option.label) }
        : node.type === 'identity_provider'
          ? providers[0] && { kind: 'identity_provider', provider: broker.buttonOf(providers[0]) }
          : await runner?.view(context, node, shown);
    if (!view) return unavailable(reply);

    // A passwordless passkey beside the password, when the password node offers one.
    const passkeyNode = alternativePasskeyNode(node, walk.progress);
    const alternatives = [
      ...(passkeyNode ? [{ body: passkeyAlternativeBody(t, await nodes.passkey.passwordlessOptions(context)), hidden: { step: passkeyNode } }] : []),
      // The realm's providers beside a password form, each a form of its own (CONTRACT.md §10).
      ...(node.type === 'password' ? providers.map((provider) => ({ body: providerAlternativeBody(t, broker.buttonOf(provider)), hidden: {} })) : []),
    ];
    const page = signInPage(t, {
      title: titleOf(t, view),
      client: resumed.client && clientBrand(resumed.client),
      hidden,
      step: { body: signInBody(t, view), hidden: {} },
      alternatives,
      error: shown.error?.(t),
      notice: shown.notice?.(t),
      status: shown.status,
      formTargets: [...formTargetsOf(resumed.transaction.purpose), ...broker.formTargets(providers)],
      scripts: view.kind === 'passkey' || passkeyNode ? passkeyScripts(realm.issuer) : [],
    });
    return sendPage(reply, page.options, page.body);
  }

  /**
   * A provider's button was posted: the person goes to the upstream provider, and the progress
   * is kept for the callback (src/endpoints/broker.ts), which passes the node on their return.
   */
  async function beginUpstream(request: FastifyRequest, reply: FastifyReply, resumed: ResumedTransaction, walk: Walk, at: JourneyProgress, alias: string | undefined) {
    if (alias === undefined) return showNode(request, reply, resumed, walk);
    const offer = providersOfferedAt(currentNode(walk.selected.journey, at), at.userId !== undefined);
    try {
      const url = await broker.begin(request.realm, offer, alias, { transactionId: resumed.id, node: at.node });
      await store.authorizationFlow.saveProgress(sha256(resumed.id), walk.progress);
      return reply.redirect(url, 303);
    } catch (error) {
      if (!(error instanceof UpstreamFailure)) throw error;
      request.log.warn({ provider: alias, ...failureDetails(error) }, 'sign-in through an upstream provider could not begin');
      const { kind, providerName } = error;
      return showNode(request, reply, resumed, walk, { error: (t) => t.upstream[kind](providerName), status: error.status });
    }
  }

  /** The journey ended: a session at `done`, a refusal at `deny`; else the next page. */
  async function afterStep(request: FastifyRequest, reply: FastifyReply, resumed: ResumedTransaction, walk: Walk) {
    const realm = request.realm;
    const end = endOf(walk.selected.journey, walk.progress);
    if (end === 'done') {
      request.server.metrics.signIns.inc({ outcome: 'success' });
      return signedIn(request, reply, resumed, walk);
    }
    if (end === 'deny') return refused(request, reply, resumed, walk.progress);
    await store.authorizationFlow.saveProgress(sha256(resumed.id), walk.progress);
    return reply.redirect(`${realm.issuer}/login?transaction=${encodeURIComponent(resumed.id)}`, 303);
  }

  /** `done`: the session starts, and the flow goes on. */
  function signedIn(request: FastifyRequest, reply: FastifyReply, resumed: ResumedTransaction, walk: Walk) {
    return flow.signedIn(request, reply, resumed, {
      userId: walk.progress.userId!,
      amr: finalAmr(walk.progress.amr),
      passwordOf: walk.progress.passwordOf,
      journey: walk.selected.name,
      acr: walk.selected.acr,
      nodes: walk.progress.nodes ?? [],
      stepUpOf: walk.progress.stepUpOf,
      attempt: attemptOf(request, resumed),
    });
  }

  /** `deny`: the transaction ends; an authorization request goes back to its client with access_denied. */
  async function refused(request: FastifyRequest, reply: FastifyReply, resumed: ResumedTransaction, progress: JourneyProgress) {
    const realm = request.realm;
    recordSignInFailed(request.server.audit, attemptOf(request, resumed), { step: progress.node, username: undefined, userId: progress.userId, reason: 'denied' });
    if (!(await store.authorizationFlow.finish(sha256(resumed.id)))) return unavailable(reply);
    const { purpose } = resumed.transaction;
    if (purpose.kind === 'authorize') return redirectError(reply, realm, purpose.request, new OAuthError('access_denied', 'the sign-in was refused'));
    const t = messagesOf(request);
    const view = messagePage(t, { title: t.errors.cannotSignIn, message: t.errors.signInRefused, status: 403 });
    return sendPage(reply, view.options, view.body);
  }

  return async (app) => {
    app.get('/login', GET_ONLY, async (request, reply) => {
      const resumed = await flow.resume(request, request.realm, formParams(request.query, ['transaction']).transaction);
      const walk = await walkOf(request, reply, resumed);
      if (!walk) return unavailable(reply);
      if (endOf(walk.selected.journey, walk.progress) !== undefined) return afterStep(request, reply, resumed, walk);
      // Each page with a passkey ceremony stores a challenge: counted like the transactions (docs/operations.md "Rate limits").
      if (Object.values(walk.selected.journey.nodes).some((node) => node.type === 'passkey')) await countAddress(store.attemptCounters, request, 'authorize');
      const { purpose } = resumed.transaction;
      return showNode(request, reply, resumed, walk, { username: purpose.kind === 'authorize' ? purpose.request.loginHint : undefined });
    });

    app.post('/login', async (request, reply) => {
      const realm = request.realm;
      const form = formParams(request.body, FORM_FIELDS);
      const resumed = await flow.resume(request, realm, form.transaction);
      if (!cookies.csrfTokenMatches(request, realm, resumed.id, form.csrf)) throw new InvalidFormError();
      const walk = await walkOf(request, reply, resumed);
      if (!walk) return unavailable(reply);
      const { journey } = walk.selected;
      const { progress } = walk;
      if (endOf(journey, progress) !== undefined) return afterStep(request, reply, resumed, walk);
      const current = currentNode(journey, progress);

      // The form of the node the person stands at, or of the passkey offered beside it; any other shows the current node.
      const postedAt = form.step === progress.node ? progress : form.step === alternativePasskeyNode(current, progress) ? { ...progress, node: form.step! } : undefined;
      if (!postedAt) return showNode(request, reply, resumed, walk);
      const node = currentNode(journey, postedAt);
      if (form.provider !== undefined || node.type === 'identity_provider') return beginUpstream(request, reply, resumed, walk, postedAt, form.provider);

      if (node.type === 'choice') {
        const option = Number(form.option);
        if (!Number.isInteger(option) || option < 0 || option >= node.options.length) return showNode(request, reply, resumed, walk);
        return afterStep(request, reply, resumed, await resettle(request, reply, resumed, walk, follow(journey, postedAt, String(option))));
      }
      const runner = runnerOf(node);
      if (!runner) return unavailable(reply);

      const account = progress.userId ? await store.users.usernameOf(realm.name, progress.userId) : runner.account?.(form);
      const again = (error: Text, extra: { status?: number } = {}) => showNode(request, reply, resumed, walk, { error, username: form.username, form, ...extra });
      // The check is counted before it runs (CONTRACT.md §7): past the limit nothing is checked.
      const check = await bruteForce.reserve(realm, account, request.ip);
      if ('lockedFor' in check) {
        const wait = check.lockedFor;
        recordSignInFailed(app.audit, attemptOf(request, resumed), { step: node.type, username: account, userId: progress.userId, reason: 'locked' });
        reply.header('retry-after', String(wait));
        return again((t) => t.signIn.lockedOut(Math.ceil(wait / 60)), { status: 429 });
      }

      // A check that throws keeps its place: only an answer gives it back.
      const outcome = await runner.submit(contextOf(request, resumed, progress), node, form);
      if ('error' in outcome && outcome.failure) {
        app.metrics.signIns.inc({ outcome: 'failure' });
        recordSignInFailed(app.audit, attemptOf(request, resumed), { step: node.type, username: account, userId: progress.userId, reason: 'wrong_credentials' });
        await bruteForce.failed(check);
        return again(outcome.error);
      }
      await bruteForce.passed(check);
      if ('again' in outcome) return reply.redirect(`${realm.issuer}/login?transaction=${encodeURIComponent(resumed.id)}`, 303);
      if ('error' in outcome) return again(outcome.error);
      if ('notice' in outcome) return showNode(request, reply, resumed, walk, { notice: outcome.notice });
      // A node that names a disabled person (a password, a passkey) ends the sign-in (CONTRACT.md §10); said only once their credential passed.
      // A person disabled after this check is refused when the session is written (AuthorizationFlow).
      if ('passed' in outcome && outcome.disabled) {
        recordSignInFailed(app.audit, attemptOf(request, resumed), { step: node.type, username: account, userId: outcome.passed.userId, reason: 'disabled' });
        return sendAccountDisabled(request, reply);
      }
      let moved: JourneyProgress;
      try {
        moved = 'passed' in outcome ? follow(journey, postedAt, 'success', outcome.passed) : follow(journey, postedAt, outcome.outcome);
      } catch (error) {
        // Another person's credential where the sign-in knows who signs in (a step-up of their session): not theirs.
        if (!(error instanceof PersonChanged)) throw error;
        recordSignInFailed(app.audit, attemptOf(request, resumed), { step: node.type, username: account, userId: progress.userId, reason: 'wrong_credentials' });
        return again((t) => t.signIn.wrongCredentials);
      }
      return afterStep(request, reply, resumed, await resettle(request, reply, resumed, walk, moved));
    });
  };
}

/**
 * The passkey node whose passwordless ceremony is offered beside a password form (the
 * password node's `passkey`), while no one is known yet. Passing it follows that node's `success`.
 */
function alternativePasskeyNode(current: JourneyNode, progress: JourneyProgress): string | undefined {
  return current.type === 'password' && progress.userId === undefined ? current.passkey : undefined;
}

/** A journey this sign-in cannot walk: the client names one the realm does not have. */
function unavailable(reply: FastifyReply) {
  const t = messagesOf(reply.request);
  const view = messagePage(t, { title: t.errors.cannotSignIn, message: t.errors.signInUnavailable, status: 400 });
  return sendPage(reply, view.options, view.body);
}

/** Sign-in outcomes are audit events (src/audit/sign-in.ts), about the client the person signs in for. */
function attemptOf(request: FastifyRequest, resumed: ResumedTransaction): SignInAttempt {
  return { realm: request.realm.name, address: request.ip, via: 'sign_in_page', clientId: resumed.client?.client_id };
}
