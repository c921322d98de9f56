import type { ClientDirectory } from '../clients/metadata-document-clients.js';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthorizationFlow } from './authorization-flow.js';
import type { ClientJwks } from '../client-auth/client-jwks.js';
import { OAuthError } from '../errors.js';
import { formParams } from '../http/form-params.js';
import type { AuthorizationRequest } from '../records/authorization-request.js';
import { parseUiLocales } from '../pages/i18n/index.js';
import { askForLocales } from './locale.js';
import {
  type AuthorizationParams,
  UntrustedRedirectError,
  authorizationForm,
  responseModeForError,
  trustedRedirectUri,
  validateAuthorizationRequest,
} from '../requests/authorization-request.js';
import { authorizationParameters } from '../requests/request-object.js';
import { checkPushed } from '../profiles/fapi2.js';
import { checkedTargets } from '../resources/targets.js';
import type { Store } from '../store/index.js';
import { sha256 } from '../secrets.js';
import { GET_ONLY } from './page-routes.js';

/**
 * The authorization endpoint (RFC 6749 §3.1), GET with a query or POST with a form. Until
 * the client and its redirect URI are trusted, errors are shown on a page (400) and never
 * sent to the redirect URI; every later error is. A signed request object (RFC 9101) brings
 * the parameters, its redirect URI included: until it is verified, only the outer redirect URI
 * can serve for its error.
 */
export function authorizationEndpoint(deps: { store: Store; flow: AuthorizationFlow; clients: ClientDirectory; clientJwks: ClientJwks }): FastifyPluginAsync {
  const { store, flow } = deps;
  const requestObjects = { clientJwks: deps.clientJwks, spentAssertions: store.spentAssertions };

  async function authorize(request: FastifyRequest, reply: FastifyReply, input: unknown) {
    const realm = request.realm;
    // A page this request ends on (an untrusted client's error) is in the language it asks for.
    askForLocales(request, parseUiLocales(singleValue(input, 'ui_locales')));
    const trusted = untrusted(() => formParams(input, ['client_id', 'redirect_uri', 'request_uri', 'request']));
    if (!trusted.client_id) throw new UntrustedRedirectError('client_id is required');
    // A client_id URL whose metadata document cannot be used throws an untrusted client's error.
    const client = await deps.clients.get(realm, trusted.client_id);
    if (!client) throw new UntrustedRedirectError('the client is unknown');

    let authz: AuthorizationRequest;
    if (trusted.request_uri !== undefined) {
      // RFC 9101 §5: a request object goes by value or by reference, not both.
      if (trusted.request !== undefined) throw new UntrustedRedirectError('request and request_uri cannot both be given');
      // RFC 9126 §4: the pushed request replaces the query; only its own client may use it, once.
      // Request objects by reference (RFC 9101 §5.2) are never fetched: only PAR makes request URIs.
      const pushed = await store.authorizationFlow.usePushed(sha256(trusted.request_uri), realm.name, client.client_id);
      if (!pushed) throw new UntrustedRedirectError('the request_uri is unknown, expired, used, or not this client\'s');
      // The client's redirect URIs may have changed since the push: it must still be registered.
      if (!client.redirect_uris.includes(pushed.redirectUri)) throw new UntrustedRedirectError('redirect_uri is not registered for this client');
      authz = pushed;
      askForLocales(request, pushed.uiLocales);
    } else {
      let params: AuthorizationParams;
      try {
        params = await authorizationParameters(requestObjects, realm, client, authorizationForm(input));
      } catch (error) {
        if (!(error instanceof OAuthError)) throw error;
        const outer = untrusted(() => trustedRedirectUri(client, trusted.redirect_uri));
        const target = {
          clientId: client.client_id,
          redirectUri: outer.redirectUri,
          state: singleValue(input, 'state'),
          responseMode: responseModeForError(singleValue(input, 'response_mode')),
        };
        return flow.responses.redirectError(reply, realm, target, error);
      }
      const redirect = untrusted(() => trustedRedirectUri(client, params.redirect_uri));
      try {
        checkPushed(realm);
        if (realm.settings.require_par || client.require_par) {
          throw new OAuthError('invalid_request', 'authorization requests of this client must be pushed (PAR)');
        }
        authz = validateAuthorizationRequest(realm, client, params, redirect);
        // RFC 8707 §2: each resource a registered one of the realm or allowed to the client, else invalid_target.
        if (authz.resource) await checkedTargets(store.resources, realm.name, client, authz.resource);
      } catch (error) {
        if (!(error instanceof OAuthError)) throw error;
        const target = { clientId: client.client_id, redirectUri: redirect.redirectUri, state: params.state, responseMode: responseModeForError(params.response_mode) };
        return flow.responses.redirectError(reply, realm, target, error);
      }
    }
    return flow.start(request, reply, realm, client, authz);
  }

  return async (app) => {
    app.get('/authorize', GET_ONLY, (request, reply) => authorize(request, reply, request.query));
    app.post('/authorize', (request, reply) => authorize(request, reply, request.body));
  };
}

/** A parameter's value when it was given once, for the redirect of an error about the others. */
function singleValue(input: unknown, name: string): string | undefined {
  const value = (input as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Runs a check of the client or redirect URI: its errors go to the page, never the redirect URI. */
function untrusted<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof OAuthError) throw new UntrustedRedirectError(error.description ?? error.code);
    throw error;
  }
}
