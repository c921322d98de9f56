import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { logFailure, toClientError } from '../http/error-handler.js';
import { formParams } from '../http/form-params.js';
import type { WayBack } from '../pages/error-page.js';
import type { Messages } from '../pages/i18n/index.js';
import { UntrustedRedirectError } from '../requests/authorization-request.js';
import type { Store } from '../store/index.js';
import type { AuthorizationFlow } from './authorization-flow.js';
import { TransactionGone } from './authorization-flow.js';
import { messagesOf } from './locale.js';
import { InvalidFormError } from './page-routes.js';
import { sendFailurePage, wayBackTo } from './failure-page.js';

/**
 * What the person reads when a page cannot go on, in the page's language; nothing internal.
 * What the application got wrong is named as the protocol names it, for its developers.
 */
function describe(t: Messages, error: unknown): { title: string; message: string; status: number } {
  const { errors } = t;
  if (error instanceof UntrustedRedirectError) {
    return { title: errors.invalidRequest, message: errors.fromApplication(error.message), status: 400 };
  }
  if (error instanceof TransactionGone) return { title: errors.requestExpired, message: errors.requestExpiredMessage, status: 400 };
  if (error instanceof InvalidFormError) return { title: errors.formExpired, message: errors.formExpiredMessage, status: 400 };
  const clientError = toClientError(error);
  if (clientError.status === 429) return { title: errors.tooManyAttempts, message: errors.tooManyAttemptsMessage, status: 429 };
  if (clientError.status >= 500) return { title: errors.somethingWentWrong, message: errors.somethingWentWrongMessage, status: clientError.status };
  if (clientError.status === 404) return { title: errors.notFound, message: errors.notFoundMessage, status: 404 };
  return { title: errors.invalidRequest, message: errors.notHandled(clientError.description ?? clientError.code), status: clientError.status };
}

/**
 * The way back to the application, when the request names a registered client and a redirect
 * URI registered for it exactly (an /authorize request), or continues a transaction of this
 * browser that does. The link goes to the origin of that registered URI, never to an address
 * the request wrote; an unregistered client or URI, or a client that only describes itself at
 * a URL (it would be fetched), gives none.
 */
async function wayBackOf(request: FastifyRequest, error: unknown, deps: { store: Store; flow: AuthorizationFlow }): Promise<WayBack | undefined> {
  const realm = request.realm;
  if (!realm || error instanceof UntrustedRedirectError) return undefined;
  const fields = formParams(request.method === 'GET' ? request.query : request.body, ['client_id', 'redirect_uri', 'transaction']);
  let client;
  let redirectUri: string | undefined;
  if (fields.client_id !== undefined) {
    client = await deps.store.clients.get(realm.name, fields.client_id);
    // Without redirect_uri, a client of one redirect URI is sent there (trustedRedirectUri).
    redirectUri = fields.redirect_uri ?? (client?.redirect_uris.length === 1 ? client.redirect_uris[0] : undefined);
  } else if (fields.transaction !== undefined && !(error instanceof TransactionGone)) {
    const resumed = await deps.flow.resume(request, realm, fields.transaction).catch(() => undefined);
    client = resumed?.client;
    redirectUri = resumed?.transaction.purpose.kind === 'authorize' ? resumed.transaction.purpose.request.redirectUri : undefined;
  }
  return wayBackTo(request, client, redirectUri);
}

/**
 * The error handler of the browser's routes: an error page in the person's language, with a
 * reference (CONTRACT.md §16) that one line of the log carries beside the request's id, so that
 * support finds what happened from what the person quotes.
 */
export function pageErrorHandler(deps: { store: Store; flow: AuthorizationFlow }) {
  return async (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const t = messagesOf(request);
    const page = describe(t, error);
    logFailure(request, error, page.status);
    const clientError = toClientError(error);
    reply.headers(clientError.headers); // Retry-After of an outage, a challenge
    const wayBack = await wayBackOf(request, error, deps).catch(() => undefined);
    return sendFailurePage(request, reply, { ...page, error: clientError.code }, wayBack);
  };
}
