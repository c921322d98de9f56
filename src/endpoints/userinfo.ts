import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { type TokenScheme, checkDpopPresentation, dpopAuthorization } from '../dpop/presentation.js';
import type { DpopProofs } from '../dpop/proofs.js';
import { resourceRefusal } from '../dpop/refusals.js';
import { type ErrorCode, OAuthError } from '../errors.js';
import { type ClientCertificateOf, certificateThumbprint } from '../http/client-certificate.js';
import { formParams } from '../http/form-params.js';
import type { RequestRealm } from '../records/realm.js';
import { scopeNames } from '../records/scope.js';
import { type TokenStore, isLive } from '../store/tokens.js';
import type { ClientStore } from '../store/clients.js';
import { isClientIdUrl } from '../clients/metadata-document-url.js';
import type { Subjects } from '../tokens/subject.js';
import { askedClaimValues } from '../tokens/asked-claims.js';
import { claimsForScope } from '../tokens/claims.js';
import type { ScopeClaims } from '../tokens/scope-claims.js';
import { type JwtAccessTokenVerifier, looksLikeJwt } from '../tokens/jwt-access-token.js';
import type { UserStore } from '../store/users.js';
import { sha256 } from '../secrets.js';

/** RFC 6750 §2.1: `Bearer` (any case) and a b64token. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const BEARER_SCHEME = /^Bearer(?: |$)/i;

/**
 * RFC 6750 §3: the challenge of a refused request. A request without any token gets the
 * bare challenge, with no error code (§3.1); the JSON body carries one all the same.
 */
function bearerError(
  realm: RequestRealm,
  code: Extract<ErrorCode, 'invalid_request' | 'invalid_token' | 'insufficient_scope'>,
  description: string,
  challenge: { error?: boolean; scope?: string } = { error: true },
): OAuthError {
  let header = `Bearer realm="${realm.name}"`;
  if (challenge.error) header += `, error="${code}"`;
  if (challenge.scope) header += `, scope="${challenge.scope}"`;
  return new OAuthError(code, description, { headers: { 'www-authenticate': header } });
}

/**
 * The access token of the request: from the Authorization header (RFC 6750 §2.1) or, on
 * POST, the `access_token` form field (§2.2), never both; or with the DPoP scheme (RFC 9449
 * §7.1), in the header only. Tokens in the query (§2.3) are not read: URLs end up in logs
 * (RFC 9700 §2.4).
 */
function presentedToken(request: FastifyRequest): { token: string; scheme: TokenScheme } | undefined {
  const realm = request.realm;
  const authorization = request.headers.authorization;
  let fromHeader = dpopAuthorization(realm, authorization);
  const scheme: TokenScheme = fromHeader === undefined ? 'Bearer' : 'DPoP';
  if (authorization !== undefined && BEARER_SCHEME.test(authorization)) {
    fromHeader = BEARER.exec(authorization)?.[1];
    if (fromHeader === undefined) throw bearerError(realm, 'invalid_request', 'the Authorization header is malformed');
  }
  let fromBody: string | undefined;
  if (request.method === 'POST') {
    try {
      fromBody = formParams(request.body, ['access_token']).access_token;
    } catch (error) {
      if (error instanceof OAuthError) throw bearerError(realm, 'invalid_request', error.description ?? 'the request is malformed');
      throw error;
    }
  }
  if (fromHeader !== undefined && fromBody !== undefined) {
    throw bearerError(realm, 'invalid_request', 'the access token was sent in more than one way');
  }
  const token = fromHeader ?? fromBody;
  return token === undefined ? undefined : { token, scheme };
}

interface PresentedAccessToken {
  clientId: string;
  userId?: string | undefined;
  scope: string;
  certificateThumbprint?: string | undefined;
  keyThumbprint?: string | undefined;
  /** OIDC Core §5.5: the claims its grant's request asked for UserInfo, kept with a stored token, carried by a JWT. */
  askedUserinfo?: readonly string[] | undefined;
}

/** A stored access token of the realm that is live. */
async function liveAccessToken(tokens: TokenStore, realm: RequestRealm, token: string): Promise<PresentedAccessToken | undefined> {
  const stored = await tokens.find(sha256(token));
  return isLive(stored, realm.name) && stored.kind === 'access_token' ? { ...stored, askedUserinfo: stored.askedClaims?.userinfo } : undefined;
}

/**
 * RFC 8705 §3: a certificate-bound token is accepted only over a connection that presents
 * the same certificate (CONTRACT.md §7); a bearer token anywhere.
 */
function presentedWithItsCertificate(accessToken: PresentedAccessToken, request: FastifyRequest, certificateOf: ClientCertificateOf): boolean {
  if (accessToken.certificateThumbprint === undefined) return true;
  const certificate = certificateOf(request);
  return certificate !== undefined && certificateThumbprint(certificate) === accessToken.certificateThumbprint;
}

/**
 * The UserInfo endpoint (OpenID Connect Core §5.3): the claims about the person behind an
 * access token that carries `openid`, as far as its scope releases them (§5.4), and those its
 * scopes map for `userinfo` (CONTRACT.md §10).
 */
export function userinfoEndpoint(deps: {
  tokens: TokenStore;
  users: UserStore;
  jwtAccessTokens: JwtAccessTokenVerifier;
  clientCertificate: ClientCertificateOf;
  scopeClaims: Pick<ScopeClaims, 'claimsFor'>;
  dpop: DpopProofs;
  clients: Pick<ClientStore, 'get'>;
  subjects: Pick<Subjects, 'for'>;
}): FastifyPluginAsync {
  return async (app) => {
    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      const realm = request.realm;
      const presented = presentedToken(request);
      if (presented === undefined) throw bearerError(realm, 'invalid_token', 'an access token is required', {});
      const { token } = presented;

      // In the challenge of the scheme the token came with (RFC 9449 §7.1).
      const refusal = (code: 'invalid_token' | 'insufficient_scope', description: string, scope?: string) =>
        presented.scheme === 'DPoP'
          ? resourceRefusal(realm.name, code, description, deps.dpop.nonceHeaders(realm), scope)
          : bearerError(realm, code, description, { error: true, ...(scope ? { scope } : {}) });
      const invalid = () => refusal('invalid_token', 'the access token is invalid, expired or revoked');
      const accessToken = looksLikeJwt(token) ? await deps.jwtAccessTokens.active(realm, token) : await liveAccessToken(deps.tokens, realm, token);
      if (accessToken?.userId === undefined) throw invalid();
      if (!presentedWithItsCertificate(accessToken, request, deps.clientCertificate)) {
        throw refusal('invalid_token', 'the access token is bound to a client certificate that this request did not present');
      }
      await checkDpopPresentation(deps.dpop, request, realm, '/userinfo', presented, accessToken.keyThumbprint);
      if (presented.scheme === 'DPoP') reply.headers(deps.dpop.nonceHeaders(realm));
      const scope = scopeNames(accessToken.scope);
      if (!scope.includes('openid')) {
        throw refusal('insufficient_scope', 'the access token lacks the openid scope', 'openid');
      }
      const user = await deps.users.getById(realm.name, accessToken.userId);
      // A disabled person's tokens are revoked, but for JWTs of grants that stored nothing (CONTRACT.md §10).
      if (!user?.enabled) throw invalid();
      const mapped = await deps.scopeClaims.claimsFor(realm.name, scope, user, ['userinfo']);
      const asked = await askedClaimValues(deps.scopeClaims, realm.name, scope, user, accessToken.askedUserinfo);
      // OpenID Connect Core §8: the person as the token's client sees them. Its record is cached; a client_id
      // URL's (src/clients/metadata-document.ts) is never pairwise. A JWT of a client deleted since names no one.
      const client = isClientIdUrl(accessToken.clientId) ? undefined : await deps.clients.get(realm.name, accessToken.clientId);
      if (!client && !isClientIdUrl(accessToken.clientId)) throw invalid();
      return { ...claimsForScope(user, scope), ...mapped.userinfo, ...asked, sub: client ? deps.subjects.for(client, user.id) : user.id };
    };
    app.get('/userinfo', handler);
    app.post('/userinfo', handler);
  };
}
