import type { JWTPayload } from 'jose';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthorizationFlow } from './authorization-flow.js';
import { redirectTo } from './authorization-flow.js';
import type { BrowserCookies } from './browser-cookies.js';
import { formParams } from '../http/form-params.js';
import { messagePage, signOutPage } from '../pages/forms.js';
import { frontChannelLogoutPage, frontChannelLogoutUrl } from '../pages/front-channel-logout.js';
import { messagesOf } from './locale.js';
import { sendPage } from './send-page.js';
import type { RequestRealm } from '../records/realm.js';
import { UntrustedRedirectError } from '../requests/authorization-request.js';
import { idTokenHint } from '../requests/id-token-hint.js';
import type { Client } from '../store/clients.js';
import type { ClientDirectory } from '../clients/metadata-document-clients.js';
import type { Store } from '../store/index.js';
import type { Subjects } from '../tokens/subject.js';
import { sha256 } from '../secrets.js';
import { GET_ONLY, InvalidFormError } from './page-routes.js';

const PARAMETERS = ['id_token_hint', 'post_logout_redirect_uri', 'state', 'client_id', 'csrf', 'decision'] as const;
/** The sign-out form's CSRF token is bound to the browser and to this purpose. */
const SIGN_OUT_FORM = 'sign-out';

/**
 * RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0). An `id_token_hint` this
 * realm signed, for the signed-in person, ends the session at once; otherwise the person
 * confirms on a page, so that another site cannot sign them out. Ending the session revokes
 * the tokens issued under it, and tells its clients (back-channel: src/store/session-endings.ts;
 * front-channel: a page that frames their logout pages first). The person is then sent to
 * `post_logout_redirect_uri` when it is registered exactly for the client.
 */
export function endSessionEndpoint(deps: { store: Store; flow: AuthorizationFlow; cookies: BrowserCookies; clients: ClientDirectory; subjects: Pick<Subjects, 'names'> }): FastifyPluginAsync {
  const { store, flow, cookies } = deps;

  /** The claims of an ID token this realm signed; expired ones are accepted (§2: it may be old). */
  async function idTokenClaims(realm: RequestRealm, token: string): Promise<JWTPayload> {
    const claims = await idTokenHint(store.signingKeys, realm, token);
    if (claims === undefined) throw new UntrustedRedirectError('id_token_hint is not an ID token of this realm');
    return claims;
  }

  async function endSession(request: FastifyRequest, reply: FastifyReply, input: unknown) {
    const realm = request.realm;
    const params = formParams(input, PARAMETERS);
    const hint = params.id_token_hint === undefined ? undefined : await idTokenClaims(realm, params.id_token_hint);
    const audience = Array.isArray(hint?.aud) ? hint.aud[0] : hint?.aud;
    if (params.client_id !== undefined && audience !== undefined && params.client_id !== audience) {
      throw new UntrustedRedirectError('client_id does not match the id_token_hint');
    }
    const clientId = params.client_id ?? audience;
    const client = clientId === undefined ? undefined : await deps.clients.get(realm, clientId);
    if (clientId !== undefined && !client) throw new UntrustedRedirectError('the client is unknown');
    const redirectUri = params.post_logout_redirect_uri;
    if (redirectUri !== undefined && !client?.post_logout_redirect_uris.includes(redirectUri)) {
      throw new UntrustedRedirectError('post_logout_redirect_uri is not registered for this client');
    }

    const session = await flow.currentSession(request, realm);
    const confirmed = request.method === 'POST' && params.decision !== undefined;
    if (confirmed && !cookies.csrfTokenMatches(request, realm, SIGN_OUT_FORM, params.csrf)) throw new InvalidFormError();
    // The hint's `sub` is the one its client sees (OpenID Connect Core §8): recomputed for the session's person, never reversed.
    const hintNamesThisPerson =
      hint !== undefined && session !== undefined && client !== undefined && typeof hint.sub === 'string' && deps.subjects.names(client, hint.sub, session.userId);

    if (session && !hintNamesThisPerson && !confirmed) return confirmationPage(request, reply, realm, params, client);
    let frames: string[] = [];
    if (session && (hintNamesThisPerson || params.decision === 'allow')) {
      const ended = await store.sessions.end(sha256(cookies.sessionSecret(request, realm)!));
      cookies.clearSession(reply, realm);
      frames = await frontChannelFrames(request, realm, session.sid, ended.clients);
    }
    const t = messagesOf(request);
    if (session && params.decision === 'deny') {
      const view = messagePage(t, { title: t.signOut.stayedTitle, message: t.signOut.stayed });
      return sendPage(reply, view.options, view.body);
    }
    const next = redirectUri === undefined ? undefined : redirectTo(redirectUri, { state: params.state });
    if (frames.length > 0) {
      const page = frontChannelLogoutPage(t, frames, next);
      return sendPage(reply, page.options, page.body);
    }
    if (next !== undefined) return reply.redirect(next, 303);
    const view = messagePage(t, { title: t.signOut.doneTitle, message: t.signOut.done });
    return sendPage(reply, view.options, view.body);
  }

  /** The front-channel logout pages of the ended session's clients that have one (Front-Channel Logout 1.0 §3). */
  async function frontChannelFrames(request: FastifyRequest, realm: RequestRealm, sid: string, clientIds: readonly string[]): Promise<string[]> {
    const clients = await Promise.all(clientIds.map((id) => deps.clients.get(realm, id)));
    return clients.flatMap((client) => (client?.frontchannel_logout_uri ? [frontChannelLogoutUrl(client.frontchannel_logout_uri, realm.issuer, sid)] : []));
  }

  function confirmationPage(
    request: FastifyRequest,
    reply: FastifyReply,
    realm: RequestRealm,
    params: Partial<Record<(typeof PARAMETERS)[number], string>>,
    client: Client | undefined,
  ) {
    const browserHash = cookies.bindBrowser(request, reply, realm);
    const carried = Object.fromEntries(
      (['id_token_hint', 'post_logout_redirect_uri', 'state', 'client_id'] as const).flatMap((name) =>
        params[name] === undefined ? [] : [[name, params[name]!]],
      ),
    );
    if (client && carried.client_id === undefined) carried.client_id = client.client_id;
    const page = signOutPage(messagesOf(request), {
      hidden: { ...carried, csrf: cookies.csrfToken(browserHash, SIGN_OUT_FORM) },
      formTargets: params.post_logout_redirect_uri === undefined ? [] : [params.post_logout_redirect_uri],
    });
    return sendPage(reply, page.options, page.body);
  }

  return async (app) => {
    app.get('/connect/endSession', GET_ONLY, (request, reply) => endSession(request, reply, request.query));
    app.post('/connect/endSession', (request, reply) => endSession(request, reply, request.body));
  };
}
