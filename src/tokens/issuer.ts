import { randomUUID } from 'node:crypto';
import type { AuditLog, PreparedAuditEvent } from '../audit/audit-log.js';
import { scopeNames } from '../records/scope.js';
import { accessScope } from '../resources/targets.js';
import type { CodeExchange, CodeTokens } from '../store/code-exchange.js';
import type { User } from '../store/users.js';
import { askedClaimValues } from './asked-claims.js';
import { accessTokenType } from './binding.js';
import { GrantLifetime } from './grant-lifetime.js';
import { signIdToken } from './id-token.js';
import { mintJwtAccessToken } from './jwt-access-token.js';
import { type Issuance, type IssuingRequest, issuedEvent, mint, seconds } from './minting.js';
import { type PlannedTokens, plannedTokens, refreshKeyThumbprint } from './planned-tokens.js';
import type { ScopeClaims } from './scope-claims.js';
import { randomSecret, sha256 } from '../secrets.js';
import type { RealmSigner } from './signer.js';
import type { Subjects } from './subject.js';
import { type AccessTokenRequest, type MintedTokens, type TokenResponse, type UserTokensRequest, grantedDetails, issuesRefreshTokens } from './token-requests.js';

export { type AccessTokenRequest, type MintedTokens, type TokenResponse, type UserTokensRequest, issuesRefreshTokens } from './token-requests.js';

/** What a code exchange is asked for beyond the code: its tokens' client, audiences (and their scopes) and binding. */
export type CodeExchangeRequest = Pick<UserTokensRequest, 'realm' | 'client' | 'audience' | 'audienceScopes' | 'certificateThumbprint' | 'keyThumbprint' | 'address' | 'authorizationDetails'>;

/** A refresh of a person's grant: its successors are written only if the presented token is still live, and answer its person. */
export type RefreshRequest = Omit<UserTokensRequest, 'user'> & { userId: string; refreshScope: readonly string[] };

/**
 * The tokens of a code exchange, minted before the code is read (src/store/code-exchange.ts):
 * all but what the code decides, which the statement sets. `complete`, once the exchange has
 * written them, signs what is signed and answers.
 */
export interface MintedCodeTokens {
  readonly tokens: CodeTokens;
  complete(exchanged: Extract<CodeExchange, { issued: unknown }>): Promise<TokenResponse>;
}

/**
 * Mints tokens; the store writes them (src/grants/issue.ts). Access and refresh tokens are
 * opaque 256-bit values of which only the SHA-256 is stored; their rows are committed before
 * the values are returned. In a realm with `stateless_tokens`, access tokens are RFC 9068 JWTs
 * instead, stored nowhere (src/tokens/jwt-access-token.ts); refresh tokens stay opaque and
 * stored, so that rotation and replay detection work alike, and share the grant id the JWTs
 * carry. ID tokens are signed with the client's `id_token_signed_response_alg`. What is signed
 * is made by `complete`, once what is stored is written (after its transaction, if any):
 * signing may need to read the realm's keys, and the claims that the token's scopes map about its
 * person (src/tokens/scope-claims.ts) go into the JWTs.
 */
export class TokenIssuer {
  constructor(
    private readonly signer: RealmSigner,
    private readonly audit: AuditLog,
    private readonly scopeClaims: Pick<ScopeClaims, 'claimsFor'>,
    private readonly subjects: Pick<Subjects, 'for' | 'pairwiseJwt'>,
  ) {}

  /** An access token alone (no person signed in here, or token exchange). */
  accessToken(request: AccessTokenRequest): MintedTokens {
    const issuedAt = new Date();
    const grantLifetime = new GrantLifetime(request.realm.settings, request.grantStartedAt ?? issuedAt);
    const lifetime = grantLifetime.lifetime(request.realm.settings.access_token_lifetime, issuedAt);
    const scopes = accessScope(request.scope, request.audienceScopes);
    const scope = scopes.join(' ');
    const grantId = request.grantId ?? randomUUID();
    const issuance = (kind: string): Issuance => ({ grantId, userId: request.userId, scope, kinds: [kind] });
    const response = (accessToken: string): TokenResponse => ({
      access_token: accessToken, token_type: accessTokenType(request), expires_in: lifetime, scope, ...grantedDetails(request.authorizationDetails),
    });
    if (request.realm.settings.stateless_tokens) {
      // A DPoP-bound token's issuance writes a statement anyway, its proof's jti (src/grants/issue.ts):
      // its event goes in it rather than in a statement of the audit trail's.
      const event = request.keyThumbprint === undefined ? undefined : this.prepareIssued(request, issuance('jwt_access_token'));
      const complete = async (): Promise<TokenResponse> => {
        // A token without a person (client credentials) carries no claims about one.
        const mapped = request.userId === undefined ? undefined : await this.scopeClaims.claimsFor(request.realm.name, scopes, request.userId, ['access_token']);
        const accessToken = await mintJwtAccessToken(this.signer, request.realm, {
          grantId,
          clientId: request.client.client_id,
          subject: request.subject,
          scope,
          authTime: request.signIn && seconds(request.signIn.authTime),
          sid: request.signIn?.sid,
          certificateThumbprint: request.certificateThumbprint,
          keyThumbprint: request.keyThumbprint,
          act: request.act,
          audience: request.audience,
          clientSubject: request.userId === undefined,
          lifetime,
          claims: mapped?.access_token,
          pairwise: this.subjects.pairwiseJwt(request.client, request.userId),
          authorizationDetails: request.authorizationDetails,
        });
        if (event) event.committed();
        else this.audit.record(issuedEvent(request, issuance('jwt_access_token')), request.realm.settings.audit_event_lifetime);
        return response(accessToken);
      };
      return { rows: [], event: event?.row, complete };
    }
    const event = this.prepareIssued(request, issuance('access_token'));
    const minted = mint(request.realm, request.client, {
      kind: 'access_token',
      grantId,
      grantType: request.grantType,
      subject: request.subject,
      userId: request.userId,
      signIn: request.signIn,
      certificateThumbprint: request.certificateThumbprint,
      keyThumbprint: request.keyThumbprint,
      act: request.act,
      audience: request.audience,
      scope,
      lifetime,
      grantStartedAt: request.grantStartedAt ?? issuedAt,
      authorizationDetails: request.authorizationDetails,
    }, issuedAt);
    return {
      rows: [minted.row],
      event: event.row,
      complete: async () => {
        event.committed();
        return response(minted.value);
      },
    };
  }

  /** A person's tokens: an access token, a refresh token when asked, an ID token for `openid`. */
  userTokens(request: UserTokensRequest): MintedTokens {
    const planned = this.plan(request, request.user.id);
    return { rows: planned.rows, event: planned.event?.row, complete: () => this.complete(request, planned) };
  }

  /** The successors of a refresh token (rotation), for the statement that uses it (src/store/tokens.ts); the person behind it completes them. */
  refreshedTokens(request: RefreshRequest): MintedTokens<User> {
    const planned = this.plan(request, request.userId);
    return { rows: planned.rows, event: planned.event?.row, complete: (user) => this.complete({ ...request, user }, planned) };
  }

  /**
   * RFC 6749 §4.1.3: the tokens a code is exchanged for, in the statement that uses it up
   * (src/store/code-exchange.ts), all but what the code decides; they are written only when
   * the presented redirect URI and verifier match the code and its person exists.
   */
  codeTokens(request: CodeExchangeRequest): MintedCodeTokens {
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
    const tokens: CodeTokens = {
      tokens: stored.map((token) => ({
        hash: sha256(token.value),
        kind: token.kind,
        expiresAt: new Date(issuedAt.getTime() + token.lifetime * 1000),
        keyThumbprint: token.kind === 'access_token' ? request.keyThumbprint : refreshKeyThumbprint(request),
      })),
      clientInternalId: client.internalId,
      issuedAt,
      certificateThumbprint: request.certificateThumbprint,
      audience: request.audience,
      audienceScopes: request.audienceScopes,
      audienceAllowed: (request.audience ?? []).every((value) => client.allowed_audiences?.includes(value)),
      authorizationDetails: request.authorizationDetails,
      // The code decides the grant, the person, the scope and its resources: the statement sets them.
      event: this.prepareIssued(issuing, { grantId: '', userId: undefined, scope: '', kinds }).row,
    };
    const complete = ({ issued: code, user, accessWithin }: Extract<CodeExchange, { issued: unknown }>): Promise<TokenResponse> => {
      const scope = scopeNames(code.scope);
      const written: UserTokensRequest = {
        ...request,
        ...issuing,
        user,
        scope,
        // As the statement wrote the access token: for the audiences asked, else the code's resources.
        audience: request.audience ?? code.resources,
        audienceScopes: accessWithin,
        grantId: code.grantId,
        grantStartedAt: issuedAt,
        signIn: { authTime: code.authTime, amr: code.amr, acr: code.acr, sid: code.sid },
        refreshScope: refresh ? scope : undefined,
        nonce: code.nonce,
        askedClaims: code.askedClaims,
        // As the statement wrote them: the access token's as asked at the exchange (within the code's), else the code's.
        authorizationDetails: request.authorizationDetails ?? code.authorizationDetails,
        refreshAuthorizationDetails: code.authorizationDetails,
      };
      const issuance = {
        grantId: code.grantId,
        userId: user.id,
        scope: accessScope(scope, accessWithin).join(' '),
        kinds: [...kinds, ...(scope.includes('openid') ? ['id_token'] : [])],
      };
      const planned: PlannedTokens = {
        grantId: code.grantId,
        grantLifetime,
        accessLifetime,
        rows: [],
        values: stored.map((token) => token.value),
        issuance,
        event: this.prepareIssued(written, issuance),
      };
      return this.complete(written, planned);
    };
    return { tokens, complete };
  }

  /** The stored tokens of a person's grant, and the event of their issuance when any is stored. */
  private plan(request: Omit<UserTokensRequest, 'user'>, userId: string): PlannedTokens {
    const planned = plannedTokens(request, userId);
    return { ...planned, event: planned.rows.length > 0 ? this.prepareIssued(request, planned.issuance) : undefined };
  }

  /** Signs what is signed (a stateless access token, the ID token) and answers; the tokens are issued. */
  private async complete(request: UserTokensRequest, planned: PlannedTokens): Promise<TokenResponse> {
    const { realm, client, user, signIn } = request;
    const { scope } = planned.issuance;
    const stateless = realm.settings.stateless_tokens;
    const openid = request.scope.includes('openid');
    // The access token's claims are those of its own scope, which its audience may narrow; the ID token's those of the grant's.
    const accessScopes = accessScope(request.scope, request.audienceScopes);
    const narrowed = accessScopes.length !== request.scope.length;
    const mapped = await this.scopeClaims.claimsFor(realm.name, request.scope, user, [
      ...(stateless && !narrowed ? (['access_token'] as const) : []),
      ...(openid ? (['id_token'] as const) : []),
    ]);
    const accessClaims = stateless && narrowed ? (await this.scopeClaims.claimsFor(realm.name, accessScopes, user, ['access_token'])).access_token : mapped.access_token;
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
          keyThumbprint: request.keyThumbprint,
          audience: request.audience,
          lifetime,
          claims: accessClaims,
          askedUserinfo: request.askedClaims?.userinfo,
          since: request.credentialsReadAt,
          pairwise: this.subjects.pairwiseJwt(client, user.id),
          authorizationDetails: request.authorizationDetails,
        })
      : undefined;
    const [accessToken, refreshToken] = minted === undefined ? planned.values : [minted, ...planned.values];
    const response: TokenResponse = { access_token: accessToken!, token_type: accessTokenType(request), expires_in: lifetime, scope, ...grantedDetails(request.authorizationDetails) };
    if (refreshToken) response.refresh_token = refreshToken;
    if (openid) {
      const asked = await askedClaimValues(this.scopeClaims, realm.name, request.scope, user, request.askedClaims?.id_token);
      const claims = { ...mapped.id_token, ...asked };
      response.id_token = await signIdToken(this.signer, request, this.subjects.for(client, user.id), { accessToken: accessToken!, refreshToken }, (nowMs) => planned.grantLifetime.signedLifetime(planned.accessLifetime, nowMs), claims);
    }
    if (planned.event) planned.event.committed();
    else this.audit.record(issuedEvent(request, planned.issuance), request.realm.settings.audit_event_lifetime);
    return response;
  }

  /** The `token.issued` event, for the statement that writes the tokens. */
  private prepareIssued(request: IssuingRequest, issuance: Issuance): PreparedAuditEvent {
    return this.audit.prepare(issuedEvent(request, issuance), request.realm.settings.audit_event_lifetime);
  }
}
