import type { RequestRealm } from '../records/realm.js';
import type { Client } from '../store/clients.js';
import type { RealmSigner } from '../tokens/signer.js';

/** RFC 9701 §4: the media type a client asks for in `Accept`, and that of the answer. */
export const INTROSPECTION_JWT_TYPE = 'application/token-introspection+jwt';
/** RFC 9701 §5: the JWT's `typ`, so that it cannot pass for another kind of JWT. */
const INTROSPECTION_JWT_TYP = 'token-introspection+jwt';

/** Whether an `Accept` header lists the JWT answer with a quality above zero (RFC 9110 §12.5.1). */
export function asksForIntrospectionJwt(accept: string | undefined): boolean {
  if (accept === undefined || !accept.toLowerCase().includes(INTROSPECTION_JWT_TYPE)) return false;
  return accept.split(',').some((range) => {
    const [type = '', ...parameters] = range.split(';').map((part) => part.trim().toLowerCase());
    if (type !== INTROSPECTION_JWT_TYPE) return false;
    const quality = parameters.find((parameter) => parameter.startsWith('q='));
    return quality === undefined || Number(quality.slice(2)) > 0;
  });
}

/**
 * RFC 9701 §5: the introspection answer, signed with the realm's key of the client's
 * `introspection_signed_response_alg`, for that client. Only `iss`, `aud` and `iat` stand
 * beside `token_introspection`: no `sub` or `exp`, which would let it pass for an access token.
 */
export function signIntrospection(signer: RealmSigner, realm: RequestRealm, client: Client, answer: Readonly<Record<string, unknown>>): Promise<string> {
  return signer.sign(
    realm.name,
    client.introspection_signed_response_alg ?? 'RS256',
    { iss: realm.issuer, aud: client.client_id, iat: Math.floor(Date.now() / 1000), token_introspection: answer },
    INTROSPECTION_JWT_TYP,
  );
}
