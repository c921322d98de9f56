import { LRUCache } from 'lru-cache';

interface Bucket {
  tokens: number;
  updatedAt: number;
}

const MINUTE_MS = 60_000;

/**
 * Token buckets in this process's memory: each key may spend `perMinute` requests at once,
 * and earns them back evenly over a minute. At most `maxKeys` are kept, the least recently
 * used going first: a forgotten bucket is a full one, as is any bucket untouched for a minute.
 *
 * No time to live: a bucket read after a minute computes itself full, so expiry would change
 * no answer, and would cost every lookup a clock read and every client seen less than once a
 * minute a delete and a new bucket.
 */
export class TokenBuckets {
  private readonly buckets: LRUCache<string, Bucket>;

  constructor(maxKeys = 100_000) {
    this.buckets = new LRUCache({ max: maxKeys });
  }

  /** Spends one request of `key`: 0 when allowed, else the whole seconds until one is earned back. */
  take(key: string, perMinute: number, now = Date.now()): number {
    const earnedPerMs = perMinute / MINUTE_MS;
    let bucket = this.buckets.get(key);
    if (bucket) {
      bucket.tokens = Math.min(perMinute, bucket.tokens + (now - bucket.updatedAt) * earnedPerMs);
      bucket.updatedAt = now;
    } else {
      bucket = { tokens: perMinute, updatedAt: now };
      this.buckets.set(key, bucket);
    }
    if (bucket.tokens < 1) return Math.max(1, Math.ceil((1 - bucket.tokens) / earnedPerMs / 1000));
    bucket.tokens -= 1;
    return 0;
  }
}
