import type { Agent } from 'node:https';
import { type LocalJWKSet, createLocalJWKSet } from 'jose';
import { LRUCache } from 'lru-cache';
import { OAuthError } from '../errors.js';
import { OutboundFetcher } from '../http/outbound-fetch.js';
import type { Client } from '../store/clients.js';

/** A key set as jose's `jwtVerify` takes it: picks the key of a JWS header. */
export type ClientKeySet = LocalJWKSet;

export interface ClientJwksOptions {
  /** The whole fetch, headers and body, must end within this. */
  timeoutMs?: number;
  /** Larger bodies are refused while they stream in. */
  maxBytes?: number;
  /** How long a fetched key set is used before it is fetched again. */
  ttlMs?: number;
  /** At most one fetch per URL within this, whatever asks for it (an unknown `kid`, a failure). */
  cooldownMs?: number;
  /** URLs whose key sets are kept. */
  maxEntries?: number;
  /** The HTTPS agent: tests pass one that trusts their own certificate authority. */
  agent?: Agent;
  /** The SSRF-guarded fetcher (with the operator's `OUTBOUND_ALLOW`); by default one that allows nothing more. */
  outbound?: OutboundFetcher;
  logger?: { warn(object: object, message: string): void };
  now?: () => number;
}

interface Entry {
  keySet: ClientKeySet | undefined;
  fetchedAt: number;
  attemptedAt: number;
  pending: Promise<ClientKeySet | undefined> | undefined;
}

const DEFAULTS = {
  timeoutMs: 3_000,
  maxBytes: 64 * 1024,
  ttlMs: 5 * 60_000,
  cooldownMs: 30_000,
  maxEntries: 1_000,
};

/**
 * The keys that verify a client's assertions (RFC 7523 §3, OIDC Core §10.1): its inline
 * `jwks`, or what its `jwks_uri` serves.
 *
 * jose's createRemoteJWKSet has a timeout and a cooldown but no size cap, and it would keep
 * one fetcher per URL without bound; so the set is fetched here through the outbound fetcher
 * (src/http/outbound-fetch.ts: SSRF guard at connect time, a deadline over the whole
 * exchange, the body counted while it streams, redirects not followed; https only), kept per
 * URL in a bounded LRU, and handed to createLocalJWKSet, which picks the key of each JWS
 * header as the remote set would. Concurrent requests for one URL share a fetch.
 */
export class ClientJwks {
  private readonly options: typeof DEFAULTS;
  private readonly agent: Agent | undefined;
  private readonly outbound: OutboundFetcher;
  private readonly logger: ClientJwksOptions['logger'];
  private readonly now: () => number;
  private readonly remote: LRUCache<string, Entry>;
  /** Inline key sets by their JSON: records read from the database are new objects each time. */
  private readonly inline = new LRUCache<string, ClientKeySet>({ max: 10_000 });
  /** Fetches started, for tests and metrics. */
  fetches = 0;

  constructor(options: ClientJwksOptions = {}) {
    this.options = {
      timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
      maxBytes: options.maxBytes ?? DEFAULTS.maxBytes,
      ttlMs: options.ttlMs ?? DEFAULTS.ttlMs,
      cooldownMs: options.cooldownMs ?? DEFAULTS.cooldownMs,
      maxEntries: options.maxEntries ?? DEFAULTS.maxEntries,
    };
    this.agent = options.agent;
    this.outbound = options.outbound ?? new OutboundFetcher();
    this.logger = options.logger;
    this.now = options.now ?? Date.now;
    this.remote = new LRUCache({ max: this.options.maxEntries });
  }

  /**
   * The client's key set; undefined when it has none or its `jwks_uri` cannot be read.
   * `refresh` (after an unknown `kid`) refetches a `jwks_uri`, unless it was fetched within
   * the cooldown.
   */
  async keySet(client: Pick<Client, 'jwks' | 'jwks_uri'>, refresh = false): Promise<ClientKeySet | undefined> {
    if (client.jwks) return this.inlineKeySet(client.jwks);
    if (client.jwks_uri) return this.remoteKeySet(client.jwks_uri, refresh);
    return undefined;
  }

  /** Whether `refresh` would refetch: the client's keys come from a URL. */
  static isRemote(client: Pick<Client, 'jwks' | 'jwks_uri'>): boolean {
    return !client.jwks && client.jwks_uri !== undefined;
  }

  private inlineKeySet(jwks: NonNullable<Client['jwks']>): ClientKeySet | undefined {
    const key = JSON.stringify(jwks);
    let keySet = this.inline.get(key);
    if (!keySet) {
      try {
        keySet = createLocalJWKSet(jwks as Parameters<typeof createLocalJWKSet>[0]);
      } catch {
        return undefined;
      }
      this.inline.set(key, keySet);
    }
    return keySet;
  }

  private remoteKeySet(url: string, refresh: boolean): Promise<ClientKeySet | undefined> {
    const now = this.now();
    const entry = this.remote.get(url) ?? { keySet: undefined, fetchedAt: 0, attemptedAt: -Infinity, pending: undefined };
    if (entry.pending) return entry.pending;
    const fresh = entry.keySet !== undefined && now - entry.fetchedAt < this.options.ttlMs;
    if (fresh && !refresh) return Promise.resolve(entry.keySet);
    if (now - entry.attemptedAt < this.options.cooldownMs) return Promise.resolve(fresh ? entry.keySet : undefined);

    const attemptedBefore = entry.attemptedAt;
    entry.attemptedAt = now;
    this.remote.set(url, entry);
    this.fetches += 1;
    entry.pending = this.fetchKeySet(url)
      .then(
        (keySet) => {
          entry.keySet = keySet;
          entry.fetchedAt = this.now();
          return keySet;
        },
        (error: unknown) => {
          // The request was refused before anything was fetched (its rate limit, or the instance's
          // bound on fetches in flight): its answer, not the URL's failure, so no cooldown begins.
          if (error instanceof OAuthError) {
            entry.attemptedAt = attemptedBefore;
            throw error;
          }
          this.logger?.warn({ jwks_uri: url, reason: error instanceof Error ? error.message : String(error) }, 'client jwks_uri fetch failed');
          // Keys fetched within the TTL stay usable; older ones are dropped.
          if (entry.keySet !== undefined && this.now() - entry.fetchedAt >= this.options.ttlMs) entry.keySet = undefined;
          return entry.keySet;
        },
      )
      .finally(() => {
        entry.pending = undefined;
      });
    return entry.pending;
  }

  private async fetchKeySet(url: string): Promise<ClientKeySet> {
    const response = await this.outbound.fetch(url, {
      headers: { accept: 'application/jwk-set+json, application/json' },
      timeoutMs: this.options.timeoutMs,
      maxBytes: this.options.maxBytes,
      httpsOnly: true,
      ...(this.agent ? { agent: this.agent } : {}),
    });
    if (response.status !== 200) throw new Error(`status ${response.status}`);
    try {
      return createLocalJWKSet(JSON.parse(response.body.toString('utf8')) as Parameters<typeof createLocalJWKSet>[0]);
    } catch {
      throw new Error('not a JSON Web Key Set');
    }
  }
}
