// What an authorization request answers its client (RFC 6749 §4.1.2): a code, or an error,
// in the response mode the request asked for (query, form_post, JARM).
import { randomUUID } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { OAuthError } from '../errors.js';
import { formPostPage } from '../pages/form-post.js';
import { messagesOf } from './locale.js';
import { sendPage } from './send-page.js';
import { codeLifetime } from '../profiles/fapi2.js';
import type { RequestRealm } from '../records/realm.js';
import type { AuthorizationRequest, ResponseMode } from '../records/authorization-request.js';
import { askedClaimsOf } from '../requests/claims-request.js';
import type { AuthorizationCode } from '../store/authorization-codes.js';
import type { Session } from '../store/sessions.js';
import { randomSecret, sha256 } from '../secrets.js';
import type { ClientDirectory } from '../clients/metadata-document-clients.js';
import type { RealmSigner } from '../tokens/signer.js';

/** The redirect URI with the response parameters added to its query (RFC 6749 §4.1.2, RFC 9207). */
export function redirectTo(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.append(name, value);
  return url.href;
}

/** Where an authorization response goes: the client's trusted redirect URI, in the mode its request asked for. */
export interface ResponseTarget {
  clientId: string;
  redirectUri: string;
  state?: string | undefined;
  /** Absent: `query`. */
  responseMode?: ResponseMode | undefined;
}

/** JARM §2.1: the response JWT is read at once by the client; it lives long enough for a slow redirect. */
const RESPONSE_JWT_LIFETIME_SECONDS = 300;


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
      askedClaims: askedClaimsOf(authz.claims),
      authorizationDetails: authz.authorizationDetails,
    },
  };
}


/**
 * Sends the person back to the client: a code or an error, in the response mode its request
 * asked for. It signs JARM responses with the realm's key of the client's choice.
 */
export class AuthorizationResponses {
  constructor(private readonly deps: { signer: RealmSigner; clients: ClientDirectory }) {}

  /** Sends the person back to the client with an error (RFC 6749 §4.1.2.1), with `state` and `iss`. */
  redirectError(reply: FastifyReply, realm: RequestRealm, target: ResponseTarget, error: OAuthError) {
    return this.respond(reply, realm, target, { error: error.code, error_description: error.description, state: target.state });
  }

  /** Sends the person back to the client with the code, its state and the issuer (RFC 9207). */
  deliverCode(reply: FastifyReply, realm: RequestRealm, authz: AuthorizationRequest, code: string) {
    return this.respond(reply, realm, authz, { code, state: authz.state });
  }

  /**
   * The response's parameters with the issuer (RFC 9207), as a redirect with a query or a form
   * POSTed to the redirect URI (Form Post Response Mode); in a JARM mode (JARM §2.3) the one
   * parameter `response`, a JWT signed with the realm's key of the client's
   * `authorization_signed_response_alg` that holds them, `iss` and `aud` among them.
   */
  private async respond(reply: FastifyReply, realm: RequestRealm, target: ResponseTarget, params: Record<string, string | undefined>) {
    const mode = target.responseMode ?? 'query';
    const parameters = definedOnly({ ...params, iss: realm.issuer });
    const fields = mode.endsWith('.jwt') ? { response: await this.responseJwt(realm, target, parameters) } : parameters;
    if (mode.startsWith('form_post')) {
      const page = formPostPage(messagesOf(reply.request), target.redirectUri, fields);
      return sendPage(reply, page.options, page.body);
    }
    return reply.redirect(redirectTo(target.redirectUri, fields), 303);
  }

  private async responseJwt(realm: RequestRealm, target: ResponseTarget, parameters: Record<string, string>): Promise<string> {
    // The client is cached: a JARM response reads nothing from the database.
    const client = await this.deps.clients.get(realm, target.clientId);
    const now = Math.floor(Date.now() / 1000);
    return this.deps.signer.sign(realm.name, client?.authorization_signed_response_alg ?? 'RS256', {
      ...parameters,
      iss: realm.issuer,
      aud: target.clientId,
      iat: now,
      exp: now + RESPONSE_JWT_LIFETIME_SECONDS,
    });
  }
}

function definedOnly(params: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(params).filter((entry): entry is [string, string] => entry[1] !== undefined));
}
