import { randomUUID } from 'node:crypto';
import type { PreparedAuditEvent } from '../audit/audit-log.js';
import { accessScope } from '../resources/targets.js';
import type { NewToken } from '../store/tokens.js';
import { GrantLifetime } from './grant-lifetime.js';
import { type Issuance, type MintedToken, mint } from './minting.js';
import type { UserTokensRequest } from './token-requests.js';

/**
 * The rows of a person's stored tokens, and their values, in the order access token, refresh
 * token; and the event of their issuance, written with them (none when nothing is stored).
 */
export interface PlannedTokens {
  grantId: string;
  grantLifetime: GrantLifetime;
  /** The access token's lifetime, within the grant's (`grant_max_lifetime`). */
  accessLifetime: number;
  rows: NewToken[];
  values: string[];
  issuance: Issuance;
  event: PreparedAuditEvent | undefined;
}

/** The stored tokens of a person's grant (an access token unless stateless, a refresh token when asked), with their values. */
export function plannedTokens(request: Omit<UserTokensRequest, 'user'>, userId: string): Omit<PlannedTokens, 'event'> {
  const { realm, client, signIn } = request;
  const scope = accessScope(request.scope, request.audienceScopes).join(' ');
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
    askedClaims: request.askedClaims,
  };
  const minted: MintedToken[] = [];
  if (!realm.settings.stateless_tokens) {
    minted.push(
      mint(realm, client, {
        ...common, kind: 'access_token', scope, audience: request.audience, keyThumbprint: request.keyThumbprint, lifetime: accessLifetime,
        authorizationDetails: request.authorizationDetails,
      }, issuedAt),
    );
  }
  if (request.refreshScope) {
    minted.push(
      mint(realm, client, {
        ...common,
        kind: 'refresh_token',
        scope: request.refreshScope.join(' '),
        audience: 'refreshAudience' in request ? request.refreshAudience : request.audience,
        keyThumbprint: refreshKeyThumbprint(request),
        lifetime: grantLifetime.lifetime(realm.settings.refresh_token_lifetime, issuedAt),
        authorizationDetails: request.refreshAuthorizationDetails ?? request.authorizationDetails,
      }, issuedAt),
    );
  }
  const kinds = [
    realm.settings.stateless_tokens ? 'jwt_access_token' : 'access_token',
    ...(request.refreshScope ? ['refresh_token'] : []),
    ...(request.scope.includes('openid') ? ['id_token'] : []),
  ];
  const issuance = { grantId: common.grantId, userId, scope, kinds };
  return { grantId: common.grantId, grantLifetime, accessLifetime, values: minted.map((token) => token.value), rows: minted.map((token) => token.row), issuance };
}

/**
 * RFC 9449 §5: a public client's refresh token is bound to the DPoP key its access token is,
 * since nothing else proves its holder; a confidential client's is bound to the client by its
 * authentication, and is not, so that the client may change keys.
 */
export function refreshKeyThumbprint(request: Pick<UserTokensRequest, 'client' | 'keyThumbprint'>): string | undefined {
  return request.client.client_type === 'public' ? request.keyThumbprint : undefined;
}
