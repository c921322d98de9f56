import type { FastifyBaseLogger } from 'fastify';
import { Counter, Gauge, type Registry } from 'prom-client';
import { OutboundError, type OutboundFetcher } from '../http/outbound-fetch.js';
import type { OutboxEntry, OutboxStore } from '../store/outbox.js';

/**
 * How one kind of entry is sent: the POST it makes; undefined when it can no longer be made
 * (given up); `later` when what it tells has not happened yet (tried again after a backoff).
 */
export interface OutboxSender {
  request(entry: OutboxEntry): Promise<{ headers: Record<string, string>; body: string } | undefined | 'later'>;
}

export interface OutboxOptions {
  /** How often each instance looks for due entries; a session's end is told within it (and a send). */
  pollMs?: number;
  /** The clock of due times and backoffs; tests set their own. */
  clock?: () => number;
  /** false: no polling; tests call `tick` themselves. */
  polling?: boolean;
}

/** CONTRACT.md §12: a receiver answers within 5 seconds, or the try failed. */
export const DELIVERY_TIMEOUT_MS = 5_000;
/** Longer than a try can take: an entry claimed by an instance that died is due again after it. */
export const LEASE_MS = 15_000;
/** Tries go on at least this long after the entry was queued (CONTRACT.md §12: an hour). */
export const RETRY_WINDOW_MS = 60 * 60_000;
const DEFAULT_POLL_MS = 2_000;
const BATCH = 20;
/** The receiver's answer is read (and dropped) up to this size. */
const ANSWER_MAX_BYTES = 64 * 1024;

/** The wait after a failed try: 5 s, doubling, at most 15 minutes. */
export const backoffMs = (attempts: number): number => Math.min(5_000 * 2 ** Math.max(0, attempts - 1), 15 * 60_000);

/**
 * Delivers the outbox (src/store/outbox.ts) from every instance: each tick claims the entries
 * due and POSTs them through the outbound fetcher (SSRF guard, `OUTBOUND_ALLOW`), never
 * following a redirect. A 2xx settles an entry; any other answer, a timeout or a refused address
 * retries it after a backoff, until RETRY_WINDOW_MS has passed since it was queued. The request
 * that queued an entry never waits for it.
 */
export class OutboxDeliverer {
  private readonly clock: () => number;
  private readonly pollMs: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private stopped = false;
  private readonly delivered: Counter<'kind'>;
  private readonly failed: Counter<'kind'>;
  private readonly abandoned: Counter<'kind'>;

  constructor(
    private readonly deps: {
      store: OutboxStore;
      outbound: OutboundFetcher;
      senders: Readonly<Record<string, OutboxSender>>;
      registry: Registry;
      logger: FastifyBaseLogger;
    },
    options: OutboxOptions = {},
  ) {
    this.clock = options.clock ?? Date.now;
    this.pollMs = options.pollMs ?? DEFAULT_POLL_MS;
    const registers = [deps.registry];
    const store = deps.store;
    new Gauge({
      name: 'outbox_queued',
      help: 'Deliveries waiting in the outbox (logout tokens, CIBA notifications), by kind',
      labelNames: ['kind'] as const,
      registers,
      async collect() {
        this.reset();
        for (const { kind, count } of await store.pendingByKind()) this.set({ kind }, count);
      },
    });
    this.delivered = new Counter({ name: 'outbox_delivered_total', help: 'Deliveries acknowledged with a 2xx, by kind', labelNames: ['kind'] as const, registers });
    this.failed = new Counter({ name: 'outbox_failed_total', help: 'Delivery tries that failed (retried later), by kind', labelNames: ['kind'] as const, registers });
    this.abandoned = new Counter({ name: 'outbox_abandoned_total', help: 'Deliveries given up after the retry window, by kind', labelNames: ['kind'] as const, registers });
  }

  /** Polls until `stop`. */
  start(): void {
    const next = () => {
      if (this.stopped) return;
      this.timer = setTimeout(() => {
        this.tick().then(next, (error: unknown) => {
          this.deps.logger.warn({ err: error }, 'outbox delivery failed');
          next();
        });
      }, this.pollMs);
      this.timer.unref();
    };
    next();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running?.catch(() => {});
  }

  /** Claims the entries due now and tries each; answers how many were tried. One tick runs at a time. */
  tick(): Promise<number> {
    this.running ??= this.deliverDue().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async deliverDue(): Promise<number> {
    const now = this.clock();
    const entries = await this.deps.store.claim(new Date(now), new Date(now + LEASE_MS), BATCH);
    await Promise.all(entries.map((entry) => this.deliver(entry)));
    return entries.length;
  }

  private async deliver(entry: OutboxEntry): Promise<void> {
    const sender = this.deps.senders[entry.kind];
    let failure: string;
    try {
      const request = sender && (await sender.request(entry));
      if (!request) return await this.giveUp(entry, 'no longer deliverable');
      if (request === 'later') return await this.retry(entry, 'not due yet');
      const response = await this.deps.outbound.fetch(entry.target, {
        method: 'POST',
        headers: request.headers,
        body: request.body,
        timeoutMs: DELIVERY_TIMEOUT_MS,
        maxBytes: ANSWER_MAX_BYTES,
        uncounted: true,
      });
      if (response.status >= 200 && response.status < 300) {
        await this.deps.store.delivered(entry.id, new Date(this.clock()));
        this.delivered.inc({ kind: entry.kind });
        return;
      }
      failure = `answered ${response.status}`;
    } catch (error) {
      failure = error instanceof OutboundError ? error.failure : 'error';
      if (!(error instanceof OutboundError)) this.deps.logger.warn({ err: error, kind: entry.kind, realm: entry.realm }, 'outbox entry not sent');
    }
    await this.retry(entry, failure);
  }

  private async retry(entry: OutboxEntry, failure: string): Promise<void> {
    const now = this.clock();
    // The target's path or query may hold a credential of the receiver: only its origin is logged.
    const context = { kind: entry.kind, realm: entry.realm, target_origin: originOf(entry.target), attempts: entry.attempts, failure };
    if (now - entry.createdAt.getTime() >= RETRY_WINDOW_MS) return this.giveUp(entry, failure);
    this.failed.inc({ kind: entry.kind });
    this.deps.logger.info(context, 'outbox delivery failed; retried later');
    await this.deps.store.failed(entry.id, entry.attempts, failure, new Date(now + backoffMs(entry.attempts)), new Date(now));
  }

  private async giveUp(entry: OutboxEntry, failure: string): Promise<void> {
    this.abandoned.inc({ kind: entry.kind });
    this.deps.logger.warn({ kind: entry.kind, realm: entry.realm, target_origin: originOf(entry.target), attempts: entry.attempts, failure }, 'outbox delivery given up');
    await this.deps.store.failed(entry.id, entry.attempts, failure, undefined, new Date(this.clock()));
  }
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'invalid';
  }
}
