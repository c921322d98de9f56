import { type JWTVerifyGetKey, createRemoteJWKSet, errors, jwtVerify } from 'jose';
import { AuthorizationServerUnavailable, BearerError } from './errors.js';
import type { Endpoints } from './metadata.js';
import type { Settings } from './options.js';
import type { AccessTokenClaims } from './claims.js';

/** RFC 9068 §2.1: the `typ` of a JWT access token; an ID token or any other JWT is refused. */
const AT_JWT = 'at+jwt';

/** RFC 9068 §2.2: the claims every JWT access token carries. */
const REQUIRED_CLAIMS = ['iss', 'exp', 'aud', 'sub', 'client_id', 'iat', 'jti'];

/**
 * Verifies JWT access tokens offline (RFC 9068 §4) with the issuer's key set: jose's remote
 * key set caches it, refetches it when older than `jwks.maxAge`, and on an unknown `kid` (a
 * rotated key) refetches it once per `jwks.cooldown`, so that forged kids cannot make the API
 * hammer the authorization server. Offline verification cannot see revocation.
 */
export class JwtVerifier {
  private keys: Promise<JWTVerifyGetKey> | undefined;

  constructor(
    private readonly settings: Settings,
    private readonly endpoints: () => Promise<Endpoints>,
  ) {}

  async verify(token: string): Promise<AccessTokenClaims> {
    const keys = await this.keySet();
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        typ: AT_JWT,
        clockTolerance: this.settings.clockToleranceSeconds,
        requiredClaims: REQUIRED_CLAIMS,
      });
      return payload as AccessTokenClaims;
    } catch (error) {
      throw refusal(error);
    }
  }

  /** The issuer's key set, which signed introspection answers (./introspection.ts) are verified with too. */
  keySet(): Promise<JWTVerifyGetKey> {
    this.keys ??= this.endpoints().then(
      ({ jwksUri }) =>
        createRemoteJWKSet(jwksUri, {
          cacheMaxAge: this.settings.jwksMaxAgeMs,
          cooldownDuration: this.settings.jwksCooldownMs,
          timeoutDuration: this.settings.timeoutMs,
        }),
      (error: unknown) => {
        this.keys = undefined;
        throw error;
      },
    );
    return this.keys;
  }
}

/** What a failed verification means: a token refused (401), or a key set that could not be read (503). */
function refusal(error: unknown): Error {
  if (error instanceof errors.JWTExpired) return new BearerError('invalid_token', 'the token has expired');
  if (error instanceof errors.JWTClaimValidationFailed) return new BearerError('invalid_token', claimProblem(error));
  if (error instanceof errors.JWKSNoMatchingKey) return new BearerError('invalid_token', 'the token is signed with a key the issuer does not publish');
  if (error instanceof errors.JWSSignatureVerificationFailed) return new BearerError('invalid_token', 'the token signature does not verify');
  if (
    error instanceof errors.JWSInvalid ||
    error instanceof errors.JWTInvalid ||
    error instanceof errors.JOSEAlgNotAllowed ||
    error instanceof errors.JOSENotSupported ||
    error instanceof errors.JWKSMultipleMatchingKeys
  ) {
    return new BearerError('invalid_token', 'the token is not a valid signed JWT');
  }
  if (error instanceof AuthorizationServerUnavailable) return error;
  // A timeout, a refused connection, an answer that is no key set.
  return new AuthorizationServerUnavailable(`the key set could not be read: ${(error as Error).message}`, { cause: error });
}

function claimProblem(error: errors.JWTClaimValidationFailed): string {
  if (error.reason === 'missing') return `the token has no ${error.claim} claim`;
  switch (error.claim) {
    case 'iss':
      return 'the token is from another issuer';
    case 'aud':
      return 'the token is not meant for this API (aud)';
    case 'typ':
      return 'the token is not an access token (typ must be at+jwt)';
    case 'nbf':
      return 'the token is not valid yet';
    default:
      return `the token's ${error.claim} claim is invalid`;
  }
}
