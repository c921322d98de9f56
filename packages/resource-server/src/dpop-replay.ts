import { LRUCache } from 'lru-cache';

/** Where the plugin remembers the `jti` of each DPoP proof it accepted, so that a proof is accepted once. */
export interface DpopReplayStore {
  /** Spends the proof's `jti` (per key); false when it was spent before `expiresAt` came. */
  use(thumbprint: string, jti: string, expiresAt: Date): boolean | Promise<boolean>;
}

/**
 * The plugin's own memory of spent proofs: per process, and bounded (least recently used go
 * first). Behind a load balancer, a proof accepted by one process may be replayed at another
 * within its lifetime (two minutes with the clock skew); `dpop.replay` shares one store
 * between them (a table, Redis…). `max` must exceed the proofs one process accepts in two
 * minutes, or the oldest are forgotten before their time.
 */
export class MemoryReplayStore implements DpopReplayStore {
  private readonly spent: LRUCache<string, true>;

  constructor(max = 100_000) {
    this.spent = new LRUCache<string, true>({ max });
  }

  use(thumbprint: string, jti: string, expiresAt: Date): boolean {
    const key = `${thumbprint} ${jti}`;
    if (this.spent.has(key)) return false;
    this.spent.set(key, true, { ttl: Math.max(1, expiresAt.getTime() - Date.now()) });
    return true;
  }
}
