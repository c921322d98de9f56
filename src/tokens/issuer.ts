import { randomUUID } from 'node:crypto';
import type { AuditLog, PreparedAuditEvent } from '../audit/audit-log.js';
import { scopeNames } from '../requests/scope.js';
import type { CodeExchange, PresentedCode } from '../store/code-exchange.js';
import type { NewToken, TokenStore } from '../store/tokens.js';
import { GrantLifetime } from './grant-lifetime.js';
import { signIdToken } from './id-token.js';
import { mintJwtAccessToken } from './jwt-access-token.js';
import { type Issuance, type IssuingRequest, type MintedToken, issuedEvent, mint, personGone, seconds } from './minting.js';
import { randomSecret, sha256 } from './secrets.js';
import type { RealmSigner } from './signer.js';
import { type AccessTokenRequest, type TokenResponse, type UserTokensRequest, type WrittenTokens, issuesRefreshTokens } from './token-requests.js';

export { type AccessTokenRequest, type TokenResponse, type UserTokensRequest, type WrittenTokens, issuesRefreshTokens } from './token-requests.js';

/** What a code exchange is asked for beyond the code: its tokens' client, audiences and binding. */
export type CodeExchangeRequest = Pick<UserTokensRequest, 'realm' | 'client' | 'audience' | 'certificateThumbprint' | 'address'>;

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
    private readonly audit: AuditLog,
  ) {}

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
      this.audit.record(issuedEvent(request, issuance('jwt_access_token')), request.realm.settings.audit_event_lifetime);
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
   * committed when this resolves), or with the token store of a `Store.transaction`. What is
   * signed rather than stored (a stateless access token, the ID token) is made by `complete`,
   * after the transaction: signing may need to read the realm's keys.
   */
  async writeUserTokens(request: UserTokensRequest, tokens: Pick<TokenStore, 'insertAll'> = this.tokens): Promise<WrittenTokens> {
    const planned = this.plan(request, request.user.id);
    if (!(await tokens.insertAll(planned.rows, planned.event?.row))) throw personGone();
    return { complete: () => this.complete(request, planned) };
  }

  /**
   * RFC 6749 §4.1.3: exchanges a code for a person's tokens in one statement
   * (src/store/code-exchange.ts). The stored tokens and their event are planned here, all but
   * what the code decides; they are written only when the presented redirect URI and verifier
   * match the code and its person exists. `complete` of what was written signs and answers.
   */
  async exchangeCode(presented: PresentedCode, request: CodeExchangeRequest): Promise<{ written: WrittenTokens } | Exclude<CodeExchange, { issued: unknown }>> {
    const { realm, client } = request;
    const stateless = realm.settings.stateless_tokens;
    const refresh = issuesRefreshTokens(realm, client);
    const issuedAt = new Date();
    const grantLifetime = new GrantLifetime(realm.settings, issuedAt);
    const accessLifetime = grantLifetime.lifetime(realm.settings.access_token_lifetime, issuedAt);
    const stored = [
      ...(stateless ? [] : [{ kind: 'access_token' as const, lifetime: accessLifetime }]),
      ...(refresh ? [{ kind: 'refresh_token' as const, lifetime: grantLifetime.lifetime(realm.settings.refresh_token_lifetime, issuedAt) }] : []),
    ].map((token) => ({ ...token, value: randomSecret() }));
    const kinds = [stateless ? 'jwt_access_token' : 'access_token', ...(refresh ? ['refresh_token'] : [])];
    const issuing = { realm, client, grantType: 'authorization_code', address: request.address };
    const exchange = await this.tokens.exchangeCode(presented, {
      tokens: stored.map((token) => ({ hash: sha256(token.value), kind: token.kind, expiresAt: new Date(issuedAt.getTime() + token.lifetime * 1000) })),
      clientInternalId: client.internalId,
      issuedAt,
      certificateThumbprint: request.certificateThumbprint,
      audience: request.audience,
      // The code decides the grant, the person and the scope: the statement sets them.
      event: this.prepareIssued(issuing, { grantId: '', userId: undefined, scope: '', kinds }).row,
    });
    if (!exchange || !('issued' in exchange)) return exchange;
    const { issued: code, user } = exchange;
    const scope = scopeNames(code.scope);
    const tokens: UserTokensRequest = {
      ...request,
      ...issuing,
      user,
      scope,
      grantId: code.grantId,
      grantStartedAt: issuedAt,
      signIn: { authTime: code.authTime, amr: code.amr, acr: code.acr, sid: code.sid },
      refreshScope: refresh ? scope : undefined,
      nonce: code.nonce,
    };
    const issuance = { grantId: code.grantId, userId: user.id, scope: code.scope, kinds: [...kinds, ...(scope.includes('openid') ? ['id_token'] : [])] };
    const planned: PlannedTokens = {
      grantId: code.grantId,
      grantLifetime,
      accessLifetime,
      rows: [],
      values: stored.map((token) => token.value),
      issuance,
      event: this.prepareIssued(tokens, issuance),
    };
    return { written: { complete: () => this.complete(tokens, planned) } };
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
    if (request.scope.includes('openid')) response.id_token = await signIdToken(this.signer, request, accessToken!, (nowMs) => planned.grantLifetime.signedLifetime(planned.accessLifetime, nowMs));
    if (planned.event) planned.event.committed();
    else this.audit.record(issuedEvent(request, planned.issuance), request.realm.settings.audit_event_lifetime);
    return response;
  }

  /** The `token.issued` event, for the statement that writes the tokens. */
  private prepareIssued(request: IssuingRequest, issuance: Issuance): PreparedAuditEvent {
    return this.audit.prepare(issuedEvent(request, issuance), request.realm.settings.audit_event_lifetime);
  }

  /** Inserts the tokens in one statement and returns their values once written (committed, outside a transaction). */
  private async store(event: PreparedAuditEvent, minted: readonly MintedToken[]): Promise<string[]> {
    if (!(await this.tokens.insertAll(minted.map((token) => token.row), event.row))) throw personGone();
    return minted.map((token) => token.value);
  }
}
