import type { AuditEvent } from '../audit/audit-log.js';
import type { RequestRealm } from '../records/realm.js';
import type { Client } from '../store/clients.js';
import type { NewToken, TokenRecord } from '../store/tokens.js';
import { randomSecret, sha256 } from '../secrets.js';
import type { AccessTokenRequest } from './token-requests.js';

/** Who is issued tokens, by which grant, from where: what every `token.issued` event tells. */
export type IssuingRequest = Pick<AccessTokenRequest, 'realm' | 'client' | 'grantType' | 'address'>;

/** What the `token.issued` event tells. */
export interface Issuance {
  grantId: string;
  userId: string | undefined;
  scope: string;
  kinds: readonly string[];
}

/** A stored token: its new opaque value, and its row, which holds only the value's hash. */
export interface MintedToken {
  value: string;
  row: NewToken;
}

/** What a token's row says beyond its realm, client and times. */
export type TokenFields = Omit<TokenRecord, 'realm' | 'clientId' | 'issuedAt' | 'expiresAt'> & { lifetime: number };

export const seconds = (date: Date): number => Math.floor(date.getTime() / 1000);

/** A new token of the realm's client. Its row is written out field by field: this is the token endpoint's inner loop. */
export function mint(realm: RequestRealm, client: Client, token: TokenFields, issuedAt = new Date()): MintedToken {
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
      keyThumbprint: token.keyThumbprint,
      act: token.act,
      audience: token.audience,
      askedClaims: token.askedClaims,
      authorizationDetails: token.authorizationDetails,
    },
  };
}

/** The `token.issued` audit event. */
export function issuedEvent(request: IssuingRequest, issuance: Issuance): AuditEvent {
  return {
    realm: request.realm.name,
    type: 'token.issued',
    clientId: request.client.client_id,
    userId: issuance.userId,
    address: request.address,
    details: { grant_type: request.grantType, grant_id: issuance.grantId, scope: issuance.scope, tokens: issuance.kinds },
  };
}
