import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AuditLog } from '../audit/audit-log.js';
import { recordSignInFailed } from '../audit/sign-in.js';
import type { Metrics } from '../http/metrics.js';
import type { AuthorizationFlow, ResumedTransaction } from './authorization-flow.js';
import { sendFailurePage, wayBackOfTransaction } from './failure-page.js';
import { sendAccountDisabled } from './disabled.js';
import { currentNode, follow } from '../authn/journeys/walk.js';
import { journeyOfTransaction } from '../authn/transaction-journey.js';
import { formParams } from '../http/form-params.js';
import type { BrowserCookies } from './browser-cookies.js';
import { linkToPerson, linkedToPerson, personOf } from '../identity-providers/accounts.js';
import { type Broker, providersOfferedAt } from '../identity-providers/broker.js';
import { UpstreamFailure, failureDetails } from '../identity-providers/failures.js';
import { displayNameOf } from '../records/identity-provider.js';
import { type AccountLink, type PendingUpstream, type UpstreamAccount, isAccountLink } from '../identity-providers/upstream-flow.js';
import type { IdentityProvider } from '../store/identity-providers.js';
import { messagesOf } from './locale.js';
import type { Store } from '../store/index.js';
import { sha256 } from '../secrets.js';
import { accountNoticeUrl } from './account.js';
import { GET_ONLY } from './page-routes.js';

/** The methods of a sign-in at an upstream provider (RFC 8176 §2: federated). */
const FEDERATED_AMR = ['fed'];

export interface BrokerPageDeps {
  store: Store;
  flow: AuthorizationFlow;
  cookies: BrowserCookies;
  broker: Broker;
  metrics: Metrics;
  audit: AuditLog;
}

/**
 * `{issuer}/broker/{alias}/callback` (CONTRACT.md §10): where an upstream provider sends the
 * person back. The `state` names the flow it ends (taken once); the flow names the sign-in
 * transaction, which continues only in the browser that began it. The code is exchanged and
 * the ID token verified (src/identity-providers/upstream-flow.ts), the upstream account finds
 * its person (or makes one), and the node the provider was chosen at passes as a password
 * would: the sign-in page then takes the journey on. When the journey knows the person
 * already, only their own linked account passes; any other is `deny`. Whatever fails ends on a
 * page that says what happened. A flow the account page began to link an account ends back there.
 */
export function brokerPages(deps: BrokerPageDeps): FastifyPluginAsync {
  const { store, flow, cookies, broker, audit } = deps;

  async function callback(request: FastifyRequest<{ Params: { alias: string } }>, reply: FastifyReply, seen: { resumed?: ResumedTransaction }) {
    const realm = request.realm;
    const provider = await store.identityProviders.get(realm.name, request.params.alias);
    if (!provider) throw new UpstreamFailure('unknown_provider', request.params.alias);
    const pending = await broker.flow.take(realm, provider, formParams(request.query, ['state']).state);
    if (isAccountLink(pending)) return linked(request, reply, provider, pending);
    const resumed = await flow.resume(request, realm, pending.transactionId);
    seen.resumed = resumed;
    const selected = journeyOfTransaction(realm, resumed.transaction.purpose, resumed.client);
    const progress = resumed.transaction.progress;
    const loginPage = `${realm.issuer}/login?transaction=${encodeURIComponent(resumed.id)}`;
    // The sign-in moved on meanwhile (another tab, a changed journey): its current page decides.
    const stillThere =
      selected && progress && progress.journey === selected.name && progress.node === pending.node &&
      offers(providersOfferedAt(currentNode(selected.journey, progress), progress.userId !== undefined), provider.alias);
    if (!stillThere) return reply.redirect(loginPage, 303);

    const account = await broker.flow.finish(realm, provider, pending, queryOf(request.url));
    if (progress.userId !== undefined && !(await linkedToPerson(store, realm.name, provider, account, progress.userId))) {
      // A person known already: only their own linked account confirms them (CONTRACT.md §8); any other is `deny`, and nothing is linked.
      request.log.info({ provider: provider.alias }, 'the upstream account is not linked to the person signing in');
      await store.authorizationFlow.saveProgress(sha256(resumed.id), { ...progress, node: 'deny' });
      return reply.redirect(loginPage, 303);
    }
    const context = { realm: realm.name, address: request.ip, clientId: resumed.client?.client_id };
    const userId = progress.userId ?? (await personOf({ store, audit: audit }, provider, account, context));
    // The person the upstream account names is disabled (CONTRACT.md §10): the sign-in ends here.
    if (!(await store.users.getById(realm.name, userId))?.enabled) {
      const attempt = { realm: realm.name, address: request.ip, via: 'sign_in_page' as const, clientId: resumed.client?.client_id };
      recordSignInFailed(audit, attempt, { step: 'identity_provider', username: undefined, userId, reason: 'disabled' });
      return sendAccountDisabled(request, reply, resumed);
    }
    // Beside a password form, the provider passes the password node's way on, and counts as itself (CONTRACT.md §8).
    const passed = { userId, amr: FEDERATED_AMR, as: `identity_provider:${provider.alias}` };
    await store.authorizationFlow.saveProgress(sha256(resumed.id), follow(selected.journey, progress, 'success', passed));
    return reply.redirect(loginPage, 303);
  }

  /**
   * The end of linking an upstream account from the account page: only in the session that
   * began it (a link begun by someone else cannot be finished in a victim's browser, nor the
   * other way round), then back to the account page, which says what happened.
   */
  async function linked(request: FastifyRequest, reply: FastifyReply, provider: IdentityProvider, pending: PendingUpstream & AccountLink) {
    const realm = request.realm;
    const t = messagesOf(request);
    const texts = t.account.identities;
    const name = displayNameOf(provider.alias, provider);
    const back = (notice: string) => reply.redirect(accountNoticeUrl(cookies, realm, notice), 303);
    const session = await flow.currentSession(request, realm);
    if (!session || session.sid !== pending.link.sid || session.userId !== pending.link.userId) return back(texts.linkExpired);
    let account: UpstreamAccount;
    try {
      account = await broker.flow.finish(realm, provider, pending, queryOf(request.url));
    } catch (error) {
      if (!(error instanceof UpstreamFailure)) throw error;
      request.log.warn({ provider: provider.alias, ...failureDetails(error) }, 'linking an upstream account failed');
      return back(t.upstream[error.kind](name));
    }
    const context = { realm: realm.name, address: request.ip, userId: session.userId };
    const outcome = await linkToPerson({ store, audit: audit }, provider, account, context);
    return back(outcome === 'linked' ? texts.linkedNotice(name) : outcome === 'already_linked' ? texts.alreadyLinked(name) : texts.otherPerson(name));
  }

  return async (app) => {
    app.get<{ Params: { alias: string } }>('/broker/:alias/callback', GET_ONLY, async (request, reply) => {
      // The sign-in the callback continues, once known: its failure page offers the way back to the client.
      const seen: { resumed?: ResumedTransaction } = {};
      try {
        return await callback(request, reply, seen);
      } catch (error) {
        if (!(error instanceof UpstreamFailure)) throw error;
        return failed(request, reply, error, { metrics: deps.metrics, audit, resumed: seen.resumed });
      }
    });
  };
}

/** The page of a sign-in through a provider that did not go on, in plain words; the log has the reason. */
function failed(
  request: FastifyRequest<{ Params: { alias: string } }>,
  reply: FastifyReply,
  failure: UpstreamFailure,
  { metrics, audit, resumed }: { metrics: Metrics; audit: AuditLog; resumed: ResumedTransaction | undefined },
) {
  const realm = request.realm;
  request.log.warn({ provider: request.params.alias, ...failureDetails(failure) }, 'sign-in through an upstream provider failed');
  metrics.signIns.inc({ outcome: 'failure' });
  recordSignInFailed(audit, { realm: realm.name, address: request.ip, via: 'sign_in_page' }, {
    step: 'identity_provider',
    username: undefined,
    reason: failure.kind === 'denied' ? 'denied' : 'upstream_failed',
  });
  const t = messagesOf(request);
  const page = { title: t.errors.cannotSignIn, message: t.upstream[failure.kind](failure.providerName), status: failure.status, error: `upstream_${failure.kind}` };
  return sendFailurePage(request, reply, page, wayBackOfTransaction(request, resumed));
}

const offers = (offer: 'all' | string | undefined, alias: string): boolean => offer === 'all' || offer === alias;

/** The callback's query as it came (openid-client reads the authorization response from it). */
function queryOf(url: string): string {
  const start = url.indexOf('?');
  return start === -1 ? '' : url.slice(start + 1);
}
