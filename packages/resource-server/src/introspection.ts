import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { type AccessTokenClaims, audienceMatches } from './claims.js';
import { AuthorizationServerUnavailable, BearerError } from './errors.js';
import type { Endpoints } from './metadata.js';
import type { Settings } from './options.js';

type IntrospectionSettings = NonNullable<Settings['introspection']>;

/** An answer of the introspection endpoint as kept: the claims of an active token, or none. */
type Answer = { active: true; claims: AccessTokenClaims } | { active: false; reason: string };

const inactive = (reason: string): Answer => ({ active: false, reason });

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
          accept: 'application/json',
        },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
      body = await response.json().catch(() => undefined);
    } catch (error) {
      throw new AuthorizationServerUnavailable(`introspection failed: ${(error as Error).message}`, { cause: error });
    }
    if (response.status !== 200 || typeof body !== 'object' || body === null) {
      // 401 here is the API's own client failing to authenticate: a configuration error, not the caller's.
      const code = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
      throw new AuthorizationServerUnavailable(`introspection answered ${response.status}${typeof code === 'string' ? ` ${code}` : ''}`);
    }
    return this.answerOf(body as Record<string, unknown>);
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
