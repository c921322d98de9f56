import type { KeyObject } from 'node:crypto';
import type { JWTPayload } from 'jose';
import { LRUCache } from 'lru-cache';
import type { AuthorizationDetail } from '../records/authorization-details.js';
import type { RequestRealm } from '../records/realm.js';
import type { RevokedJwts } from '../store/revoked-jwts.js';
import type { Actor } from '../store/tokens.js';
import type { SigningKeyStore } from '../store/signing-keys.js';
import { bindingOf, confirmationOf, isSenderConstrained } from './binding.js';
import { jtiTime, timeOrderedJti } from './jti.js';
import { importPublicKey, splitJws, verifiedPayload } from './own-jws.js';
import type { RealmSigner } from './signer.js';
import { ASKED_USERINFO_CLAIM, CLIENT_SUBJECT_CLAIM, GRANT_ID_CLAIM, SEALED_SUBJECT_CLAIM } from '../records/jwt-claims.js';
import type { Subjects } from './subject.js';
import { SIGNING_ALGS, type SigningAlg } from '../records/signing-key.js';

/** RFC 9068 §2.1: the `typ` header of a JWT access token. */
export const AT_JWT = 'at+jwt';

/** What a stateless access token says, whether being minted or read back. */
export interface JwtAccessToken {
  jti: string;
  grantId: string;
  clientId: string;
  /**
   * The user's id, or the client's id when no person is behind the token (RFC 9068 §2.2). Its
   * `sub` is this, but for a pairwise client's person (`pairwiseSub`).
   */
  subject: string;
  /** Set when a person is behind the token: their id. */
  userId: string | undefined;
  scope: string;
  /** Epoch seconds. */
  issuedAt: number;
  expiresAt: number;
  authTime: number | undefined;
  /** The session of the sign-in behind the token (OIDC `sid`): signing out denies it. */
  sid?: string | undefined;
  certificateThumbprint: string | undefined;
  /** RFC 9449 §6: the thumbprint of the DPoP key it is bound to (`cnf.jkt`). */
  keyThumbprint?: string | undefined;
  /** RFC 8693 §4.1, in an exchanged token. */
  act?: Actor | undefined;
  /** RFC 8693 §2.1; the realm's issuer when absent. */
  audience?: readonly string[] | undefined;
  /** OIDC Core §5.5: the claims its grant asked for UserInfo (ASKED_USERINFO_CLAIM). */
  askedUserinfo?: readonly string[] | undefined;
  /** RFC 9396 §9.1: the authorization details granted (`authorization_details`). */
  authorizationDetails?: readonly AuthorizationDetail[] | undefined;
}

/** Cheap discrimination: an opaque token is 43 base64url characters; a JWS has two dots. */
export function looksLikeJwt(token: string): boolean {
  const first = token.indexOf('.');
  const second = first < 0 ? -1 : token.indexOf('.', first + 1);
  return second > 0 && token.indexOf('.', second + 1) === -1;
}

/**
 * Mints an RFC 9068 access token: signed with the realm's current key of its `signing_alg`,
 * `typ: at+jwt`. Its audience is the one asked for (RFC 8707 `resource`, RFC 8693 `audience`),
 * else the realm's issuer, which a resource server then verifies `aud` against. `claims`: those
 * its scopes map about its person (src/tokens/scope-claims.ts), beneath the ones set here.
 */
export async function mintJwtAccessToken(
  signer: RealmSigner,
  realm: RequestRealm,
  token: Omit<JwtAccessToken, 'jti' | 'issuedAt' | 'expiresAt' | 'userId'> & {
    lifetime: number;
    clientSubject?: boolean;
    claims?: Readonly<Record<string, unknown>> | undefined;
    /** When what the token rests on was read, if before now: its `jti` carries it (src/tokens/jti.ts). */
    since?: Date | undefined;
    /** A pairwise client's person: its `sub` instead of `subject`, which the token carries sealed (src/tokens/subject.ts). */
    pairwise?: { readonly sub: string; readonly sealed: string } | undefined;
  },
): Promise<string> {
  const now = Date.now();
  const iat = Math.floor(now / 1000);
  // Set claim by claim rather than spread from conditional literals: this is the JWT token
  // endpoint's inner loop, and each spread made and copied an object.
  const payload: JWTPayload = token.claims === undefined ? {} : { ...token.claims };
  payload.iss = realm.issuer;
  payload.sub = token.pairwise?.sub ?? token.subject;
  payload.aud = audienceClaim(token.audience) ?? realm.issuer;
  payload.exp = iat + token.lifetime;
  payload.iat = iat;
  payload.jti = timeOrderedJti(Math.min(now, token.since?.getTime() ?? now));
  payload.client_id = token.clientId;
  payload.scope = token.scope;
  if (token.authTime !== undefined) payload.auth_time = token.authTime;
  if (token.sid !== undefined) payload.sid = token.sid;
  if (isSenderConstrained(token)) payload.cnf = confirmationOf(token);
  if (token.act !== undefined) payload.act = token.act;
  if (token.clientSubject && token.subject !== token.clientId) payload[CLIENT_SUBJECT_CLAIM] = true;
  if (token.askedUserinfo?.length) payload[ASKED_USERINFO_CLAIM] = [...token.askedUserinfo];
  if (token.pairwise !== undefined) payload[SEALED_SUBJECT_CLAIM] = token.pairwise.sealed;
  if (token.authorizationDetails) payload.authorization_details = [...token.authorizationDetails];
  payload[GRANT_ID_CLAIM] = token.grantId;
  return signer.sign(realm.name, realm.settings.signing_alg, payload, AT_JWT);
}

const isString = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

const isNumericDate = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/**
 * RFC 7519 §4.1.4, §4.1.5: `exp` (required) is after now, `nbf` (if any) not after it, to the
 * second and without leeway, as jose's `jwtVerify` judged them; `iat` is a number.
 */
function isLive(payload: Record<string, unknown>): boolean {
  const now = Math.floor(Date.now() / 1000);
  const { exp, iat, nbf } = payload;
  return isNumericDate(exp) && exp > now && isNumericDate(iat) && (nbf === undefined || (isNumericDate(nbf) && nbf <= now));
}

/** RFC 7519 §4.1.3: one audience as a string, several as an array. */
function audienceClaim(audience: readonly string[] | undefined): string | string[] | undefined {
  if (audience === undefined || audience.length === 0) return undefined;
  return audience.length === 1 ? audience[0] : [...audience];
}

/** A token verified lately: what it says, and what must still hold for it to verify again. */
interface VerifiedJwt {
  realm: string;
  issuer: string;
  kid: string;
  alg: SigningAlg;
  /** Its `exp`, `iat` and `nbf`, judged again by isLive at each use. */
  times: Record<string, unknown>;
  token: Readonly<JwtAccessToken>;
}

/**
 * Tokens kept verified, by their value. A resource server introspects the same token at each of
 * its requests; its ECDSA check was most of the introspection's CPU. Some 1.5 KB each.
 */
const VERIFIED_TOKENS = 4096;

/**
 * Reads back the JWT access tokens of a realm: signed by one of its published keys (current
 * or retired but still published), `typ: at+jwt`, issued by it for itself, not expired;
 * `active` also checks the deny list. Anything else is undefined, never an error.
 */
export class JwtAccessTokenVerifier {
  /** Public keys by "realm/kid": a kid is the key's thumbprint, so it names one key for good. */
  private readonly publicKeys = new LRUCache<string, KeyObject>({ max: 20_000 });

  /**
   * The same string verifies the same way with the same key: a token met again is not checked
   * again while the key that signed it is still published and it has not expired (checked at
   * each use, as the deny list is by `active`). Only tokens that verified are kept, so that
   * forged ones cannot evict them; a pairwise subject is opened anew each time.
   */
  private readonly verified = new LRUCache<string, VerifiedJwt>({ max: VERIFIED_TOKENS });

  constructor(
    private readonly signingKeys: SigningKeyStore,
    private readonly revoked: RevokedJwts,
    private readonly subjects: Pick<Subjects, 'open'>,
  ) {}

  /** The token when it verifies, whether revoked or not (revocation needs no more). */
  async verify(realm: RequestRealm, token: string): Promise<JwtAccessToken | undefined> {
    const known = this.verified.get(token);
    if (known !== undefined && known.realm === realm.name && known.issuer === realm.issuer) {
      return (await this.publicKey(realm.name, known.kid, known.alg)) && isLive(known.times) ? known.token : undefined;
    }
    const jws = splitJws(token);
    if (!jws) return undefined;
    const { kid, alg, typ } = jws.header;
    if (!isString(kid) || !SIGNING_ALGS.includes(alg as SigningAlg) || typ !== AT_JWT) return undefined;
    const key = await this.publicKey(realm.name, kid, alg as SigningAlg);
    if (!key) return undefined;
    const payload = verifiedPayload(jws, key, alg as SigningAlg);
    // No audience check: an exchanged token names its API (RFC 8693 §2.1); the issuer, the
    // key and `typ` make it this realm's access token.
    if (!payload || payload.iss !== realm.issuer || !isLive(payload)) return undefined;
    const { jti, sub, client_id: clientId, scope, auth_time: authTime, sid, cnf, act, aud, iat, exp } = payload as JWTPayload & Record<string, unknown>;
    const grantId = payload[GRANT_ID_CLAIM];
    const askedUserinfo = payload[ASKED_USERINFO_CLAIM];
    const authorizationDetails = payload.authorization_details;
    if (!isString(jti) || !isString(sub) || !isString(clientId) || !isString(grantId) || typeof scope !== 'string') return undefined;
    // A pairwise client's person is sealed beside its `sub`, which cannot be reversed.
    const sealed = payload[SEALED_SUBJECT_CLAIM];
    const person = sealed === undefined ? sub : isString(sealed) ? this.subjects.open(realm.name, clientId, sealed) : undefined;
    if (person === undefined) return undefined;
    const binding = bindingOf(cnf);
    const verified: JwtAccessToken = {
      jti,
      grantId,
      clientId,
      subject: person,
      // RFC 9068 §2.2: without a person, sub is the client's id, or another client's when marked so.
      userId: sealed === undefined && (sub === clientId || payload[CLIENT_SUBJECT_CLAIM] === true) ? undefined : person,
      scope,
      issuedAt: iat as number,
      expiresAt: exp as number,
      authTime: typeof authTime === 'number' ? authTime : undefined,
      ...(isString(sid) ? { sid } : {}),
      certificateThumbprint: binding.certificateThumbprint,
      ...(binding.keyThumbprint === undefined ? {} : { keyThumbprint: binding.keyThumbprint }),
      ...(typeof act === 'object' && act !== null ? { act: act as Actor } : {}),
      ...(aud === realm.issuer ? {} : { audience: typeof aud === 'string' ? [aud] : (aud as string[]) }),
      ...(Array.isArray(askedUserinfo) && askedUserinfo.every(isString) ? { askedUserinfo } : {}),
      ...(Array.isArray(authorizationDetails) ? { authorizationDetails: authorizationDetails as AuthorizationDetail[] } : {}),
    };
    if (sealed === undefined) {
      const times = { exp, iat, nbf: payload.nbf };
      this.verified.set(token, { realm: realm.name, issuer: realm.issuer, kid, alg: alg as SigningAlg, times, token: Object.freeze(verified) });
    }
    return verified;
  }

  /**
   * The token when it verifies and neither it, its grant, its session nor its person is
   * denied. A person's denial up to a moment (a password change) is judged by the moment its
   * `jti` carries; one without it (minted before jtis did) by the start of its `iat`'s second.
   */
  async active(realm: RequestRealm, token: string): Promise<JwtAccessToken | undefined> {
    const verified = await this.verify(realm, token);
    if (!verified) return undefined;
    const issuedAtMs = jtiTime(verified.jti) ?? verified.issuedAt * 1000;
    if (await this.revoked.isDenied(realm.name, { ...verified, issuedAtMs })) return undefined;
    return verified;
  }

  /** Revokes the token until it expires, on every instance. */
  revoke(realm: RequestRealm, token: JwtAccessToken): Promise<void> {
    return this.revoked.denyToken(realm.name, token.jti, new Date(token.expiresAt * 1000));
  }

  private async publicKey(realm: string, kid: string, alg: SigningAlg): Promise<KeyObject | undefined> {
    const published = (await this.signingKeys.published(realm)).find((key) => key.kid === kid && key.alg === alg);
    if (!published) return undefined;
    const cacheKey = `${realm}/${kid}`;
    let key = this.publicKeys.get(cacheKey);
    if (!key) {
      key = importPublicKey(published.publicJwk);
      this.publicKeys.set(cacheKey, key);
    }
    return key;
  }
}
