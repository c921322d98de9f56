import { OAuthError } from '../../errors.js';
import { printable } from '../../http/input-limits.js';
import type { StoreTransaction } from '../../store/index.js';
import type { KeyEncryption } from '../../tokens/key-encryption.js';

/**
 * An import is planned, then applied, in one transaction: each section of the document is
 * compared with what the realm has (read within the transaction), every problem refused
 * before anything is written, and then only what differs is written.
 */

/** What the import did to one section: the names of what it created, changed and deleted. */
export interface SectionSummary {
  created: string[];
  changed: string[];
  deleted: string[];
  unchanged: number;
}

/** A section's plan: what it will do, and the writes that do it. */
export interface SectionPlan {
  readonly summary: SectionSummary;
  apply(tx: StoreTransaction): Promise<void>;
}

export interface PlanContext {
  readonly realm: string;
  readonly tx: StoreTransaction;
  /** `?prune=true`: what a section of the document leaves out is deleted. */
  readonly prune: boolean;
  readonly encryption: KeyEncryption;
}

/** A refusal of the document naming where the problem is: `clients.2.redirect_uris.0: …`. */
export const invalidAt = (path: string, message: string): OAuthError => new OAuthError('invalid_request', printable(`${path}: ${message}`, 500));

/** `field: problem; field: problem` (the records' own checks) with each field below `path`. */
export const problemsAt = (path: string, problems: string): OAuthError =>
  new OAuthError('invalid_request', printable(problems.split('; ').map((problem) => `${path}.${problem}`).join('; '), 500));

type Write = (tx: StoreTransaction) => Promise<void>;

/** Builds a section's summary and writes as it is planned. */
export class SectionPlanner {
  readonly summary: SectionSummary = { created: [], changed: [], deleted: [], unchanged: 0 };
  private readonly writes: Write[] = [];

  /** Each names what it did; the write may be left to one `write` for several (the realm's settings). */
  create(name: string, write?: Write): void {
    this.summary.created.push(name);
    if (write) this.writes.push(write);
  }

  change(name: string, write?: Write): void {
    this.summary.changed.push(name);
    if (write) this.writes.push(write);
  }

  delete(name: string, write?: Write): void {
    this.summary.deleted.push(name);
    if (write) this.writes.push(write);
  }

  write(write: Write): void {
    this.writes.push(write);
  }

  unchanged(): void {
    this.summary.unchanged++;
  }

  plan(): SectionPlan {
    const writes = this.writes;
    return {
      summary: this.summary,
      async apply(tx) {
        for (const write of writes) await write(tx);
      },
    };
  }
}

/** The first entries that share a key, as a refusal naming the later one. */
export function refuseDuplicates<Entry>(section: string, entries: readonly Entry[], keyOf: (entry: Entry) => string, what: string): void {
  const seen = new Map<string, number>();
  entries.forEach((entry, index) => {
    const key = keyOf(entry);
    const first = seen.get(key);
    if (first !== undefined) throw invalidAt(`${section}.${index}`, `${what} as ${section}.${first}`);
    seen.set(key, index);
  });
}
