import { type JWTPayload, compactVerify, createLocalJWKSet, decodeProtectedHeader } from 'jose';
import type { RequestRealm } from '../records/realm.js';
import type { SigningKeyStore } from '../store/signing-keys.js';
import { AT_JWT } from '../tokens/jwt-access-token.js';
import { SIGNING_ALGS } from '../records/signing-key.js';

/**
 * The claims of an ID token this realm issued to `clientId`, presented back as a hint
 * (OIDC Core §3.1.2.1 `id_token_hint`, CIBA Core §7.1): signed by one of the realm's published
 * keys, `iss` the realm's issuer, `aud` naming the client, `sub` present. An expired one is
 * still accepted, as OIDC says a hint may be; a JWT access token (`typ: at+jwt`) is not one.
 * Undefined when it is anything else.
 */
export async function idTokenHintClaims(
  signingKeys: SigningKeyStore,
  realm: RequestRealm,
  clientId: string,
  token: string,
): Promise<(JWTPayload & { sub: string }) | undefined> {
  try {
    // RFC 7515 §4.1.9: "application/" may prefix a typ.
    const typ = decodeProtectedHeader(token).typ?.toLowerCase().replace(/^application\//, '');
    if (typ === AT_JWT) return undefined;
  } catch {
    return undefined;
  }
  const keys = await signingKeys.published(realm.name); // a store outage is not a bad hint
  let claims: JWTPayload;
  try {
    // compactVerify checks the signature only: exp is deliberately not checked.
    const { payload } = await compactVerify(token, createLocalJWKSet({ keys: keys.map((key) => key.publicJwk) }), {
      algorithms: [...SIGNING_ALGS],
    });
    claims = JSON.parse(new TextDecoder().decode(payload)) as JWTPayload;
  } catch {
    return undefined;
  }
  if (typeof claims !== 'object' || claims === null || claims.iss !== realm.issuer) return undefined;
  const audience = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!audience.includes(clientId)) return undefined;
  if (typeof claims.sub !== 'string' || claims.sub === '') return undefined;
  return claims as JWTPayload & { sub: string };
}
