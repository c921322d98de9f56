import type { FastifyBaseLogger } from 'fastify';
import { levels } from 'pino';
import { SECRET_FIELDS } from '../logger.js';
import { DEFAULT_SETTINGS } from '../records/realm-settings.js';
import type { AuditEventStore, NewAuditEvent } from '../store/audit-events.js';
import type { RealmStore } from '../store/realms.js';
import type { AuditEvent, AuditLog, PreparedAuditEvent } from './audit-log.js';

/** A typed username can be anything: long strings are cut. */
const MAX_STRING = 512;
/** Rows waiting for the database beyond this are dropped (their log lines are not). */
const MAX_PENDING = 10_000;

export interface AuditTrailDeps {
  events: Pick<AuditEventStore, 'append'>;
  /** For each realm's `audit_event_lifetime`. */
  realms: Pick<RealmStore, 'get'>;
  /** `level` unknown: every line is built. */
  logger: Pick<FastifyBaseLogger, 'info' | 'warn'> & Partial<Pick<FastifyBaseLogger, 'level'>>;
  maxPending?: number;
}

/**
 * The audit trail: each event is one log line at once, and one `audit_events` row written
 * after the request that caused it has answered, in batches with the rows of concurrent
 * requests (src/store/audit-events.ts). A failed write is logged and never reaches the
 * request; `flush` waits for the rows recorded so far (on close, and before the events API
 * reads, so that an instance reads its own events).
 *
 * A prepared event is written by its caller instead, with what it tells of: the tokens'
 * statement writes their `token.issued` row, so that the two commit together.
 */
export class AuditTrail implements AuditLog {
  private readonly pending = new Set<Promise<void>>();
  private dropped = 0;

  constructor(private readonly deps: AuditTrailDeps) {}

  record(event: AuditEvent, lifetime?: number): void {
    try {
      const occurredAt = new Date();
      const details = cleaned(event.details ?? {}) as Record<string, unknown>;
      const fields = this.log(event, details);
      if (this.pending.size >= (this.deps.maxPending ?? MAX_PENDING)) {
        if (this.dropped++ === 0) this.deps.logger.warn('audit events are not being stored: the database is behind');
        return;
      }
      if (this.dropped > 0) {
        this.deps.logger.warn({ dropped: this.dropped }, 'audit events dropped while the database was behind');
        this.dropped = 0;
      }
      // With the lifetime at hand (every token issued), the row goes to the store at once, with
      // no async step's promise between: each was garbage of the token endpoint's.
      const stored = lifetime === undefined ? this.write(event, occurredAt, details) : this.deps.events.append(rowOf(event, occurredAt, details, lifetime));
      const written = stored.then(undefined, (error: unknown) => {
        this.deps.logger.warn({ err: error, audit: fields }, 'audit event not stored');
      });
      this.pending.add(written);
      void written.then(() => this.pending.delete(written));
    } catch (error) {
      this.deps.logger.warn({ err: error, audit: { type: event.type, realm: event.realm } }, 'audit event not recorded');
    }
  }

  prepare(event: AuditEvent, lifetime: number): PreparedAuditEvent {
    const details = cleaned(event.details ?? {}) as Record<string, unknown>;
    return { row: rowOf(event, new Date(), details, lifetime), committed: () => this.log(event, details) };
  }

  /** Writes the event's log line (unless info lines are off: the line's object is not even built); answers its identifying fields. */
  private log(event: AuditEvent, details: Record<string, unknown>) {
    const fields = { type: event.type, realm: event.realm, client_id: event.clientId, user_id: event.userId, address: event.address };
    if (this.infoLogged()) this.deps.logger.info({ audit: { ...details, ...fields } }, `audit ${event.type}`);
    return fields;
  }

  private infoLogged(): boolean {
    const level = this.deps.logger.level;
    return level === undefined || (levels.values[level] ?? 0) <= levels.values.info!;
  }

  /** Waits until every event recorded so far is stored, or its failure logged. */
  async flush(): Promise<void> {
    await Promise.all(this.pending);
  }

  /** The event's row, once its realm's lifetime is looked up. */
  private async write(event: AuditEvent, occurredAt: Date, details: Record<string, unknown>): Promise<void> {
    // A deleted realm's last events are kept for the default lifetime.
    const kept = (await this.deps.realms.get(event.realm))?.settings.audit_event_lifetime ?? DEFAULT_SETTINGS.audit_event_lifetime;
    await this.deps.events.append(rowOf(event, occurredAt, details, kept));
  }
}

function rowOf(event: AuditEvent, occurredAt: Date, details: Record<string, unknown>, lifetime: number): NewAuditEvent {
  return {
    realm: storable(event.realm),
    type: event.type,
    occurredAt,
    clientId: event.clientId === undefined ? undefined : storable(event.clientId),
    userId: event.userId === undefined ? undefined : storable(event.userId),
    address: event.address === undefined ? undefined : storable(event.address),
    details,
    expiresAt: new Date(occurredAt.getTime() + lifetime * 1000),
  };
}

/**
 * Details as they may be logged and stored: secret-named fields censored at any depth, and
 * strings cut and made storable.
 */
function cleaned(value: unknown): unknown {
  if (typeof value === 'string') return storable(value);
  if (Array.isArray(value)) return value.map(cleaned);
  if (value instanceof Date) return value.toISOString();
  if (value !== null && typeof value === 'object') {
    // A loop rather than Object.entries and fromEntries: every token issued passes here, and the pairs were garbage.
    const copy: Record<string, unknown> = {};
    for (const name of Object.keys(value)) {
      const inner = SECRET_FIELDS.has(name) ? '[redacted]' : cleaned((value as Record<string, unknown>)[name]);
      // A field named __proto__ (a parsed body's) stays a field, as fromEntries kept it, not the copy's prototype.
      if (name === '__proto__') Object.defineProperty(copy, name, { value: inner, enumerable: true, writable: true, configurable: true });
      else copy[name] = inner;
    }
    return copy;
  }
  return value;
}

/** A NUL or any surrogate: only then can a string need mending (the common case is one cheap test). */
const UNSTORABLE_CANDIDATE = /[\0\uD800-\uDFFF]/;

/** PostgreSQL stores no NUL character nor lone surrogate, in text or in jsonb. */
function storable(text: string): string {
  const cut = text.length > MAX_STRING ? `${text.slice(0, MAX_STRING)}…` : text;
  if (!UNSTORABLE_CANDIDATE.test(cut)) return cut;
  return cut.replace(/\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}
