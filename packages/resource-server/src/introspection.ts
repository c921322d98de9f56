import { createHash } from 'node:crypto';
import { type JWTVerifyGetKey, jwtVerify } from 'jose';
import { LRUCache } from 'lru-cache';
import { type AccessTokenClaims, audienceMatches } from './claims.js';
import { AuthorizationServerUnavailable, BearerError } from './errors.js';
import type { Endpoints } from './metadata.js';
import type { Settings } from './options.js';

type IntrospectionSettings = NonNullable<Settings['introspection']>;

/** An answer of the introspection endpoint as kept: the claims of an active token, or none. */
type Answer = { active: true; claims: AccessTokenClaims } | { active: false; reason: string };

const inactive = (reason: string): Answer => ({ active: false, reason });

/** RFC 9701 §4 and §5: the media type of a signed answer, and its JWT's `typ`. */
const INTROSPECTION_JWT_TYPE = 'application/token-introspection+jwt';
const INTROSPECTION_JWT_TYP = 'token-introspection+jwt';

/**
 * Asks the authorization server about tokens (RFC 7662) and keeps its answers a few seconds,
 * by the token's SHA-256 (tokens themselves are not kept): a revoked token is refused at the
 * latest `cacheTtl` after its revocation. Inactive answers are kept as long: a token that is
 * not active never becomes so, and a client retrying with a dead token then costs the
 * authorization server one call per `cacheTtl`. Concurrent requests with one token share one
 * call. Failures are not kept.
 */
export class Introspector {
  private readonly cache: LRUCache<string, Answer, string>;

  constructor(
    private readonly settings: Settings,
    private readonly options: IntrospectionSettings,
    private readonly endpoints: () => Promise<Endpoints>,
    /** The issuer's key set, for signed answers (RFC 9701). */
    private readonly keys: () => Promise<JWTVerifyGetKey>,
  ) {
    this.cache = new LRUCache<string, Answer, string>({
      max: options.cacheSize,
      ttl: options.cacheTtlMs,
      fetchMethod: async (_key, _stale, { context, options: entry }) => {
        const answer = await this.ask(context);
        entry.ttl = this.ttlOf(answer);
        return answer;
      },
    });
  }

  /** The claims of an active token of the issuer meant for this API; else `invalid_token`. */
  async introspect(token: string): Promise<AccessTokenClaims> {
    const key = createHash('sha256').update(token).digest('base64url');
    const answer = await this.cache.fetch(key, { context: token });
    if (!answer) throw new AuthorizationServerUnavailable('introspection gave no answer');
    if (!answer.active) throw new BearerError('invalid_token', answer.reason);
    // Checked on every use, not only when asked: the cached answer outlives nothing but this.
    const now = Date.now() / 1000;
    const { exp, nbf } = answer.claims;
    const tolerance = this.settings.clockToleranceSeconds;
    if (typeof exp === 'number' && exp <= now - tolerance) throw new BearerError('invalid_token', 'the token has expired');
    if (typeof nbf === 'number' && nbf > now + tolerance) throw new BearerError('invalid_token', 'the token is not valid yet');
    return answer.claims;
  }

  /** Never past the token's `exp`; at least a millisecond, which lru-cache needs. */
  private ttlOf(answer: Answer): number {
    const exp = answer.active ? answer.claims.exp : undefined;
    if (typeof exp !== 'number') return this.options.cacheTtlMs;
    return Math.max(1, Math.min(this.options.cacheTtlMs, Math.floor(exp * 1000 - Date.now())));
  }

  private async ask(token: string): Promise<Answer> {
    const { introspectionEndpoint } = await this.endpoints();
    if (!introspectionEndpoint) throw new AuthorizationServerUnavailable('the authorization server advertises no introspection endpoint');
    let response: Response;
    let body: unknown;
    try {
      response = await fetch(introspectionEndpoint, {
        method: 'POST',
        headers: {
          authorization: basic(this.options.clientId, this.options.clientSecret),
          'content-type': 'application/x-www-form-urlencoded',
          accept: this.options.signedResponses ? INTROSPECTION_JWT_TYPE : 'application/json',
        },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
      body = this.options.signedResponses && response.status === 200 ? await response.text() : await response.json().catch(() => undefined);
    } catch (error) {
      throw new AuthorizationServerUnavailable(`introspection failed: ${(error as Error).message}`, { cause: error });
    }
    if (this.options.signedResponses && response.status === 200) return this.answerOf(await this.signedAnswer(response, body as string));
    if (response.status !== 200 || typeof body !== 'object' || body === null) {
      // 401 here is the API's own client failing to authenticate: a configuration error, not the caller's.
      const code = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
      throw new AuthorizationServerUnavailable(`introspection answered ${response.status}${typeof code === 'string' ? ` ${code}` : ''}`);
    }
    return this.answerOf(body as Record<string, unknown>);
  }

  /**
   * RFC 9701 §5: the answer inside a JWT that the issuer's key set verifies, of the right
   * `typ`, from the issuer for this client. Anything else (plain JSON, `alg: none`, a changed
   * byte, another issuer's or client's answer) is no answer: the request fails and nothing is kept.
   */
  private async signedAnswer(response: Response, jwt: string): Promise<Record<string, unknown>> {
    const type = response.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
    if (type !== INTROSPECTION_JWT_TYPE) throw new AuthorizationServerUnavailable(`introspection answered ${type ?? 'no content type'}, not a signed answer`);
    let claims: Record<string, unknown>;
    try {
      ({ payload: claims } = await jwtVerify(jwt, await this.keys(), {
        issuer: this.settings.issuer,
        audience: this.options.clientId,
        typ: INTROSPECTION_JWT_TYP,
        algorithms: ['RS256', 'ES256'],
        clockTolerance: this.settings.clockToleranceSeconds,
        requiredClaims: ['iat'],
      }));
    } catch (error) {
      if (error instanceof AuthorizationServerUnavailable) throw error;
      throw new AuthorizationServerUnavailable(`the signed introspection answer does not verify: ${(error as Error).message}`, { cause: error });
    }
    const answer = claims.token_introspection;
    if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) {
      throw new AuthorizationServerUnavailable('the signed introspection answer holds no token_introspection object');
    }
    return answer as Record<string, unknown>;
  }

  private answerOf(body: Record<string, unknown>): Answer {
    if (body.active !== true) return inactive('the token is not active (unknown, expired or revoked)');
    const { active: _active, ...claims } = body;
    // A refresh token (realmgate says token_type "refresh_token") is no access token; a DPoP-bound one is (RFC 9449 §6.2).
    const type = claims.token_type;
    if (type !== undefined && (typeof type !== 'string' || !['bearer', 'dpop'].includes(type.toLowerCase()))) return inactive('the token is not an access token');
    if (claims.iss !== undefined && claims.iss !== this.settings.issuer) return inactive('the token is from another issuer');
    if (!audienceMatches(claims.aud, this.settings.issuer, this.settings.audience)) return inactive('the token is not meant for this API (aud)');
    return { active: true, claims: claims as AccessTokenClaims };
  }
}

/** RFC 6749 §2.3.1: the client id and secret are form-encoded before they are joined. */
function basic(clientId: string, secret: string): string {
  const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(secret)}`).toString('base64')}`;
}
