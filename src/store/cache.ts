import { LRUCache } from 'lru-cache';
import type { Db, Queryable } from './db.js';

export const INVALIDATION_CHANNEL = 'realmgate_invalidate';

/** What invalidation needs of a cache, whatever it holds. */
export interface Invalidatable {
  readonly name: string;
  /** Drops the key (or, ending in "/", every key with that prefix). */
  drop(key: string): void;
  clear(): void;
}

/**
 * A bounded read-through cache of rows that any instance may change. Writers go through
 * `writeThrough`, which notifies inside the transaction: PostgreSQL delivers the
 * notification to every instance when (and only if) the transaction commits. While
 * notifications cannot be received, the cache is bypassed.
 *
 * A key ending in "/" invalidates every key that starts with it.
 */
export class SharedCache<V extends object> implements Invalidatable {
  private readonly entries: LRUCache<string, V>;
  /** Bumped by every invalidation, so that a load that raced one is not stored. */
  private generation = 0;

  constructor(
    readonly name: string,
    private readonly db: Db,
    options: { max: number; ttlMs: number },
  ) {
    this.entries = new LRUCache<string, V>({ max: options.max, ttl: options.ttlMs });
  }

  async get(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    if (!this.db.listening) return load();
    const cached = this.entries.get(key);
    if (cached) return cached;
    const generation = this.generation;
    const value = await load();
    if (value && generation === this.generation) this.entries.set(key, value);
    return value;
  }

  drop(key: string): void {
    this.generation++;
    if (!key.endsWith('/')) {
      this.entries.delete(key);
      return;
    }
    for (const cachedKey of [...this.entries.keys()]) {
      if (cachedKey.startsWith(key)) this.entries.delete(cachedKey);
    }
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }

  /**
   * This cache as the repositories of one transaction use it (Store.transaction): reads go to
   * the database, since what the transaction sees may yet be rolled back; a drop reaches this
   * cache at once, and is noted in `committed` to be done again once the transaction commits.
   */
  withinTransaction(committed: Invalidation[]): SharedCache<V> {
    return new TransactionCacheView(this, this.db, committed);
  }
}

/** SharedCache.withinTransaction: never keeps what it reads. */
class TransactionCacheView<V extends object> extends SharedCache<V> {
  constructor(
    private readonly cache: SharedCache<V>,
    db: Db,
    private readonly committed: Invalidation[],
  ) {
    super(cache.name, db, { max: 1, ttlMs: 1 });
  }

  override get(_key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    return load();
  }

  override drop(key: string): void {
    this.cache.drop(key);
    this.committed.push([this.cache, key]);
  }

  override clear(): void {
    this.cache.clear();
  }
}

export type Invalidation = readonly [cache: Invalidatable, key: string];

/**
 * Runs a transaction that changes the rows behind `invalidations`: every instance drops
 * them when it commits, this one as soon as the commit returns.
 */
export async function writeThrough<T>(
  db: Db,
  invalidations: readonly Invalidation[],
  fn: (tx: Queryable) => Promise<T>,
): Promise<T> {
  const result = await db.transaction(async (tx) => {
    const value = await fn(tx);
    for (const [cache, key] of invalidations) {
      await tx.query('SELECT pg_notify($1, $2)', [INVALIDATION_CHANNEL, `${cache.name}|${key}`]);
    }
    return value;
  });
  for (const [cache, key] of invalidations) cache.drop(key);
  return result;
}

/** Routes the notifications of INVALIDATION_CHANNEL to the caches they name. */
export async function listenForInvalidations(db: Db, caches: readonly Invalidatable[]): Promise<void> {
  const byName = new Map(caches.map((cache) => [cache.name, cache]));
  await db.listen(
    INVALIDATION_CHANNEL,
    (payload) => {
      const separator = payload.indexOf('|');
      byName.get(payload.slice(0, separator))?.drop(payload.slice(separator + 1));
    },
    () => {
      for (const cache of caches) cache.clear();
    },
  );
}
