import { type JWTPayload, createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import type { RequestRealm } from '../records/realm.js';
import type { RevokedJwts } from '../store/revoked-jwts.js';
import type { SigningKeyStore } from '../store/signing-keys.js';
import { SIGNING_ALGS } from '../records/signing-key.js';
import { jtiTime } from './jti.js';

/** An ID token this realm issued, as a subject token reads it. */
export type OwnIdTokenClaims = JWTPayload & { sub: string; iat: number; exp: number };

/**
 * The claims of a live ID token this realm issued to `clientId` (OIDC Core §2), presented as
 * the subject of a token exchange (draft-ietf-oauth-identity-assertion-authz-grant §4.3):
 * signed by one of the realm's published keys, an untyped or `JWT`-typed JWS (an access token,
 * `at+jwt`, or any other typed JWT of the realm is not one), `iss` the realm, `aud` naming the
 * client, not expired, and neither its person's tokens up to its `iat` (a password change, a
 * disable) nor its session (`sid`, a logout) denied since. Undefined when it is anything else.
 */
export async function ownIdTokenClaims(
  deps: { signingKeys: SigningKeyStore; revokedJwts: Pick<RevokedJwts, 'isDenied'> },
  realm: RequestRealm,
  clientId: string,
  token: string,
): Promise<OwnIdTokenClaims | undefined> {
  try {
    const typ = decodeProtectedHeader(token).typ;
    if (typ !== undefined && typ.toLowerCase().replace(/^application\//, '') !== 'jwt') return undefined;
  } catch {
    return undefined;
  }
  const keys = await signingKeys(deps.signingKeys, realm);
  let claims: JWTPayload;
  try {
    ({ payload: claims } = await jwtVerify(token, keys, {
      algorithms: [...SIGNING_ALGS],
      issuer: realm.issuer,
      audience: clientId,
      requiredClaims: ['sub', 'iat', 'exp'],
    }));
  } catch {
    return undefined;
  }
  if (typeof claims.sub !== 'string' || claims.sub === '') return undefined;
  const sid = typeof claims.sid === 'string' ? claims.sid : undefined;
  // `iat` has seconds only; the jti carries the millisecond (an ID token of an older version: the second's start).
  const issuedAtMs = (typeof claims.jti === 'string' ? jtiTime(claims.jti) : undefined) ?? claims.iat! * 1000;
  const denied = await deps.revokedJwts.isDenied(realm.name, { jti: '', grantId: undefined, userId: claims.sub, sid, issuedAtMs });
  return denied ? undefined : (claims as OwnIdTokenClaims);
}

async function signingKeys(store: SigningKeyStore, realm: RequestRealm) {
  const published = await store.published(realm.name);
  return createLocalJWKSet({ keys: published.map((key) => key.publicJwk) });
}
