import { createHash, randomUUID } from 'node:crypto';
import { randomSecret, sha256 } from '../crypto/hash.js';
import type { RequestRealm } from '../realms/resolve.js';
import type { Client } from '../store/clients.js';
import type { Actor, SignIn, TokenRecord, TokenStore } from '../store/tokens.js';
import type { User } from '../store/users.js';
import { claimsForScope } from '../users/claims.js';
import { acrOf } from '../authn/steps.js';
import { mintJwtAccessToken } from './jwt-access-token.js';
import type { RealmSigner } from './signer.js';

/** The token response of RFC 6749 §5.1 (CONTRACT.md §3). */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token?: string;
  scope: string;
  id_token?: string;
  issued_token_type?: string;
}

export interface AccessTokenRequest {
  realm: RequestRealm;
  client: Client;
  grantType: string;
  scope: readonly string[];
  /** `sub`: the user's id, or the client's id when no person is behind the token. */
  subject: string;
  userId?: string;
  /** RFC 8705 §3: the thumbprint of the client certificate to bind the token to. */
  certificateThumbprint?: string | undefined;
  /** RFC 8693 §4.1: who acts for the subject (token exchange). */
  act?: Actor | undefined;
  /** RFC 8693 §2.1: where the token may be used; the realm's issuer when absent. */
  audience?: readonly string[] | undefined;
  /** The grant the token joins (token exchange); a new one when absent. */
  grantId?: string | undefined;
  /** The sign-in behind the grant it joins, so that signing out ends it too. */
  signIn?: SignIn | undefined;
}

/** Tokens for a person: an access token, a refresh token when asked, an ID token for `openid`. */
export interface UserTokensRequest {
  realm: RequestRealm;
  client: Client;
  grantType: string;
  user: User;
  /** The access token's scope. */
  scope: readonly string[];
  /** The grant the tokens join; a new one when absent. */
  grantId?: string;
  signIn: SignIn;
  /** The scope of the refresh token to issue (the whole grant's), or none. */
  refreshScope?: readonly string[];
  /** From the authorization request, for the ID token (OIDC Core §3.1.3.6). */
  nonce?: string | undefined;
  /** RFC 8705 §3: the thumbprint of the client certificate to bind the tokens to. */
  certificateThumbprint?: string | undefined;
}

/**
 * Whether a grant for a person brings a refresh token (CONTRACT.md §3): the client lists
 * the refresh_token grant and the realm issues them.
 */
export function issuesRefreshTokens(realm: RequestRealm, client: Client): boolean {
  return realm.settings.issue_refresh_tokens && client.grant_types.includes('refresh_token');
}

/** OIDC Core §3.1.3.6: the left half of the access token's SHA-256 (both RS256 and ES256 hash with SHA-256). */
function atHash(accessToken: string): string {
  const digest = createHash('sha256').update(accessToken, 'ascii').digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

const seconds = (date: Date): number => Math.floor(date.getTime() / 1000);

/**
 * Mints tokens. Access and refresh tokens are opaque 256-bit values of which only the
 * SHA-256 is stored; their rows are committed before the values are returned. In a realm
 * with `stateless_tokens`, access tokens are RFC 9068 JWTs instead, stored nowhere
 * (src/tokens/jwt-access-token.ts); refresh tokens stay opaque and stored, so that rotation
 * and replay detection work alike, and share the grant id the JWTs carry. ID tokens are
 * signed with the client's `id_token_signed_response_alg`.
 */
export class TokenIssuer {
  constructor(
    private readonly tokens: TokenStore,
    private readonly signer: RealmSigner,
  ) {}

  async issueAccessToken(request: AccessTokenRequest): Promise<TokenResponse> {
    const lifetime = request.realm.settings.access_token_lifetime;
    const scope = request.scope.join(' ');
    if (request.realm.settings.stateless_tokens) {
      const accessToken = await mintJwtAccessToken(this.signer, request.realm, {
        grantId: request.grantId ?? randomUUID(),
        clientId: request.client.client_id,
        subject: request.subject,
        scope,
        authTime: request.signIn && seconds(request.signIn.authTime),
        sid: request.signIn?.sid,
        certificateThumbprint: request.certificateThumbprint,
        act: request.act,
        audience: request.audience,
        lifetime,
      });
      return { access_token: accessToken, token_type: 'Bearer', expires_in: lifetime, scope };
    }
    const [accessToken] = await this.store([
      this.record(request.realm, request.client, {
        kind: 'access_token',
        grantId: request.grantId ?? randomUUID(),
        grantType: request.grantType,
        subject: request.subject,
        userId: request.userId,
        signIn: request.signIn,
        certificateThumbprint: request.certificateThumbprint,
        act: request.act,
        audience: request.audience,
        scope,
        lifetime,
      }),
    ]);
    return { access_token: accessToken!, token_type: 'Bearer', expires_in: lifetime, scope };
  }

  async issueUserTokens(request: UserTokensRequest): Promise<TokenResponse> {
    const { realm, client, user, signIn } = request;
    const common = {
      grantId: request.grantId ?? randomUUID(),
      grantType: request.grantType,
      subject: user.id,
      userId: user.id,
      signIn,
      certificateThumbprint: request.certificateThumbprint,
    };
    const lifetime = realm.settings.access_token_lifetime;
    const scope = request.scope.join(' ');
    const stateless = realm.settings.stateless_tokens;
    const records = stateless ? [] : [this.record(realm, client, { ...common, kind: 'access_token', scope, lifetime })];
    if (request.refreshScope) {
      records.push(
        this.record(realm, client, {
          ...common,
          kind: 'refresh_token',
          scope: request.refreshScope.join(' '),
          lifetime: realm.settings.refresh_token_lifetime,
        }),
      );
    }
    const jwt = stateless
      ? mintJwtAccessToken(this.signer, realm, {
          grantId: common.grantId,
          clientId: client.client_id,
          subject: user.id,
          scope,
          authTime: seconds(signIn.authTime),
          sid: signIn.sid,
          certificateThumbprint: request.certificateThumbprint,
          lifetime,
        })
      : undefined;
    const [minted, stored] = await Promise.all([jwt, this.store(records)]);
    const [accessToken, refreshToken] = minted === undefined ? stored : [minted, ...stored];
    const response: TokenResponse = { access_token: accessToken!, token_type: 'Bearer', expires_in: lifetime, scope };
    if (refreshToken) response.refresh_token = refreshToken;
    if (request.scope.includes('openid')) response.id_token = await this.idToken(request, accessToken!);
    return response;
  }

  /** OIDC Core §2: the ID token, with the claims the scope releases. */
  private idToken(request: UserTokensRequest, accessToken: string): Promise<string> {
    const { realm, client, user, signIn } = request;
    const now = Math.floor(Date.now() / 1000);
    return this.signer.sign(realm.name, client.id_token_signed_response_alg, {
      ...claimsForScope(user, request.scope),
      iss: realm.issuer,
      sub: user.id,
      aud: client.client_id,
      exp: now + realm.settings.access_token_lifetime,
      iat: now,
      auth_time: seconds(signIn.authTime),
      ...(request.nonce === undefined ? {} : { nonce: request.nonce }),
      at_hash: atHash(accessToken),
      amr: [...signIn.amr],
      acr: acrOf(signIn.amr),
      sid: signIn.sid,
    });
  }

  private record(
    realm: RequestRealm,
    client: Client,
    token: Omit<TokenRecord, 'realm' | 'clientId' | 'issuedAt' | 'expiresAt'> & { lifetime: number },
  ): TokenRecord {
    const { lifetime, ...rest } = token;
    const issuedAt = new Date();
    return { ...rest, realm: realm.name, clientId: client.client_id, issuedAt, expiresAt: new Date(issuedAt.getTime() + lifetime * 1000) };
  }

  /** Inserts the tokens together and returns their values once committed. */
  private async store(records: readonly TokenRecord[]): Promise<string[]> {
    const values = records.map(() => randomSecret());
    await Promise.all(records.map((record, i) => this.tokens.insert(sha256(values[i]!), record)));
    return values;
  }
}
