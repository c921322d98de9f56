import type { FastifyInstance } from 'fastify';
import { DPOP_SIGNING_ALGS } from './shared/dpop-algorithms.js';
import type { Settings } from './options.js';

/** RFC 9728 §3: the well-known URI suffix of protected resource metadata. */
export const WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** The API's resource identifier: the configured one, never anything of a request's. */
export function resourceOf(settings: Settings): string {
  return settings.resource.identifier;
}

/**
 * RFC 9728 §3.1: the metadata URL of a resource identifier, the well-known suffix inserted
 * between its host and its path (`https://api.example.com/orders` →
 * `https://api.example.com/.well-known/oauth-protected-resource/orders`).
 */
export function metadataUrlOf(resource: string): string | undefined {
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    return undefined;
  }
  return `${url.origin}${WELL_KNOWN}${pathOf(url)}`;
}

/** A resource identifier's path, without the lone `/` of one that has none. */
const pathOf = (url: URL): string => (url.pathname === '/' ? '' : url.pathname);

/** The metadata document (RFC 9728 §2) of the API: the same for every request, from the options alone. */
function documentOf(settings: Settings, routeScopes: ReadonlySet<string>): Record<string, unknown> {
  const scopes = settings.scopes ?? [...routeScopes].sort();
  return {
    resource: resourceOf(settings),
    authorization_servers: [settings.issuer],
    ...(scopes.length > 0 ? { scopes_supported: scopes } : {}),
    // Only the Authorization header is read (RFC 6750 §2.1).
    bearer_methods_supported: ['header'],
    // Certificate-bound (RFC 8705) and DPoP-bound (RFC 9449) tokens are both accepted, neither required.
    tls_client_certificate_bound_access_tokens: true,
    dpop_signing_alg_values_supported: [...DPOP_SIGNING_ALGS],
  };
}

/**
 * Serves the metadata document at `/.well-known/oauth-protected-resource`, and also at the
 * path-suffixed URL (RFC 9728 §3.1) when the resource identifier has a path. It is public:
 * any origin may read it (browser-based clients discover the API with it), and any cache may
 * keep it, since nothing of a request goes into it.
 */
export function serveMetadata(app: FastifyInstance, settings: Settings, routeScopes: ReadonlySet<string>): void {
  const suffix = pathOf(settings.resource.url);
  // find-my-way reads `:` as a parameter; `::` is a literal colon. `*` is refused in the options.
  const paths = new Set([WELL_KNOWN, `${WELL_KNOWN}${suffix.replaceAll(':', '::')}`]);
  for (const url of paths) {
    app.get(url, async (_request, reply) =>
      reply
        .header('cache-control', 'public, max-age=300')
        .header('access-control-allow-origin', '*')
        .send(documentOf(settings, routeScopes)),
    );
  }
}
