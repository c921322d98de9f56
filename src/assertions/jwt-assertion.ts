import { type JWTPayload, decodeProtectedHeader } from 'jose';
import type { ClientJwks } from '../client-auth/client-jwks.js';
import type { SpentAssertionStore } from '../store/spent-assertions.js';
import { CLOCK_SKEW_SECONDS, type JwtSigner, type SignedJwtRefusal, refusalReason, verifySignedJwt } from './signed-jwt.js';

/** Longer `jti` values are refused: they are stored. */
export const MAX_JTI_LENGTH = 256;

/** What sets one kind of JWT assertion apart from the others: each caller defines its own. */
export interface AssertionKind {
  /**
   * The `typ` header this kind may carry beside the generic `JWT` (RFC 8725 §3.11: a JWT typed
   * as another kind is refused, so that one kind cannot be passed off as another).
   */
  readonly typ?: string;
  /** Whether it must carry that `typ` (an ID-JAG, draft-ietf-oauth-identity-assertion-authz-grant §5.1): untyped or `JWT` is refused. */
  readonly typRequired?: boolean;
  /**
   * RFC 7523 §3 item 4's limit: how long an assertion may be valid from its start (`nbf`, else
   * `iat`), how long ago that start may be, and how far ahead of now `exp` may be.
   */
  readonly maxLifetimeSeconds: number;
  /**
   * Whether it may come without `jti` (RFC 9101 §4: a request object need not have one); one
   * that has a `jti` spends it all the same.
   */
  readonly jtiOptional?: boolean;
}

/** What the caller expects of an assertion: its kind, who signs it, and for whom it is meant. */
export interface AssertionExpectation {
  readonly kind: AssertionKind;
  /** Whose keys verify it: a client, or a trusted issuer. */
  readonly signer: JwtSigner;
  /** The `iss` it must name: also the namespace in which its `jti` is spent. */
  readonly issuer: string;
  readonly subject?: string;
  /** The audiences it may name, one of them as a string (`audienceMayBeArray` allows an array). */
  readonly audience: readonly string[];
  readonly audienceMayBeArray?: boolean;
  /** Claims required beside `exp` and (unless the kind makes it optional) `jti`. */
  readonly requiredClaims?: readonly string[];
}

export interface JwtAssertionDeps {
  clientJwks: ClientJwks;
  spentAssertions: Pick<SpentAssertionStore, 'use'>;
  now?: () => number;
}

export type AssertionClaims = JWTPayload & { exp: number };

/**
 * Why an assertion was refused: those of any signed JWT, then `typ` (typed as another kind),
 * `lifetime` (valid for too long, or its start `claim` too long ago) and `replayed` (its `jti`
 * was spent already).
 */
export type AssertionRefusal =
  | SignedJwtRefusal
  | { readonly problem: 'typ' | 'replayed' }
  | { readonly problem: 'lifetime'; readonly claim: 'exp' | 'nbf' | 'iat'; readonly maxLifetimeSeconds: number };

export type AssertionVerification<T> =
  | { readonly valid: true; readonly claims: AssertionClaims; readonly accepted: T }
  | ({ readonly valid: false } & AssertionRefusal);

/**
 * Verifies a JWT assertion (client assertions, JWT bearer grants, CIBA request objects): its
 * `typ`, its signature by one of the signer's keys with an asymmetric algorithm, `iss`, `sub`
 * and one `aud` as expected, `exp`, `nbf` and `iat` within CLOCK_SKEW_SECONDS, its lifetime
 * within the kind's limit; then `accept`, the caller's own checks, which may throw; and last
 * spends its `jti` under (realm, `iss`), so that an assertion refused for any reason spends
 * nothing, and nobody but the signer can spend one of its jtis.
 */
export async function verifyJwtAssertion<T = undefined>(
  deps: JwtAssertionDeps,
  realm: string,
  jwt: string,
  expected: AssertionExpectation,
  accept?: (claims: AssertionClaims) => Promise<T> | T,
): Promise<AssertionVerification<T>> {
  const header = headerOf(jwt);
  if (!header) return { valid: false, problem: 'unverified' };
  if (!acceptsType(expected.kind, header.typ)) return { valid: false, problem: 'typ' };

  const at = (deps.now ?? Date.now)();
  const verified = await verifySignedJwt(deps.clientJwks, expected.signer, jwt, {
    issuer: expected.issuer,
    ...(expected.subject === undefined ? {} : { subject: expected.subject }),
    audience: [...new Set(expected.audience)],
    audienceMayBeArray: expected.audienceMayBeArray ?? false,
    requiredClaims: [...new Set(['exp', ...(expected.kind.jtiOptional ? [] : ['jti']), ...(expected.requiredClaims ?? [])])],
    at,
  });
  if (!verified.valid) return verified;
  const claims = verified.claims as AssertionClaims;
  const jtiAbsent = claims.jti === undefined && expected.kind.jtiOptional === true;
  const refusal = timeRefusal(claims, Math.floor(at / 1000), expected.kind.maxLifetimeSeconds) ?? (jtiAbsent ? undefined : jtiRefusal(claims.jti));
  if (refusal) return { valid: false, ...refusal };

  const accepted = (accept ? await accept(claims) : undefined) as T;
  if (jtiAbsent) return { valid: true, claims, accepted };
  // Until it can no longer be accepted: its exp, as late as our clock may be behind.
  const spentUntil = new Date((claims.exp + CLOCK_SKEW_SECONDS) * 1000);
  if (!(await deps.spentAssertions.use(realm, expected.issuer, claims.jti!, spentUntil))) return { valid: false, problem: 'replayed' };
  return { valid: true, claims, accepted };
}

/** A refusal described without anything the assertion carried, to follow "the … is not accepted: ". */
export function assertionRefusalReason(refusal: AssertionRefusal): string {
  switch (refusal.problem) {
    case 'typ':
      return 'its typ header names another kind of JWT';
    case 'replayed':
      return 'it was used already';
    case 'lifetime':
      return refusal.claim === 'exp'
        ? `it may be valid for at most ${minutes(refusal.maxLifetimeSeconds)}`
        : `its ${refusal.claim} is more than ${minutes(refusal.maxLifetimeSeconds)} in the past`;
    default:
      return refusalReason(refusal);
  }
}

/** jose has checked that exp, nbf and iat are numbers, nbf is not in the future and exp not past. */
function timeRefusal(claims: AssertionClaims, now: number, maxLifetime: number): AssertionRefusal | undefined {
  if (claims.iat !== undefined && claims.iat > now + CLOCK_SKEW_SECONDS) return { problem: 'claim', claim: 'iat', missing: false };
  const start = startOf(claims);
  if (claims.exp > now + maxLifetime + CLOCK_SKEW_SECONDS || (start && claims.exp - start.at > maxLifetime)) {
    return { problem: 'lifetime', claim: 'exp', maxLifetimeSeconds: maxLifetime };
  }
  if (start && start.at < now - maxLifetime) return { problem: 'lifetime', claim: start.claim, maxLifetimeSeconds: maxLifetime };
  return undefined;
}

/** When the assertion became valid, if it says. */
function startOf(claims: JWTPayload): { claim: 'nbf' | 'iat'; at: number } | undefined {
  if (claims.nbf !== undefined) return { claim: 'nbf', at: claims.nbf };
  if (claims.iat !== undefined) return { claim: 'iat', at: claims.iat };
  return undefined;
}

function jtiRefusal(jti: unknown): AssertionRefusal | undefined {
  const acceptable = typeof jti === 'string' && jti.length > 0 && jti.length <= MAX_JTI_LENGTH;
  return acceptable ? undefined : { problem: 'claim', claim: 'jti', missing: false };
}

/** The protected header's `typ`; undefined when the JWT has no readable header. */
function headerOf(jwt: string): { typ: unknown } | undefined {
  try {
    return { typ: decodeProtectedHeader(jwt).typ };
  } catch {
    return undefined;
  }
}

/** Compared in lower case and without `application/` (RFC 7515 §4.1.9). */
function acceptsType(kind: AssertionKind, typ: unknown): boolean {
  if (typ === undefined) return kind.typRequired !== true;
  if (typeof typ !== 'string') return false;
  const type = typ.toLowerCase().replace(/^application\//, '');
  return type === kind.typ || (type === 'jwt' && kind.typRequired !== true);
}

function minutes(seconds: number): string {
  return seconds % 60 === 0 ? `${seconds / 60} minutes` : `${seconds} seconds`;
}
