import type { FastifyPluginAsync } from 'fastify';
import type { RequestRealm } from '../realms/resolve.js';
import type { ScopeStore } from '../store/scopes.js';

export interface ServerCapabilities {
  grantTypes: readonly string[];
  clientAuthMethods: readonly string[];
}

/**
 * Authorization server metadata (RFC 8414 §2, OpenID Connect Discovery §3). It advertises
 * only what this server has built; `response_types_supported` stays empty until the
 * authorization endpoint exists.
 */
export function serverMetadata(realm: RequestRealm, scopes: readonly string[], capabilities: ServerCapabilities) {
  const issuer = realm.issuer;
  const confidentialMethods = capabilities.clientAuthMethods.filter((method) => method !== 'none');
  return {
    issuer,
    token_endpoint: `${issuer}/access_token`,
    jwks_uri: `${issuer}/connect/jwk_uri`,
    introspection_endpoint: `${issuer}/introspect`,
    revocation_endpoint: `${issuer}/token/revoke`,
    scopes_supported: scopes,
    response_types_supported: [],
    grant_types_supported: capabilities.grantTypes,
    token_endpoint_auth_methods_supported: capabilities.clientAuthMethods,
    introspection_endpoint_auth_methods_supported: confidentialMethods,
    revocation_endpoint_auth_methods_supported: capabilities.clientAuthMethods,
  };
}

export function discoveryEndpoint(deps: { scopes: ScopeStore; capabilities: ServerCapabilities }, path: string): FastifyPluginAsync {
  return async (app) => {
    app.get(path, async (request, reply) => {
      const scopes = await deps.scopes.list(request.realm.name);
      reply.header('cache-control', 'public, max-age=60');
      return serverMetadata(
        request.realm,
        scopes.map((scope) => scope.name),
        deps.capabilities,
      );
    });
  };
}
