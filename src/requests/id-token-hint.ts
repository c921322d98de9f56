import { type JWTPayload, compactVerify, createLocalJWKSet, decodeProtectedHeader } from 'jose';
import type { RequestRealm } from '../records/realm.js';
import type { SigningKeyStore } from '../store/signing-keys.js';
import { SIGNING_ALGS } from '../records/signing-key.js';

/**
 * The claims of an ID token this realm signed, presented back as a hint (OIDC Core §3.1.2.1
 * `id_token_hint`, RP-Initiated Logout §2, CIBA Core §7.1): signed by one of the realm's published
 * keys, an untyped or `JWT`-typed JWS (a JWT access token, `at+jwt`, a logout token or any other
 * typed JWT of the realm is not one), `iss` the realm's issuer. An expired one is still accepted,
 * as OIDC says a hint may be. Undefined when it is anything else.
 */
export async function idTokenHint(signingKeys: Pick<SigningKeyStore, 'published'>, realm: RequestRealm, token: string): Promise<JWTPayload | undefined> {
  try {
    // RFC 7515 §4.1.9: "application/" may prefix a typ.
    const typ = decodeProtectedHeader(token).typ;
    if (typ !== undefined && typ.toLowerCase().replace(/^application\//, '') !== 'jwt') return undefined;
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
  return claims;
}

/** The claims of an ID token hint (`idTokenHint`) that this realm issued to `clientId`, naming its person. */
export async function idTokenHintClaims(
  signingKeys: Pick<SigningKeyStore, 'published'>,
  realm: RequestRealm,
  clientId: string,
  token: string,
): Promise<(JWTPayload & { sub: string }) | undefined> {
  const claims = await idTokenHint(signingKeys, realm, token);
  if (claims === undefined) return undefined;
  const audience = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!audience.includes(clientId)) return undefined;
  if (typeof claims.sub !== 'string' || claims.sub === '') return undefined;
  return claims as JWTPayload & { sub: string };
}
