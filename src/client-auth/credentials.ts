import { OAuthError } from '../errors.js';
import { formParams } from '../http/form-params.js';

/** What a request presents to authenticate a client (RFC 6749 §2.3). */
export interface PresentedCredentials {
  clientId: string;
  /** How they were presented; only the client's registered method is accepted. */
  form: 'client_secret_basic' | 'client_secret_post' | 'client_id_only';
  secret: string | undefined;
  /** Failures then answer 401 with `WWW-Authenticate: Basic` (RFC 6749 §5.2). */
  viaAuthorizationHeader: boolean;
}

export const CLIENT_AUTH_PARAMS = ['client_id', 'client_secret'] as const;

/**
 * Reads the client's credentials from the Authorization header (HTTP Basic, with id and
 * secret form-urlencoded as RFC 6749 §2.3.1 says) or from the body. Using two methods at
 * once is `invalid_request`; undefined when the request names no client.
 */
export function readClientCredentials(authorization: string | undefined, body: unknown): PresentedCredentials | undefined {
  const params = formParams(body, CLIENT_AUTH_PARAMS);
  const basic = usesBasic(authorization) ? parseBasic(authorization.slice(6).trim()) : undefined;
  if (basic) {
    if (params.client_secret) throw new OAuthError('invalid_request', 'use one client authentication method, not several');
    if (params.client_id && params.client_id !== basic.clientId) {
      throw new OAuthError('invalid_request', 'client_id does not match the Authorization header');
    }
    return { ...basic, form: 'client_secret_basic', viaAuthorizationHeader: true };
  }
  if (!params.client_id) return undefined;
  return params.client_secret
    ? { clientId: params.client_id, secret: params.client_secret, form: 'client_secret_post', viaAuthorizationHeader: false }
    : { clientId: params.client_id, secret: undefined, form: 'client_id_only', viaAuthorizationHeader: false };
}

export function usesBasic(authorization: string | undefined): authorization is string {
  return authorization !== undefined && /^basic /i.test(authorization);
}

function parseBasic(encoded: string): { clientId: string; secret: string } {
  const malformed = (): OAuthError => new OAuthError('invalid_client', 'malformed Basic credentials');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) throw malformed();
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 1) throw malformed();
  try {
    const clientId = formDecode(decoded.slice(0, colon));
    const secret = formDecode(decoded.slice(colon + 1));
    if (!secret) throw malformed();
    return { clientId, secret };
  } catch {
    throw malformed();
  }
}

const formDecode = (value: string): string => decodeURIComponent(value.replace(/\+/g, ' '));
