import { StoreUnavailableError } from '../errors.js';

/**
 * Coalesces concurrent writes into one statement: rows that arrive while earlier batches
 * are on their way to the database queue up and go together in the next one. Each
 * caller's promise settles when the statement holding its row has committed, so nothing
 * is acknowledged before it is durable; at low load a row goes alone, at once.
 *
 * When a batch fails for another reason than an outage, its rows are retried one by one,
 * so that one bad row fails only its own caller.
 */
export class BatchedWriter<Row> {
  private queue: Array<{ row: Row; resolve: () => void; reject: (error: unknown) => void }> = [];
  private inFlight = 0;

  constructor(
    private readonly write: (rows: readonly Row[]) => Promise<void>,
    private readonly options: { maxBatch: number; maxInFlight: number } = { maxBatch: 256, maxInFlight: 2 },
  ) {}

  add(row: Row): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ row, resolve, reject });
      this.flush();
    });
  }

  private flush(): void {
    while (this.queue.length > 0 && this.inFlight < this.options.maxInFlight) {
      const batch = this.queue.splice(0, this.options.maxBatch);
      this.inFlight++;
      this.writeBatch(batch).finally(() => {
        this.inFlight--;
        this.flush();
      });
    }
  }

  private async writeBatch(batch: typeof this.queue): Promise<void> {
    try {
      await this.write(batch.map((entry) => entry.row));
      for (const entry of batch) entry.resolve();
    } catch (error) {
      if (batch.length === 1 || error instanceof StoreUnavailableError) {
        for (const entry of batch) entry.reject(error);
        return;
      }
      await Promise.all(
        batch.map((entry) => this.write([entry.row]).then(entry.resolve, entry.reject)),
      );
    }
  }
}
