import type { Metrics } from '../http/metrics.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { X509Certificate } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import type { ClientAuthenticator } from '../client-auth/authenticate.js';
import type { DpopProofs } from '../dpop/proofs.js';
import { proofAtAuthorizationServer, refusingProofErrors } from '../dpop/refusals.js';
import { OAuthError } from '../errors.js';
import { TARGET_PARAMETERS, askedTargets, requestedTargets } from '../grants/audience.js';
import type { GrantRegistry } from '../grants/grant-handler.js';
import { type ClientCertificateOf, certificateThumbprint } from '../http/client-certificate.js';
import { formParamLists, formParams } from '../http/form-params.js';
import { checkTokenRequest } from '../profiles/fapi2.js';
import type { RateLimits } from '../rate-limits/rate-limits.js';
import type { ResourceStore } from '../store/resources.js';

/**
 * The token endpoint (RFC 6749 §3.2): find the grant, authenticate the client, check the
 * client may use the grant, and hand the grant only its own parameters, and the audiences
 * asked for, which every grant takes (the realm's registered resources and the client's
 * `allowed_audiences`, CONTRACT.md §5, §10). A DPoP proof (RFC 9449
 * §5), checked once the client is known and within its rate limit, binds what every grant issues
 * to its key.
 */
export function tokenEndpoint(deps: {
  grants: GrantRegistry;
  authenticator: ClientAuthenticator;
  clientCertificate: ClientCertificateOf;
  rateLimits: RateLimits;
  dpop: DpopProofs;
  resources: Pick<ResourceStore, 'find'>;
  metrics: Metrics;
  audit: AuditLog;
}): FastifyPluginAsync {
  return async (app) => {
    app.post('/access_token', async (request, reply) => {
      const { grant_type: grantType } = formParams(request.body, ['grant_type']);
      if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required');
      const grant = deps.grants.get(grantType);
      if (!grant) throw new OAuthError('unsupported_grant_type', 'this grant type is not supported');

      const client = await deps.authenticator.authenticate(request, '/access_token');
      await deps.rateLimits.client(request.realm, 'token', client.client_id);
      if (!client.grant_types.includes(grant.type)) {
        throw new OAuthError('unauthorized_client', 'the client is not allowed this grant type');
      }
      // A grant that spendsProof spends the proof's jti with its tokens, in their statement.
      // A request without a DPoP header has no proof: its bearer tokens skip the checks' promises.
      const proof = request.headers.dpop === undefined
        ? undefined
        : await proofAtAuthorizationServer(deps.dpop, request, request.realm, '/access_token', { spend: !grant.spendsProof });
      checkTokenRequest(request.realm, client, grant.type, proof !== undefined);
      const params = formParams(request.body, grant.parameters);
      const asked = formParamLists(request.body, TARGET_PARAMETERS);
      const ownTargets = grant.readsOwnTargets?.(params) === true;
      const noTargets = asked.audience === undefined && asked.resource === undefined;
      const targets = ownTargets || noTargets ? undefined : await requestedTargets(deps.resources, request.realm.name, asked, client);
      const response = await refusingProofErrors(deps.dpop, request.realm, () => grant.handle({
        realm: request.realm,
        client,
        address: request.ip,
        audit: deps.audit,
        params,
        askedTargets: ownTargets ? askedTargets(asked) : undefined,
        audience: targets?.audience,
        audienceScopes: targets?.scopes,
        certificateThumbprint: client.tls_client_certificate_bound_access_tokens
          ? boundCertificate(deps.clientCertificate(request))
          : undefined,
        keyThumbprint: proof?.thumbprint,
        proofSpend: grant.spendsProof && proof ? deps.dpop.spendOf(request.realm, proof) : undefined,
      }));
      deps.metrics.tokensIssued.inc({ grant_type: grant.type });
      reply.headers(deps.dpop.nonceHeaders(request.realm));
      return response;
    });
  };
}

/**
 * RFC 8705 §3: a client registered with `tls_client_certificate_bound_access_tokens` gets
 * tokens bound to the certificate of the request (`cnf.x5t#S256`), whatever its authentication
 * method; a public client's refresh tokens are bound with them (§4). Such a client that sends no
 * certificate is refused with `invalid_request` rather than handed a bearer token it registered
 * never to receive (RFC 8705 leaves the answer open; Keycloak answers the same).
 */
function boundCertificate(certificate: X509Certificate | undefined): string {
  if (!certificate) {
    throw new OAuthError('invalid_request', "this client's tokens are bound to its TLS client certificate, and the request presented none");
  }
  return certificateThumbprint(certificate);
}

