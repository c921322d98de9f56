import type { FastifyRequest } from 'fastify';
import { OAuthError } from '../errors.js';
import type { RequestRealm } from '../realms/resolve.js';
import type { AttemptCounters } from '../store/attempt-counters.js';
import { TokenBuckets } from './token-buckets.js';

/** Endpoints limited per client, each by its realm setting `rate_limit_<endpoint>`. */
export type ClientEndpoint = 'token' | 'par' | 'device' | 'ciba' | 'registration';

/** Pages limited per address, each by its realm setting `rate_limit_<page>`. */
export type AddressPage = 'sign_in' | 'device_page';

const WINDOW_SECONDS = 60;

const tooMany = (secondsLeft: number, whose: string): OAuthError =>
  new OAuthError('temporarily_unavailable', `too many requests ${whose}; retry after ${secondsLeft} seconds`, {
    status: 429,
    headers: { 'retry-after': String(secondsLeft) },
  });

/**
 * The realm's rate limits (README "Rate limits"): 429 with `Retry-After` past them.
 *
 * Per client, at the endpoints clients call: token buckets in each instance's memory, so that
 * the token endpoint pays no database write for them; behind a balancer spreading requests
 * over N instances a client may make up to N times its limit.
 *
 * Per address, at the pages a person posts to: counted in the database, shared by every
 * instance, since those are what an attacker spreads to guess passwords and user codes.
 */
export class RateLimits {
  private readonly buckets = new TokenBuckets();

  constructor(private readonly counters: AttemptCounters) {}

  /** Spends one request of the client (or registration credential) `key` at `endpoint`; throws past the limit. */
  client(realm: RequestRealm, endpoint: ClientEndpoint, key: string): void {
    const perMinute = realm.settings[`rate_limit_${endpoint}`];
    if (perMinute === null) return;
    const wait = this.buckets.take(`${realm.name}\u0000${endpoint}\u0000${key}`, perMinute);
    if (wait > 0) throw tooMany(wait, 'from this client');
  }

  /** Counts one post of the request's address to `page`; throws past the limit. */
  async address(request: FastifyRequest, page: AddressPage): Promise<void> {
    const perMinute = request.realm.settings[`rate_limit_${page}`];
    if (perMinute === null) return;
    const { count, secondsLeft } = await this.counters.countRequest(`rate:${page}:${request.realm.name}:${request.ip}`, WINDOW_SECONDS);
    if (count > perMinute) throw tooMany(secondsLeft, 'from this address');
  }
}
