import { decodeJwt } from 'jose';
import { OAuthError } from '../errors.js';
import { formParams } from '../http/form-params.js';

/** What a request presents to authenticate a client (RFC 6749 §2.3). */
export interface PresentedCredentials {
  clientId: string;
  /** How they were presented; only the client's registered method is accepted. */
  form: 'client_secret_basic' | 'client_secret_post' | 'client_id_only' | 'client_assertion';
  secret: string | undefined;
  /** The JWT of `client_assertion` (RFC 7521 §4.2), not yet verified; only with that form. */
  assertion?: string;
  /** Failures then answer 401 with `WWW-Authenticate: Basic` (RFC 6749 §5.2). */
  viaAuthorizationHeader: boolean;
}

export const CLIENT_AUTH_PARAMS = ['client_id', 'client_secret', 'client_assertion', 'client_assertion_type'] as const;

/** RFC 7523 §2.2: the one client assertion type served. */
export const JWT_BEARER_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** A JWS compact serialization is far below this; the form body limit is the other bound. */
const MAX_ASSERTION_LENGTH = 16 * 1024;

/**
 * Reads the client's credentials from the Authorization header (HTTP Basic, with id and
 * secret form-urlencoded as RFC 6749 §2.3.1 says), a client assertion (RFC 7521 §4.2) or the
 * body. Using two methods at once is `invalid_request`; undefined when the request names no client.
 */
export function readClientCredentials(authorization: string | undefined, body: unknown): PresentedCredentials | undefined {
  const params = formParams(body, CLIENT_AUTH_PARAMS);
  const basic = usesBasic(authorization) ? parseBasic(authorization.slice(6).trim()) : undefined;
  const assertionParams = params.client_assertion !== undefined || params.client_assertion_type !== undefined;
  if (assertionParams) {
    if (basic || params.client_secret) throw new OAuthError('invalid_request', 'use one client authentication method, not several');
    return readAssertion(params);
  }
  if (basic) {
    if (params.client_secret) throw new OAuthError('invalid_request', 'use one client authentication method, not several');
    if (params.client_id && params.client_id !== basic.clientId) {
      throw new OAuthError('invalid_request', 'client_id does not match the Authorization header');
    }
    // Written out, not `{ ...basic, … }`: V8 (Node 20) kept such spread-and-extend objects' contents
    // alive past their scavenge, so that each request's credentials were promoted to the old generation.
    return { clientId: basic.clientId, secret: basic.secret, form: 'client_secret_basic', viaAuthorizationHeader: true };
  }
  if (!params.client_id) return undefined;
  return params.client_secret
    ? { clientId: params.client_id, secret: params.client_secret, form: 'client_secret_post', viaAuthorizationHeader: false }
    : { clientId: params.client_id, secret: undefined, form: 'client_id_only', viaAuthorizationHeader: false };
}

/**
 * A client assertion names its client with `sub` (RFC 7523 §3); `client_id`, optional here
 * (RFC 7521 §4.2), must then name the same one. The JWT is only decoded here, to find the
 * client whose keys verify it; nothing in it is trusted before that.
 *
 * Both parameters are needed (a missing one is `invalid_request`, RFC 6749 §5.2). An
 * assertion type other than JWT bearer is an authentication method this server does not
 * support, which RFC 6749 §5.2 answers with `invalid_client`; so is an assertion that is
 * not a JWT naming a client, as RFC 7521 §4.2.1 says of invalid assertions.
 */
function readAssertion(params: Partial<Record<(typeof CLIENT_AUTH_PARAMS)[number], string>>): PresentedCredentials {
  const { client_assertion: assertion, client_assertion_type: type } = params;
  if (assertion === undefined) throw new OAuthError('invalid_request', 'client_assertion is required with client_assertion_type');
  if (type === undefined) throw new OAuthError('invalid_request', 'client_assertion_type is required with client_assertion');
  if (type !== JWT_BEARER_ASSERTION_TYPE) throw new OAuthError('invalid_client', 'unsupported client_assertion_type');
  const malformed = (): OAuthError => new OAuthError('invalid_client', 'malformed client assertion');
  if (assertion.length > MAX_ASSERTION_LENGTH) throw malformed();
  let subject: unknown;
  try {
    subject = decodeJwt(assertion).sub;
  } catch {
    throw malformed();
  }
  // No client id is long or holds control characters; such a sub would only reach the store to fail there.
  if (typeof subject !== 'string' || subject === '' || subject.length > 256 || /[\x00-\x1f\x7f]/.test(subject)) throw malformed();
  if (params.client_id !== undefined && params.client_id !== subject) {
    throw new OAuthError('invalid_client', 'client_id does not match the client assertion');
  }
  return { clientId: subject, secret: undefined, assertion, form: 'client_assertion', viaAuthorizationHeader: false };
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

/** Most ids and secrets need no decoding: the common case skips the regular expression and decodeURIComponent. */
const formDecode = (value: string): string =>
  value.includes('%') || value.includes('+') ? decodeURIComponent(value.replace(/\+/g, ' ')) : value;
