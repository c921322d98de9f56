import type { FastifyRequest } from 'fastify';
import { OAuthError } from '../errors.js';
import type { RequestRealm } from '../records/realm.js';
import type { AttemptCounters, AttemptLimit } from '../store/attempt-counters.js';
import type { RequestBudgetStore } from '../store/request-budgets.js';
import { addressKey } from '../address-key.js';
import { SharedBudgets } from './leases.js';

/** Endpoints limited per client, each by its realm setting `rate_limit_<endpoint>`. */
export type ClientEndpoint = 'token' | 'par' | 'device' | 'ciba' | 'registration';

/**
 * What is limited per address, each by its realm setting `rate_limit_<page>`: posts to the
 * sign-in steps and the device page, and (`authorize`) the rows a browser makes without
 * signing in: sign-in transactions (/authorize, and the pages that send a person to sign in)
 * and the passkey challenges of the sign-in page.
 */
export type AddressPage = 'sign_in' | 'device_page' | 'authorize';

const WINDOW_SECONDS = 60;

const tooMany = (secondsLeft: number, whose: string): OAuthError =>
  new OAuthError('temporarily_unavailable', `too many requests ${whose}; retry after ${secondsLeft} seconds`, {
    status: 429,
    headers: { 'retry-after': String(secondsLeft) },
  });

export const tooManyFromAddress = (secondsLeft: number): OAuthError => tooMany(secondsLeft, 'from this address');

/** The request's address's limit of `page`, counted in the database; undefined when the realm sets none. */
export function addressLimit(request: FastifyRequest, page: AddressPage): AttemptLimit | undefined {
  const perMinute = request.realm.settings[`rate_limit_${page}`];
  if (perMinute === null) return undefined;
  return { key: `rate:${page}:${request.realm.name}:${addressKey(request.ip)}`, max: perMinute, windowSeconds: WINDOW_SECONDS };
}

/**
 * The requests whose outbound fetches were counted, and the key they were counted under: the
 * request itself is then counted already (`uncountedAddressLimit`).
 */
const countedForFetches = new WeakMap<FastifyRequest, { readonly key: string; readonly counted: Promise<void> }>();

/** The request's address's limit of `page`, unless its outbound fetches counted it there already. */
export function uncountedAddressLimit(request: FastifyRequest, page: AddressPage): AttemptLimit | undefined {
  const limit = addressLimit(request, page);
  return limit && countedForFetches.get(request)?.key === limit.key ? undefined : limit;
}

/** Endpoints by the end of their route, whose outbound fetches count under their own limit. */
const CLIENT_ENDPOINT_ROUTES: ReadonlyArray<readonly [suffix: string, endpoint: ClientEndpoint]> = [
  ['/access_token', 'token'],
  ['/par', 'par'],
  ['/device/code', 'device'],
  ['/bc-authorize', 'ciba'],
];

/**
 * The limit that the outbound fetches of a request count under (CONTRACT.md §7): at an endpoint
 * that clients call, its own `rate_limit_<endpoint>`, per address, since the client a document
 * describes is not known before it is fetched (a per-client count would give each new client_id
 * URL a budget of its own); anywhere else, the address's `authorize` limit, the one of the rows
 * a browser makes without signing in (the /authorize that fetches also begins a transaction).
 */
function outboundLimit(request: FastifyRequest): AttemptLimit | undefined {
  const route = request.routeOptions.url ?? '';
  const endpoint = CLIENT_ENDPOINT_ROUTES.find(([suffix]) => route.endsWith(suffix))?.[1];
  if (!endpoint) return addressLimit(request, 'authorize');
  const perMinute = request.realm.settings[`rate_limit_${endpoint}`];
  if (perMinute === null) return undefined;
  return { key: `rate:${endpoint}:${request.realm.name}:fetches:${addressKey(request.ip)}`, max: perMinute, windowSeconds: WINDOW_SECONDS };
}

/** Counts one request of the request's address to `page`; throws past the limit. */
export async function countAddress(counters: AttemptCounters, request: FastifyRequest, page: AddressPage): Promise<void> {
  const limit = addressLimit(request, page);
  if (!limit) return;
  const { count, secondsLeft } = await counters.countRequest(limit.key, limit.windowSeconds);
  if (count > limit.max) throw tooManyFromAddress(secondsLeft);
}

/**
 * The realm's rate limits (docs/operations.md "Rate limits"): 429 with `Retry-After` past them. All are
 * counted in the database in one-minute windows, shared by every instance.
 *
 * Per client, at the endpoints clients call: each instance takes a share of the minute's
 * budget at a time and spends it from memory (src/rate-limits/leases.ts), so that the token
 * endpoint pays one statement per twentieth of the budget, not one per request.
 *
 * Per address, at the pages: one count per request, since those guard what an attacker
 * spreads to guess passwords and user codes, or to fill the database.
 */
export class RateLimits {
  private readonly budgets: SharedBudgets;

  constructor(
    private readonly counters: AttemptCounters,
    budgets: RequestBudgetStore,
  ) {
    this.budgets = new SharedBudgets(budgets);
  }

  /** Spends one request of the client (or registration credential) `key` at `endpoint`; throws past the limit. */
  async client(realm: RequestRealm, endpoint: ClientEndpoint, key: string): Promise<void> {
    const perMinute = realm.settings[`rate_limit_${endpoint}`];
    if (perMinute === null) return;
    const wait = await this.budgets.take(`rate:${endpoint}:${realm.name}:${key}`, perMinute);
    if (wait > 0) throw tooMany(wait, 'from this client');
  }

  /** Counts one request of the request's address to `page`; throws past the limit. */
  address(request: FastifyRequest, page: AddressPage): Promise<void> {
    return countAddress(this.counters, request, page);
  }

  /**
   * Counts the request under the limit of its outbound fetches (`outboundLimit`) before the
   * first of them is made; throws past the limit, and then nothing is fetched. A request is
   * counted once, however many fetches it causes.
   */
  outboundFetch(request: FastifyRequest): Promise<void> {
    const counting = countedForFetches.get(request);
    if (counting) return counting.counted;
    const limit = outboundLimit(request);
    if (!limit) return Promise.resolve();
    const counted = this.counters.countRequest(limit.key, limit.windowSeconds).then(({ count, secondsLeft }) => {
      if (count > limit.max) throw tooManyFromAddress(secondsLeft);
    });
    // Every fetch of the request waits for this one count, and is refused with it.
    countedForFetches.set(request, { key: limit.key, counted });
    return counted;
  }
}
