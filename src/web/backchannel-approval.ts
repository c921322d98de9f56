import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { AuditLog } from '../audit/audit-log.js';
import type { AuthorizationFlow } from './authorization-flow.js';
import type { BrowserCookies } from './browser-cookies.js';
import { formParams } from '../http/form-params.js';
import { type BackchannelRequestView, backchannelRequestsPage } from '../pages/ciba-approval.js';
import { type Text } from '../pages/i18n/index.js';
import { localeOf, messagesOf } from './locale.js';
import { clientNameIn } from '../records/client-names.js';
import { sendPage } from './send-page.js';
import type { RequestRealm } from '../records/realm.js';
import { isUuid } from '../store/db.js';
import type { Store } from '../store/index.js';
import { GET_ONLY, InvalidFormError } from './page-routes.js';

/** What the page says after an answer (the `answered` query parameter of the redirect). */
const NOTICES: Readonly<Record<string, Text>> = {
  approved: (t) => t.ciba.approved,
  denied: (t) => t.ciba.denied,
  gone: (t) => t.ciba.gone,
};

const csrfSubject = (requestId: string) => `bc-approve ${requestId}`;

/**
 * The person's authentication device for CIBA (CIBA Core §1, CONTRACT.md §4): once signed in,
 * they see the backchannel requests waiting for them (application, scopes, binding message)
 * and allow or deny each; the client's next poll hears the answer.
 */
export function backchannelApprovalPage(deps: { store: Store; flow: AuthorizationFlow; cookies: BrowserCookies; audit: AuditLog }): FastifyPluginAsync {
  const { store, flow, cookies } = deps;
  const pageUrl = (realm: RequestRealm, answered?: string) => `${realm.issuer}/bc-approve${answered ? `?answered=${answered}` : ''}`;

  async function requestViews(realm: RequestRealm, userId: string, browserHash: Buffer, locale: string): Promise<BackchannelRequestView[]> {
    const pending = await store.pendingAuthorizations.pendingFor(realm.name, userId);
    return Promise.all(
      pending.map(async (request) => {
        const client = await store.clients.get(realm.name, request.clientId);
        return {
          clientName: client ? clientNameIn(client, locale) : request.clientId,
          bindingMessage: request.bindingMessage,
          scopes: await store.scopes.described(realm.name, request.scope),
          hidden: { request: request.id, csrf: cookies.csrfToken(browserHash, csrfSubject(request.id)) },
        };
      }),
    );
  }

  return async (app) => {
    app.get('/bc-approve', GET_ONLY, async (request, reply) => {
      const realm = request.realm;
      const session = await flow.currentSession(request, realm);
      if (!session) {
        return flow.begin(request, reply, realm, { clientId: undefined, purpose: { kind: 'sign-in', returnTo: 'bc-approve' }, fit: undefined });
      }
      const browserHash = cookies.bindBrowser(request, reply, realm);
      const { answered } = formParams(request.query, ['answered']);
      const t = messagesOf(request);
      const notice = answered !== undefined && Object.hasOwn(NOTICES, answered) ? NOTICES[answered]!(t) : undefined;
      const page = backchannelRequestsPage(t, {
        username: (await store.users.usernameOf(realm.name, session.userId)) ?? '',
        requests: await requestViews(realm, session.userId, browserHash, localeOf(request)),
        notice,
      });
      return sendPage(reply, page.options, page.body);
    });

    app.post('/bc-approve', async (request, reply: FastifyReply) => {
      const realm = request.realm;
      const session = await flow.currentSession(request, realm);
      if (!session) return reply.redirect(pageUrl(realm), 303);
      const form = formParams(request.body, ['request', 'csrf', 'decision']);
      if (form.request === undefined || !isUuid(form.request)) throw new InvalidFormError();
      if (!cookies.csrfTokenMatches(request, realm, csrfSubject(form.request), form.csrf)) throw new InvalidFormError();
      if (form.decision !== 'allow' && form.decision !== 'deny') throw new InvalidFormError();

      const pending = await store.pendingAuthorizations.findPending(realm.name, form.request);
      const decision = form.decision === 'allow' ? 'approved' : 'denied';
      // An approval is a request of the client's: the session stands for it only when the client's journey, walked for
      // that client, asks for nothing it has not passed; else the person completes the rest first (CONTRACT.md §8).
      const client = pending && decision === 'approved' ? await store.clients.get(realm.name, pending.clientId) : undefined;
      if (client) {
        const purpose = { kind: 'sign-in', returnTo: 'bc-approve', journey: client.journey ?? undefined } as const;
        const fit = await flow.fitOf(request, reply, realm, purpose, client, session);
        if (fit?.kind !== 'fits') return flow.begin(request, reply, realm, { clientId: client.client_id, purpose, fit });
      }
      const answered =
        pending?.kind === 'ciba' &&
        pending.userId === session.userId &&
        (await store.pendingAuthorizations.answer(realm.name, pending.id, decision, session));
      if (!answered) return reply.redirect(pageUrl(realm, 'gone'), 303);
      if (decision === 'approved') await store.consents.grant(realm.name, session.userId, pending.clientId, pending.scope);
      deps.audit.record({
        realm: realm.name,
        type: decision === 'approved' ? 'consent.granted' : 'consent.denied',
        clientId: pending.clientId,
        userId: session.userId,
        address: request.ip,
        details: { flow: 'ciba', scope: pending.scope.join(' '), request_id: pending.id },
      });
      return reply.redirect(pageUrl(realm, decision), 303);
    });
  };
}
