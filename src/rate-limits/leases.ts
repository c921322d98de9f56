import { LRUCache } from 'lru-cache';
import type { RequestBudgetStore } from '../store/request-budgets.js';

const WINDOW_SECONDS = 60;
/** A share is a twentieth of the minute's budget: one statement per that many requests of a key. */
const SHARES_PER_WINDOW = 20;

/** The part of a key's budget this instance holds in the current window. */
interface Lease {
  perMinute: number;
  left: number;
  /** When the window ends, on this process's clock. */
  endsAt: number;
  /** The window's budget is spent: nothing more until it ends. */
  spent: boolean;
  /** The share being taken, which every request that waits for it awaits. */
  taking: Promise<void> | undefined;
}

/**
 * Per-minute budgets shared by every instance, spent from memory: the budget of each key is
 * counted in the database in one-minute windows, and an instance takes a share of it at a
 * time (a twentieth, at least 1), which its requests then spend without a statement. The
 * instances together never pass the budget; shares left unspent on one instance when the
 * window ends are lost, so a key spread over N instances may be refused up to N-1 shares
 * early. Once the database says the budget is spent, the instance refuses the key from
 * memory until the window ends.
 */
export class SharedBudgets {
  private readonly leases: LRUCache<string, Lease>;

  constructor(
    private readonly store: RequestBudgetStore,
    maxKeys = 100_000,
    private readonly now: () => number = Date.now,
  ) {
    this.leases = new LRUCache({ max: maxKeys });
  }

  /** Spends one request of `key`: 0 when allowed, else the whole seconds until its window ends. */
  async take(key: string, perMinute: number): Promise<number> {
    for (;;) {
      const lease = this.current(key, perMinute);
      if (lease.left > 0) {
        lease.left--;
        return 0;
      }
      if (lease.spent) return Math.max(1, Math.ceil((lease.endsAt - this.now()) / 1000));
      lease.taking ??= this.takeShare(key, lease).finally(() => {
        lease.taking = undefined;
      });
      await lease.taking;
    }
  }

  /**
   * The key's lease in the current window, emptied when its window ended or its limit changed;
   * while a share is being taken, that lease as it is (its callers wait for the share, then
   * look again), so that no key is asked for twice at once.
   */
  private current(key: string, perMinute: number): Lease {
    const lease = this.leases.get(key);
    if (lease?.taking || (lease && lease.perMinute === perMinute && lease.endsAt > this.now())) return lease;
    if (lease) {
      // Renewed in place: a key seen about once a window (a client among many) would otherwise
      // cost an object that outlives the young generation and a second LRU write per request.
      lease.perMinute = perMinute;
      lease.left = 0;
      lease.endsAt = 0;
      lease.spent = false;
      return lease;
    }
    const fresh: Lease = { perMinute, left: 0, endsAt: 0, spent: false, taking: undefined };
    this.leases.set(key, fresh);
    return fresh;
  }

  private async takeShare(key: string, lease: Lease): Promise<void> {
    const share = Math.max(1, Math.floor(lease.perMinute / SHARES_PER_WINDOW));
    const { count, msLeft } = await this.store.take(key, share, WINDOW_SECONDS);
    // What was left of the budget before this share, up to the share.
    const granted = Math.max(0, Math.min(share, lease.perMinute - (count - share)));
    lease.left = granted;
    lease.spent = granted === 0;
    lease.endsAt = this.now() + msLeft;
  }
}
