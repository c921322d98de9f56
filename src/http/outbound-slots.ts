import { OAuthError } from '../errors.js';

export interface OutboundSlotsOptions {
  /** Fetches in flight at once. */
  readonly max: number;
  /** Fetches that may wait for a slot; more are refused at once. */
  readonly waiting: number;
  /** How long one waits for a slot before it is refused. */
  readonly waitMs: number;
}

const DEFAULTS: OutboundSlotsOptions = { max: 16, waiting: 64, waitMs: 2_000 };

/** 503 with Retry-After, in the RFC's error shape: nothing was fetched, and trying again soon may succeed. */
const busy = (): OAuthError =>
  new OAuthError('temporarily_unavailable', 'the server is making too many outbound requests at once; retry shortly', {
    status: 503,
    headers: { 'retry-after': '1' },
  });

/**
 * A bound on the outbound fetches of this instance in flight at once (a semaphore): fetches of
 * URLs that requests name (client ID metadata documents, jwks_uri, upstream providers) must not
 * open connections without limit while the rate limits count in one-minute windows. A fetch
 * past the bound waits briefly for a slot, or is refused with `busy` when too many wait already.
 */
export class OutboundSlots {
  private running = 0;
  private readonly queue: Array<() => void> = [];
  private readonly options: OutboundSlotsOptions;

  constructor(options: Partial<OutboundSlotsOptions> = {}) {
    this.options = { ...DEFAULTS, ...options };
  }

  /** A slot, once one is free; the function it answers gives it back (once). */
  async take(): Promise<() => void> {
    if (this.running < this.options.max) {
      this.running += 1;
      return this.giver();
    }
    if (this.queue.length >= this.options.waiting) throw busy();
    await new Promise<void>((resolve, reject) => {
      const handOver = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.queue.splice(this.queue.indexOf(handOver), 1);
        reject(busy());
      }, this.options.waitMs);
      this.queue.push(handOver);
    });
    // The slot was handed over by the fetch that gave it back: `running` counts it still.
    return this.giver();
  }

  private giver(): () => void {
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const next = this.queue.shift();
      if (next) next();
      else this.running -= 1;
    };
  }
}

/** The slots of this process, shared by every outbound fetcher in it. */
export const PROCESS_OUTBOUND_SLOTS = new OutboundSlots();
