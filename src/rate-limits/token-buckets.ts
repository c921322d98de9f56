import { LRUCache } from 'lru-cache';

interface Bucket {
  tokens: number;
  updatedAt: number;
}

const MINUTE_MS = 60_000;

/**
 * Token buckets in this process's memory: each key may spend `perMinute` requests at once,
 * and earns them back evenly over a minute. A bucket untouched for a minute is full again,
 * so it is forgotten then; at most `maxKeys` are kept, the least recently used going first.
 */
export class TokenBuckets {
  private readonly buckets: LRUCache<string, Bucket>;

  constructor(maxKeys = 100_000) {
    this.buckets = new LRUCache({ max: maxKeys, ttl: MINUTE_MS });
  }

  /** Spends one request of `key`: 0 when allowed, else the whole seconds until one is earned back. */
  take(key: string, perMinute: number, now = Date.now()): number {
    const earnedPerMs = perMinute / MINUTE_MS;
    const bucket = this.buckets.get(key);
    const tokens = bucket ? Math.min(perMinute, bucket.tokens + (now - bucket.updatedAt) * earnedPerMs) : perMinute;
    const allowed = tokens >= 1;
    this.buckets.set(key, { tokens: allowed ? tokens - 1 : tokens, updatedAt: now });
    return allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / earnedPerMs / 1000));
  }
}
