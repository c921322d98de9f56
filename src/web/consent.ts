import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AuditLog } from '../audit/audit-log.js';
import { describedDetails } from '../authorization-details/described.js';
import { type AuthorizationFlow, TransactionGone, formTargetsOf, pageUrl, requestedScopeOf } from './authorization-flow.js';
import type { BrowserCookies } from './browser-cookies.js';
import { describedByDocument } from '../clients/metadata-document-url.js';
import { formParams } from '../http/form-params.js';
import { clientBrand } from '../pages/branding.js';
import { consentPage } from '../pages/forms.js';
import { localeOf, messagesOf } from './locale.js';
import { sendPage } from './send-page.js';
import type { Store } from '../store/index.js';
import { GET_ONLY, InvalidFormError } from './page-routes.js';

/**
 * The consent page of a transaction (CONTRACT.md §4): the requested scopes with their
 * descriptions, the resources the tokens are for (RFC 8707, by their names) and the authorization
 * details asked (RFC 9396, in words), allow or deny.
 * What is allowed is remembered for the user and client, with the transaction's end
 * (src/web/authorization-flow.ts).
 */
export function consentPageEndpoint(deps: { store: Store; flow: AuthorizationFlow; cookies: BrowserCookies; audit: AuditLog }): FastifyPluginAsync {
  const { store, flow, cookies } = deps;

  /** The transaction and the session that signed in for it; without that session, back to sign-in. */
  async function signedInTransaction(request: FastifyRequest, reply: FastifyReply, transactionId: string | undefined) {
    const realm = request.realm;
    const resumed = await flow.resume(request, realm, transactionId);
    const { session } = resumed;
    if (!session || session.sid !== resumed.transaction.sid) {
      await reply.redirect(pageUrl(realm, 'login', resumed.id), 303);
      return undefined;
    }
    // A plain sign-in asks nothing of the person.
    if (!resumed.client) throw new TransactionGone();
    return { ...resumed, client: resumed.client, session };
  }

  return async (app) => {
    app.get('/consent', GET_ONLY, async (request, reply) => {
      const realm = request.realm;
      const current = await signedInTransaction(request, reply, formParams(request.query, ['transaction']).transaction);
      if (!current) return reply;
      const { id, transaction, client, browserHash } = current;
      const { purpose } = transaction;
      const resources = purpose.kind === 'authorize' ? purpose.request.resource ?? [] : [];
      const locale = localeOf(request);
      const details = purpose.kind === 'authorize' ? purpose.request.authorizationDetails : undefined;
      const registered = new Map((await store.resources.find(realm.name, resources)).map((resource) => [resource.identifier, resource.descriptions?.[locale] || resource.name]));
      const page = consentPage(messagesOf(request), {
        client: clientBrand(client, describedByDocument(client), locale),
        scopes: await store.scopes.described(realm.name, requestedScopeOf(purpose)),
        resources: resources.map((identifier) => registered.get(identifier) ?? identifier),
        // A client that may trade the person's sign-in for ID-JAGs says for which servers (CONTRACT.md §15).
        assertsTo: (client.id_jag_audiences ?? []).map((entry) => issuerShown(entry.issuer)),
        ...(purpose.kind === 'device' ? { userCode: purpose.userCode } : {}),
        ...(details ? { details: describedDetails(realm.settings.authorization_details_types, details) } : {}),
        hidden: { transaction: id, csrf: cookies.csrfToken(browserHash, id) },
        formTargets: formTargetsOf(purpose),
      });
      return sendPage(reply, page.options, page.body);
    });

    app.post('/consent', async (request, reply) => {
      const realm = request.realm;
      const form = formParams(request.body, ['transaction', 'csrf', 'decision']);
      const current = await signedInTransaction(request, reply, form.transaction);
      if (!current) return reply;
      const { id, client, session } = current;
      if (!cookies.csrfTokenMatches(request, realm, id, form.csrf)) throw new InvalidFormError();

      const { purpose } = current.transaction;
      // Written with the decision, by the statement that ends the transaction: a double submit records nothing.
      const decided = (type: 'consent.granted' | 'consent.denied') =>
        deps.audit.prepare(
          {
            realm: realm.name,
            type,
            clientId: client.client_id,
            userId: session.userId,
            address: request.ip,
            details: {
              flow: purpose.kind,
              scope: requestedScopeOf(purpose).join(' '),
              ...(purpose.kind === 'authorize' && purpose.request.resource ? { resources: purpose.request.resource } : {}),
              // RFC 9396: which kinds of detail were decided on (their values stay with the grant, out of the audit trail).
              ...(purpose.kind === 'authorize' && purpose.request.authorizationDetails ? { authorization_details_types: [...new Set(purpose.request.authorizationDetails.map((entry) => entry.type))] } : {}),
              ...(purpose.kind === 'device' ? { request_id: purpose.pendingId } : {}),
            },
          },
          realm.settings.audit_event_lifetime,
        );
      if (form.decision === 'deny') return flow.deny(reply, realm, current, session, { event: decided('consent.denied') });
      if (form.decision !== 'allow') throw new InvalidFormError();
      return flow.allow(reply, realm, current, session, { consent: requestedScopeOf(purpose), event: decided('consent.granted') });
    });
  };
}

/** An issuer as a person reads it: its host and path, without the scheme (several realms may share a host). */
function issuerShown(issuer: string): string {
  const url = new URL(issuer);
  return `${url.host}${url.pathname.replace(/\/$/, '')}`;
}
