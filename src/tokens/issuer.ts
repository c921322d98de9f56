import { randomUUID } from 'node:crypto';
import type { AuditEvent, AuditLog, PreparedAuditEvent } from '../audit/audit-log.js';
import { randomSecret, sha256 } from '../crypto/hash.js';
import { OAuthError } from '../errors.js';
import type { RequestRealm } from '../realms/resolve.js';
import type { Client } from '../store/clients.js';
import type { Db, Queryable } from '../store/db.js';
import type { Actor, NewToken, SignIn, TokenRecord, TokenStore } from '../store/tokens.js';
import type { User } from '../store/users.js';
import { claimsForScope } from '../users/claims.js';
import { GrantLifetime } from './grant-lifetime.js';
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
  /** When the grant it joins began; now when absent. */
  grantStartedAt?: Date | undefined;
  /** The sign-in behind the grant it joins, so that signing out ends it too. */
  signIn?: SignIn | undefined;
  /** The client's address, for the audit trail. */
  address?: string | undefined;
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
  /** When the grant they join began (its first token); now when absent, for a new grant. */
  grantStartedAt?: Date | undefined;
  signIn: SignIn;
  /** The scope of the refresh token to issue (the whole grant's), or none. */
  refreshScope?: readonly string[];
  /** From the authorization request, for the ID token (OIDC Core §3.1.3.6). */
  nonce?: string | undefined;
  /** RFC 8705 §3: the thumbprint of the client certificate to bind the tokens to. */
  certificateThumbprint?: string | undefined;
  /** The client's address, for the audit trail. */
  address?: string | undefined;
  /** The access token's `aud` (RFC 8707, RFC 8693 §2.1); the realm's issuer when absent. */
  audience?: readonly string[] | undefined;
  /** The audiences of the whole grant, kept with the refresh token (none when given as undefined); `audience` when not given. */
  refreshAudience?: readonly string[] | undefined;
}

/**
 * The rows of a person's stored tokens, and their values, in the order access token, refresh
 * token; and the event of their issuance, written with them (none when nothing is stored).
 */
interface PlannedTokens {
  grantId: string;
  grantLifetime: GrantLifetime;
  /** The access token's lifetime, within the grant's (`grant_max_lifetime`). */
  accessLifetime: number;
  rows: NewToken[];
  values: string[];
  issuance: Issuance;
  event: PreparedAuditEvent | undefined;
}

/** What the `token.issued` event tells. */
interface Issuance {
  grantId: string;
  userId: string | undefined;
  scope: string;
  kinds: readonly string[];
}

/** A person's tokens, written; `complete` signs what is signed and answers. */
export interface WrittenTokens {
  complete(): Promise<TokenResponse>;
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
  const digest = sha256(accessToken);
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

/** A stored token: its new opaque value, and its row, which holds only the value's hash. */
interface MintedToken {
  value: string;
  row: NewToken;
}

/** What a token's row says beyond its realm, client and times. */
type TokenFields = Omit<TokenRecord, 'realm' | 'clientId' | 'issuedAt' | 'expiresAt'> & { lifetime: number };

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
    private readonly db: Db,
    private readonly audit: AuditLog,
  ) {}

  /**
   * Runs `fn` in one transaction, for a grant that uses something up (a code, a refresh
   * token, an approval) and issues tokens in its place: both commit together, or neither
   * does, so that an outage between the two leaves no grant half-written. `fn` passes the
   * transaction to its store calls and to `writeUserTokens`, and makes no other query (the
   * embedded store has one connection, which the transaction holds).
   */
  atomically<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.db.transaction(fn);
  }

  async issueAccessToken(request: AccessTokenRequest): Promise<TokenResponse> {
    const issuedAt = new Date();
    const grantLifetime = new GrantLifetime(request.realm.settings, request.grantStartedAt ?? issuedAt);
    const lifetime = grantLifetime.lifetime(request.realm.settings.access_token_lifetime, issuedAt);
    const scope = request.scope.join(' ');
    const grantId = request.grantId ?? randomUUID();
    const issuance = (kind: string): Issuance => ({ grantId, userId: request.userId, scope, kinds: [kind] });
    const response = (accessToken: string): TokenResponse => ({ access_token: accessToken, token_type: 'Bearer', expires_in: lifetime, scope });
    if (request.realm.settings.stateless_tokens) {
      const accessToken = await mintJwtAccessToken(this.signer, request.realm, {
        grantId,
        clientId: request.client.client_id,
        subject: request.subject,
        scope,
        authTime: request.signIn && seconds(request.signIn.authTime),
        sid: request.signIn?.sid,
        certificateThumbprint: request.certificateThumbprint,
        act: request.act,
        audience: request.audience,
        clientSubject: request.userId === undefined,
        lifetime,
      });
      this.audit.record(issuedEvent(request, issuance('jwt_access_token')));
      return response(accessToken);
    }
    const event = this.prepareIssued(request, issuance('access_token'));
    const [accessToken] = await this.store(event, [
      mint(request.realm, request.client, {
        kind: 'access_token',
        grantId,
        grantType: request.grantType,
        subject: request.subject,
        userId: request.userId,
        signIn: request.signIn,
        certificateThumbprint: request.certificateThumbprint,
        act: request.act,
        audience: request.audience,
        scope,
        lifetime,
        grantStartedAt: request.grantStartedAt ?? issuedAt,
      }, issuedAt),
    ]);
    event.committed();
    return response(accessToken!);
  }

  async issueUserTokens(request: UserTokensRequest): Promise<TokenResponse> {
    return (await this.writeUserTokens(request)).complete();
  }

  /**
   * Writes a person's stored tokens: in one statement, batched with other grants' (and
   * committed when this resolves), or `within` a transaction of `atomically`. What is signed
   * rather than stored (a stateless access token, the ID token) is made by `complete`, after
   * the transaction: signing may need to read the realm's keys.
   */
  async writeUserTokens(request: UserTokensRequest, within?: Queryable): Promise<WrittenTokens> {
    const planned = this.plan(request, request.user.id);
    if (!(await this.tokens.insertAll(planned.rows, planned.event?.row, within))) throw personGone();
    return { complete: () => this.complete(request, planned) };
  }

  /**
   * Uses the presented refresh token and writes its successors, committed together
   * (src/store/tokens.ts): undefined when the token was no longer live or its person is gone.
   */
  async rotateRefreshToken(
    presented: Buffer,
    request: Omit<UserTokensRequest, 'user'> & { userId: string; refreshScope: readonly string[] },
  ): Promise<WrittenTokens | undefined> {
    const planned = this.plan(request, request.userId);
    const user = await this.tokens.rotateRefreshToken(presented, request.realm.name, request.client.client_id, planned.rows, planned.event?.row);
    return user && { complete: () => this.complete({ ...request, user }, planned) };
  }

  /** The stored tokens of a person's grant (an access token unless stateless, a refresh token when asked), with their values. */
  private plan(request: Omit<UserTokensRequest, 'user'>, userId: string): PlannedTokens {
    const { realm, client, signIn } = request;
    const scope = request.scope.join(' ');
    const issuedAt = new Date();
    const grantStartedAt = request.grantStartedAt ?? issuedAt;
    const grantLifetime = new GrantLifetime(realm.settings, grantStartedAt);
    const accessLifetime = grantLifetime.lifetime(realm.settings.access_token_lifetime, issuedAt);
    const common = {
      grantId: request.grantId ?? randomUUID(),
      grantStartedAt,
      grantType: request.grantType,
      subject: userId,
      userId,
      signIn,
      certificateThumbprint: request.certificateThumbprint,
    };
    const minted: MintedToken[] = [];
    if (!realm.settings.stateless_tokens) {
      minted.push(
        mint(realm, client, { ...common, kind: 'access_token', scope, audience: request.audience, lifetime: accessLifetime }, issuedAt),
      );
    }
    if (request.refreshScope) {
      minted.push(
        mint(realm, client, {
          ...common,
          kind: 'refresh_token',
          scope: request.refreshScope.join(' '),
          audience: 'refreshAudience' in request ? request.refreshAudience : request.audience,
          lifetime: grantLifetime.lifetime(realm.settings.refresh_token_lifetime, issuedAt),
        }, issuedAt),
      );
    }
    const kinds = [
      realm.settings.stateless_tokens ? 'jwt_access_token' : 'access_token',
      ...(request.refreshScope ? ['refresh_token'] : []),
      ...(request.scope.includes('openid') ? ['id_token'] : []),
    ];
    const issuance = { grantId: common.grantId, userId, scope, kinds };
    const event = minted.length > 0 ? this.prepareIssued(request, issuance) : undefined;
    return { grantId: common.grantId, grantLifetime, accessLifetime, values: minted.map((token) => token.value), rows: minted.map((token) => token.row), issuance, event };
  }

  /** Signs what is signed (a stateless access token, the ID token) and answers; the tokens are issued. */
  private async complete(request: UserTokensRequest, planned: PlannedTokens): Promise<TokenResponse> {
    const { realm, client, user, signIn } = request;
    const { scope } = planned.issuance;
    const stateless = realm.settings.stateless_tokens;
    // Computed just before the JWT's `iat`, so that its `exp` stays within the grant's lifetime.
    const lifetime = stateless ? planned.grantLifetime.signedLifetime(planned.accessLifetime) : planned.accessLifetime;
    const minted = stateless
      ? await mintJwtAccessToken(this.signer, realm, {
          grantId: planned.grantId,
          clientId: client.client_id,
          subject: user.id,
          scope,
          authTime: seconds(signIn.authTime),
          sid: signIn.sid,
          certificateThumbprint: request.certificateThumbprint,
          audience: request.audience,
          lifetime,
        })
      : undefined;
    const [accessToken, refreshToken] = minted === undefined ? planned.values : [minted, ...planned.values];
    const response: TokenResponse = { access_token: accessToken!, token_type: 'Bearer', expires_in: lifetime, scope };
    if (refreshToken) response.refresh_token = refreshToken;
    if (request.scope.includes('openid')) response.id_token = await this.idToken(request, accessToken!, planned);
    if (planned.event) planned.event.committed();
    else this.audit.record(issuedEvent(request, planned.issuance));
    return response;
  }

  /** The `token.issued` event, for the statement that writes the tokens. */
  private prepareIssued(request: AccessTokenRequest | Omit<UserTokensRequest, 'user'>, issuance: Issuance): PreparedAuditEvent {
    return this.audit.prepare(issuedEvent(request, issuance), request.realm.settings.audit_event_lifetime);
  }

  /** OIDC Core §2: the ID token, with the claims the scope releases. */
  private idToken(request: UserTokensRequest, accessToken: string, planned: PlannedTokens): Promise<string> {
    const { realm, client, user, signIn } = request;
    const nowMs = Date.now();
    const now = Math.floor(nowMs / 1000);
    return this.signer.sign(realm.name, client.id_token_signed_response_alg, {
      ...claimsForScope(user, request.scope),
      iss: realm.issuer,
      sub: user.id,
      aud: client.client_id,
      exp: now + planned.grantLifetime.signedLifetime(planned.accessLifetime, nowMs),
      iat: now,
      auth_time: seconds(signIn.authTime),
      ...(request.nonce === undefined ? {} : { nonce: request.nonce }),
      at_hash: atHash(accessToken),
      amr: [...signIn.amr],
      acr: signIn.acr,
      sid: signIn.sid,
    });
  }

  /** Inserts the tokens in one statement and returns their values once written (committed, outside a transaction). */
  private async store(event: PreparedAuditEvent, minted: readonly MintedToken[]): Promise<string[]> {
    if (!(await this.tokens.insertAll(minted.map((token) => token.row), event.row))) throw personGone();
    return minted.map((token) => token.value);
  }
}

/** A person's tokens were not written: the person was deleted meanwhile (src/store/tokens.ts insertTokens). */
const personGone = () => new OAuthError('invalid_grant', 'the person behind the grant no longer exists');

/** A new token of the realm's client. Its row is written out field by field: this is the token endpoint's inner loop. */
function mint(realm: RequestRealm, client: Client, token: TokenFields, issuedAt = new Date()): MintedToken {
  const value = randomSecret();
  return {
    value,
    row: {
      hash: sha256(value),
      realm: realm.name,
      clientId: client.client_id,
      clientInternalId: client.internalId,
      kind: token.kind,
      grantId: token.grantId,
      grantStartedAt: token.grantStartedAt,
      grantType: token.grantType,
      subject: token.subject,
      userId: token.userId,
      scope: token.scope,
      issuedAt,
      expiresAt: new Date(issuedAt.getTime() + token.lifetime * 1000),
      signIn: token.signIn,
      certificateThumbprint: token.certificateThumbprint,
      act: token.act,
      audience: token.audience,
    },
  };
}

/** The `token.issued` audit event. */
function issuedEvent(request: AccessTokenRequest | Omit<UserTokensRequest, 'user'>, issuance: Issuance): AuditEvent {
  return {
    realm: request.realm.name,
    type: 'token.issued',
    clientId: request.client.client_id,
    userId: issuance.userId,
    address: request.address,
    details: { grant_type: request.grantType, grant_id: issuance.grantId, scope: issuance.scope, tokens: issuance.kinds },
  };
}
