import { StoreUnavailableError } from '../errors.js';
import { DATABASE_TIMEOUTS } from './db.js';

interface Entry<Row> {
  /** Written in the same statement, or not at all. */
  rows: readonly Row[];
  queuedAt: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export interface StatementBatcherOptions {
  maxBatch: number;
  /**
   * Statements sent before the first has answered; 1 by default. With one at a time, the rows
   * that arrive while it runs all go in the next: fewer, larger statements and commits, which
   * cost both this process and PostgreSQL less per row than two smaller ones in parallel
   * (the token endpoint, on two cores: about 7 % more requests per second than with two).
   */
  maxInFlight: number;
  maxWaitMs: number;
  /**
   * How long the next statement waits after one has answered, so that more rows join it; 0 by
   * default. For writes that no request waits on (the audit trail's), fewer and larger
   * statements cost PostgreSQL less per row: inserting audit events, some 31 µs of its CPU a row
   * in statements of 10 rows, 18 µs in statements of 50, 16.5 µs in statements of 200.
   */
  pauseMs: number;
}

/**
 * Coalesces concurrent calls into one statement: rows that arrive while the batch before is
 * on its way to the database queue up and go together in the next one, as do those added in
 * the same turn of the event loop; at low load a row goes alone, at the end of its turn. Each
 * caller's promise settles when the statement holding its rows has run (for a write,
 * committed: nothing is acknowledged before it is durable; for a lookup, the statement has set
 * what it found on the row). The rows a caller adds together (`addAll`) are never split
 * between statements, so that an outage never leaves half of them written.
 *
 * When a batch fails for another reason than an outage, its callers' rows are retried one
 * caller at a time, so that one bad row fails only its own caller. Rows that wait in the
 * queue longer than `maxWaitMs` (the batches ahead are stuck on a database that stopped
 * answering) fail as an outage, rather than hold their requests past the database timeout.
 */
export class StatementBatcher<Row> {
  private queue: Array<Entry<Row>> = [];
  private inFlight = 0;
  private expiry: NodeJS.Timeout | undefined;
  private flushScheduled = false;
  /** In the pause after a statement (`pauseMs`). */
  private pausing = false;
  private readonly options: StatementBatcherOptions;

  constructor(
    private readonly run: (rows: readonly Row[]) => Promise<void>,
    options: Partial<StatementBatcherOptions> = {},
  ) {
    this.options = { maxBatch: 256, maxInFlight: 1, maxWaitMs: DATABASE_TIMEOUTS.answerMs, pauseMs: 0, ...options };
  }

  add(row: Row): Promise<void> {
    return this.addAll([row]);
  }

  /** Runs the rows in one statement (with other callers' rows, perhaps). */
  addAll(rows: readonly Row[]): Promise<void> {
    if (rows.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.queue.push({ rows, queuedAt: Date.now(), resolve, reject });
      this.scheduleFlush();
    });
  }

  /**
   * Sends at the end of this turn of the event loop (setImmediate runs after the I/O just
   * read has been handled), so that the rows of every request read in one turn go together,
   * in one round trip, rather than the first alone.
   */
  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush();
      if (this.queue.length > 0) this.watchWaiting();
    });
  }

  /** Fails, as an outage, the rows that waited longer than maxWaitMs; looks again while any wait. */
  private watchWaiting(): void {
    if (this.expiry) return;
    const oldest = this.queue[0]!.queuedAt;
    this.expiry = setTimeout(() => {
      this.expiry = undefined;
      const deadline = Date.now() - this.options.maxWaitMs;
      while (this.queue.length > 0 && this.queue[0]!.queuedAt <= deadline) {
        this.queue.shift()!.reject(new StoreUnavailableError('the database did not take the write in time'));
      }
      if (this.queue.length > 0) this.watchWaiting();
    }, Math.max(0, oldest + this.options.maxWaitMs - Date.now()));
    this.expiry.unref();
  }

  private flush(): void {
    while (!this.pausing && this.queue.length > 0 && this.inFlight < this.options.maxInFlight) {
      const batch = this.nextBatch();
      this.inFlight++;
      void this.runBatch(batch);
    }
  }

  /** A statement has answered: the next may go, after the pause when there is one. */
  private release(): void {
    this.inFlight--;
    if (this.options.pauseMs === 0) {
      this.flush();
      return;
    }
    this.pausing = true;
    setTimeout(() => {
      this.pausing = false;
      this.flush();
    }, this.options.pauseMs);
  }

  /** The queued entries that fit in maxBatch rows; always at least one. */
  private nextBatch(): Array<Entry<Row>> {
    let rows = this.queue[0]!.rows.length;
    let count = 1;
    while (count < this.queue.length && rows + this.queue[count]!.rows.length <= this.options.maxBatch) {
      rows += this.queue[count]!.rows.length;
      count++;
    }
    return this.queue.splice(0, count);
  }

  private async runBatch(batch: ReadonlyArray<Entry<Row>>): Promise<void> {
    try {
      await this.run(batch.flatMap((entry) => entry.rows));
    } catch (error) {
      if (batch.length > 1 && !(error instanceof StoreUnavailableError)) {
        await Promise.all(batch.map((entry) => this.run(entry.rows).then(entry.resolve, entry.reject)));
      } else {
        for (const entry of batch) entry.reject(error);
      }
      this.release();
      return;
    }
    // The next statement goes before this one's callers go on to answer their requests, so that
    // the database works on it meanwhile. The pool hands it a connection in a process.nextTick
    // (pg-pool's connect), which runs only once the promise jobs queued before it have run: the
    // callers are let go in a tick queued after that one.
    this.release();
    process.nextTick(() => {
      for (const entry of batch) entry.resolve();
    });
  }
}
