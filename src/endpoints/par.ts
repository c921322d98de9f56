import type { FastifyPluginAsync } from 'fastify';
import type { ClientAuthenticator } from '../client-auth/authenticate.js';
import type { ClientJwks } from '../client-auth/client-jwks.js';
import type { DpopProofs } from '../dpop/proofs.js';
import { proofAtAuthorizationServer } from '../dpop/refusals.js';
import { OAuthError } from '../errors.js';
import type { RateLimits } from '../rate-limits/rate-limits.js';
import {
  UntrustedRedirectError,
  authorizationForm,
  trustedRedirectUri,
  validateAuthorizationRequest,
} from '../requests/authorization-request.js';
import { authorizationParameters } from '../requests/request-object.js';
import { checkClient, checkPushedRequest, parLifetime } from '../profiles/fapi2.js';
import { checkedTargets } from '../resources/targets.js';
import type { Store } from '../store/index.js';
import { randomSecret, sha256 } from '../secrets.js';

const REQUEST_URI_PREFIX = 'urn:ietf:params:oauth:request_uri:';

/**
 * Pushed authorization requests (RFC 9126). The client authenticates and sends the
 * authorization parameters; they are validated as /authorize would, and stored for one use
 * by this client within `par_lifetime`. Errors answer JSON here, as at the token endpoint.
 * A signed request object (RFC 9101) carries the parameters instead (RFC 9126 §3).
 * A DPoP proof binds the code to its key as `dpop_jkt` does (RFC 9449 §10.1).
 */
export function parEndpoint(deps: { store: Store; authenticator: ClientAuthenticator; clientJwks: ClientJwks; rateLimits: RateLimits; dpop: DpopProofs }): FastifyPluginAsync {
  const requestObjects = { clientJwks: deps.clientJwks, spentAssertions: deps.store.spentAssertions };
  return async (app) => {
    app.post('/par', async (request, reply) => {
      const realm = request.realm;
      const client = await deps.authenticator.authenticate(request, '/par');
      checkClient(realm, client);
      await deps.rateLimits.client(request.realm, 'par', client.client_id);
      const form = authorizationForm(request.body);
      // RFC 9126 §2.1: a pushed request cannot itself refer to one.
      if (form.request_uri !== undefined) throw new OAuthError('invalid_request', 'request_uri cannot be pushed');
      const params = await authorizationParameters(requestObjects, realm, client, form);
      checkPushedRequest(realm, params);
      let redirect;
      try {
        redirect = trustedRedirectUri(client, params.redirect_uri);
      } catch (error) {
        if (error instanceof UntrustedRedirectError) throw new OAuthError('invalid_request', error.message);
        throw error;
      }
      let authz = validateAuthorizationRequest(realm, client, params, redirect);
      // RFC 8707 §2: each resource a registered one of the realm or allowed to the client, else invalid_target.
      if (authz.resource) await checkedTargets(deps.store.resources, realm.name, client, authz.resource);
      const proof = await proofAtAuthorizationServer(deps.dpop, request, realm, '/par');
      if (proof) {
        // RFC 9449 §10.1: with both, they must name the same key.
        if (authz.dpopJkt !== undefined && authz.dpopJkt !== proof.thumbprint) {
          throw new OAuthError('invalid_dpop_proof', 'dpop_jkt is not the thumbprint of the DPoP proof\'s key');
        }
        authz = { ...authz, dpopJkt: proof.thumbprint };
      }

      const requestUri = `${REQUEST_URI_PREFIX}${randomSecret()}`;
      const lifetime = parLifetime(realm.settings);
      await deps.store.authorizationFlow.push(sha256(requestUri), {
        realm: realm.name,
        clientId: client.client_id,
        request: authz,
        lifetimeSeconds: lifetime,
      });
      return reply.code(201).headers(deps.dpop.nonceHeaders(realm)).send({ request_uri: requestUri, expires_in: lifetime });
    });
  };
}
