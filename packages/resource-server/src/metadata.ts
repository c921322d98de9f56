import { AuthorizationServerUnavailable } from './errors.js';
import type { Settings } from './options.js';

/** What the API needs to know of the authorization server. */
export interface Endpoints {
  jwksUri: URL;
  /** Absent when the server advertises none. */
  introspectionEndpoint: URL | undefined;
}

/**
 * The endpoints, from the options or else from the issuer's discovery document (OpenID
 * Connect Discovery §4; realmgate serves the same at RFC 8414's path). The document is read
 * when the first token arrives, not at start, so that the API may start before the
 * authorization server; a failure is retried by the next request, and concurrent requests
 * share one fetch.
 */
export function endpointResolver(settings: Settings): () => Promise<Endpoints> {
  const { jwksUri, introspectionEndpoint } = settings;
  if (jwksUri && (introspectionEndpoint || !settings.introspection)) {
    const known = Promise.resolve({ jwksUri, introspectionEndpoint });
    return () => known;
  }
  let pending: Promise<Endpoints> | undefined;
  return () => {
    pending ??= discover(settings).catch((error: unknown) => {
      pending = undefined;
      throw error;
    });
    return pending;
  };
}

async function discover(settings: Settings): Promise<Endpoints> {
  const url = `${settings.issuer}/.well-known/openid-configuration`;
  let document: unknown;
  try {
    const response = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(settings.timeoutMs) });
    if (response.status !== 200) throw new Error(`status ${response.status}`);
    document = await response.json();
  } catch (error) {
    throw new AuthorizationServerUnavailable(`discovery at ${url} failed: ${(error as Error).message}`, { cause: error });
  }
  const metadata = (typeof document === 'object' && document !== null ? document : {}) as Record<string, unknown>;
  // OpenID Connect Discovery §4.3: the document must be the issuer's own.
  if (metadata.issuer !== settings.issuer) {
    throw new AuthorizationServerUnavailable(`the discovery document at ${url} names another issuer`);
  }
  return {
    jwksUri: settings.jwksUri ?? endpoint(metadata.jwks_uri, 'jwks_uri', url),
    introspectionEndpoint:
      settings.introspectionEndpoint ?? (metadata.introspection_endpoint === undefined ? undefined : endpoint(metadata.introspection_endpoint, 'introspection_endpoint', url)),
  };
}

function endpoint(value: unknown, name: string, url: string): URL {
  try {
    if (typeof value === 'string') {
      const parsed = new URL(value);
      if (parsed.protocol === 'https:' || parsed.protocol === 'http:') return parsed;
    }
  } catch {
    // Reported below.
  }
  throw new AuthorizationServerUnavailable(`the discovery document at ${url} has no usable ${name}`);
}
