// What an authorization request answers its client (RFC 6749 §4.1.2): a code, or an error.
import { randomUUID } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { OAuthError } from '../errors.js';
import { codeLifetime } from '../profiles/fapi2.js';
import type { RequestRealm } from '../realms/resolve.js';
import type { AuthorizationRequest } from '../requests/authorization-request.js';
import type { AuthorizationCode } from '../store/authorization-codes.js';
import type { Session } from '../store/sessions.js';
import { randomSecret, sha256 } from '../tokens/secrets.js';

/** The redirect URI with the response parameters added to its query (RFC 6749 §4.1.2, RFC 9207). */
export function redirectTo(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.append(name, value);
  return url.href;
}

/** Sends the person back to the client with an error (RFC 6749 §4.1.2.1), with `state` and `iss`. */
export function redirectError(
  reply: FastifyReply,
  realm: RequestRealm,
  request: { redirectUri: string; state?: string | undefined },
  error: OAuthError,
) {
  const params = { error: error.code, error_description: error.description, state: request.state, iss: realm.issuer };
  return reply.redirect(redirectTo(request.redirectUri, params), 303);
}

/** RFC 6749 §4.1.2: a new single-use code bound to the client, redirect URI, challenge, nonce, DPoP key (RFC 9449 §10) and resources (RFC 8707); its row holds its hash. */
export function newCode(realm: RequestRealm, authz: AuthorizationRequest, session: Session): { value: string; hash: Buffer; code: AuthorizationCode } {
  const value = randomSecret();
  return {
    value,
    hash: sha256(value),
    code: {
      realm: realm.name,
      clientId: authz.clientId,
      grantId: randomUUID(),
      userId: session.userId,
      sid: session.sid,
      scope: authz.scope.join(' '),
      redirectUri: authz.redirectUri,
      redirectUriGiven: authz.redirectUriGiven,
      codeChallenge: authz.codeChallenge,
      nonce: authz.nonce,
      authTime: session.authTime,
      amr: session.amr,
      acr: session.acr,
      expiresAt: new Date(Date.now() + codeLifetime(realm.settings) * 1000),
      dpopJkt: authz.dpopJkt,
      resources: authz.resource,
    },
  };
}

/** Sends the person back to the client with the code, its state and the issuer (RFC 9207). */
export function deliverCode(reply: FastifyReply, realm: RequestRealm, authz: AuthorizationRequest, code: string) {
  return reply.redirect(redirectTo(authz.redirectUri, { code, state: authz.state, iss: realm.issuer }), 303);
}
