import type { JourneyProgress } from '../records/journey.js';
import { type Locale, isLocale } from '../records/locales.js';
import type { AuthorizationRequest } from '../records/authorization-request.js';
import type { AttemptLimit } from './attempt-counters.js';
import { type NewAuditEvent, insertAuditEvent } from './audit-events.js';
import { type AuthorizationCode, insertCode } from './authorization-codes.js';
import { type Consent, type Consented, consentedOf, grantConsent } from './consents.js';
import type { Db } from './db.js';
import { type NewSession, type Session, type SessionRow, insertSession, noteSessionClient, prefixedSession, sessionColumns, toSession } from './sessions.js';
import { type SignInSource, rememberSource } from './sign-in-sources.js';
import { logoutsQueuedFor } from './session-endings.js';
import { StatementParams } from './statement.js';

/**
 * What a transaction leads to once the person has signed in: a code for an authorization
 * request, an answer to a device's request (RFC 8628), or back to a page that needs a
 * signed-in person (the CIBA approval page).
 */
export type TransactionPurpose =
  | { readonly kind: 'authorize'; readonly request: AuthorizationRequest }
  | { readonly kind: 'device'; readonly pendingId: string; readonly userCode: string; readonly scope: readonly string[] }
  /** `journey`: the one to walk, for a page whose request asks for it (a CIBA client's); else the realm's choice. */
  | { readonly kind: 'sign-in'; readonly returnTo: 'bc-approve' | 'account'; readonly journey?: string };

/** A sign-in in progress, from the page that began it to the last one. */
export interface AuthorizationTransaction {
  readonly realm: string;
  /** The client the person is asked about; none for a plain sign-in. */
  readonly clientId: string | undefined;
  /** SHA-256 of the browser binding cookie: the flow continues only in the browser that began it. */
  readonly browserHash: Buffer;
  readonly purpose: TransactionPurpose;
  /** The session that signed in for this request, once there is one. */
  readonly sid: string | undefined;
  /** How far the sign-in has come through its journey; none before its first step. */
  readonly progress: JourneyProgress | undefined;
  readonly createdAt: Date;
  /** The language the pages' picker chose (CONTRACT.md §16), over the request's `ui_locales`. */
  readonly locale: Locale | undefined;
}

interface TransactionRow {
  realm: string;
  client_id: string | null;
  browser_hash: Uint8Array;
  kind: TransactionPurpose['kind'];
  request: Record<string, unknown>;
  sid: string | null;
  progress: JourneyProgress | null;
  created_at: Date;
  locale: string | null;
}

/** The `request` column holds the purpose's details; `kind` says which. */
function toPurpose(kind: TransactionPurpose['kind'], details: Record<string, unknown>): TransactionPurpose {
  if (kind === 'authorize') return { kind, request: details as unknown as AuthorizationRequest };
  return { kind, ...details } as TransactionPurpose;
}

function detailsOf(purpose: TransactionPurpose): unknown {
  if (purpose.kind === 'authorize') return purpose.request;
  const { kind: _kind, ...details } = purpose;
  return details;
}

const toTransaction = (row: TransactionRow): AuthorizationTransaction => ({
  realm: row.realm,
  clientId: row.client_id ?? undefined,
  browserHash: Buffer.from(row.browser_hash),
  purpose: toPurpose(row.kind, row.request),
  sid: row.sid ?? undefined,
  progress: row.progress ?? undefined,
  createdAt: row.created_at,
  locale: row.locale !== null && isLocale(row.locale) ? row.locale : undefined,
});

/** What a completed sign-in writes besides its session (AuthorizationFlowStore.signedIn). */
export interface CompletedSignIn {
  secretHash: Buffer;
  session: NewSession;
  /** The hash of the browser's previous session, which the new one replaces (no session fixation). */
  replaces: Buffer | undefined;
  /** The sid of the session a step-up completes: the new one begins only if it replaces that one, still there. */
  completes?: string | undefined;
  /** A plain sign-in's transaction ends with it; the others go on to consent. */
  finish: boolean;
  /** Where the sign-in came from, as the risk node knows it (src/authn/risk.ts). */
  source: SignInSource;
  /** `sign_in.succeeded`. */
  event: NewAuditEvent;
  /** The client whose consent the next page depends on. */
  consentOf: string | undefined;
}

/** A step-up's session begins only in place of the one it completes (ended meanwhile: nothing begins). */
function completesCondition(params: StatementParams, signIn: CompletedSignIn): string | undefined {
  if (signIn.completes === undefined) return undefined;
  return signIn.replaces ? `EXISTS (SELECT 1 FROM replaced WHERE sid = ${params.add(signIn.completes)}::uuid)` : 'false';
}

/** What ends with a transaction, written by the statement that ends it. */
export interface TransactionEnding {
  consent?: Consent | undefined;
  code?: { hash: Buffer; code: AuthorizationCode } | undefined;
  event?: NewAuditEvent | undefined;
}

/**
 * Transactions and pushed requests (RFC 9126), each by the SHA-256 of its secret id. Both
 * are stored, not kept in memory, so that any instance can serve the next step.
 */
export class AuthorizationFlowStore {
  constructor(private readonly db: Db) {}

  /**
   * Stores a new transaction. With a `limit`, the same statement first counts it against the
   * limit's key in `attempt_counters` (as `AttemptCounters.countRequest` does) and stores it
   * only within the limit: no round trip more for the count, and none of the rows past it.
   */
  async begin(
    idHash: Buffer,
    tx: {
      realm: string;
      clientId: string | undefined;
      browserHash: Buffer;
      purpose: TransactionPurpose;
      sid: string | undefined;
      /** Where its sign-in begins: a step-up's, at the first node its session has not passed. */
      progress?: JourneyProgress | undefined;
      lifetimeSeconds: number;
      /** The language the page that began it chose (`?ui_locales=`), for its pages. */
      locale?: Locale | undefined;
    },
    limit?: AttemptLimit,
  ): Promise<{ begun: true } | { begun: false; secondsLeft: number }> {
    const row = [
      idHash,
      tx.realm,
      tx.clientId ?? null,
      tx.browserHash,
      tx.purpose.kind,
      JSON.stringify(detailsOf(tx.purpose)),
      tx.sid ?? null,
      tx.lifetimeSeconds,
      tx.progress === undefined ? null : JSON.stringify(tx.progress),
      tx.locale ?? null,
    ];
    if (!limit) {
      await this.db.query(
        `INSERT INTO authorization_transactions (id_hash, realm, client_id, browser_hash, kind, request, sid, expires_at, progress, locale)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::uuid, now() + make_interval(secs => $8), $9::jsonb, $10)`,
        row,
      );
      return { begun: true };
    }
    const result = await this.db.query<{ count: number; seconds_left: number }>(
      `WITH counted AS (
         INSERT INTO attempt_counters AS c (key, failures, window_ends_at) VALUES ($11, 1, now() + make_interval(secs => $12))
         ON CONFLICT (key) DO UPDATE SET
           failures = CASE WHEN c.window_ends_at <= now() THEN 1 ELSE c.failures + 1 END,
           window_ends_at = CASE WHEN c.window_ends_at <= now() THEN excluded.window_ends_at ELSE c.window_ends_at END
         RETURNING c.failures, c.window_ends_at
       ), begun AS (
         INSERT INTO authorization_transactions (id_hash, realm, client_id, browser_hash, kind, request, sid, expires_at, progress, locale)
         SELECT $1, $2, $3, $4, $5, $6::jsonb, $7::uuid, now() + make_interval(secs => $8), $9::jsonb, $10 FROM counted WHERE counted.failures <= $13
       )
       SELECT failures AS count, ceil(extract(epoch FROM window_ends_at - now()))::int AS seconds_left FROM counted`,
      [...row, limit.key, limit.windowSeconds, limit.max],
    );
    const counted = result.rows[0]!;
    return counted.count <= limit.max ? { begun: true } : { begun: false, secondsLeft: Math.max(1, counted.seconds_left) };
  }

  /**
   * The unexpired transaction, and the browser's unexpired session of the realm (by the hash of
   * its cookie's secret, when it has one), in one statement.
   */
  async find(idHash: Buffer, realm: string, sessionHash?: Buffer): Promise<{ transaction: AuthorizationTransaction; session: Session | undefined } | undefined> {
    const result = await this.db.query<TransactionRow & Record<string, unknown>>(
      `SELECT t.realm, t.client_id, t.browser_hash, t.kind, t.request, t.sid, t.progress, t.created_at, t.locale, ${sessionColumns('s', 'session_')}
         FROM authorization_transactions t
         LEFT JOIN sessions s ON s.secret_hash = $3 AND s.realm = t.realm AND s.expires_at > now()
        WHERE t.id_hash = $1 AND t.realm = $2 AND t.expires_at > now()`,
      [idHash, realm, sessionHash ?? null],
    );
    const row = result.rows[0];
    return row && { transaction: toTransaction(row), session: prefixedSession(row, 'session_') };
  }

  /** The language a page's picker chose for the sign-in's pages that follow. */
  async setLocale(idHash: Buffer, locale: Locale): Promise<void> {
    await this.db.query('UPDATE authorization_transactions SET locale = $2 WHERE id_hash = $1 AND expires_at > now()', [idHash, locale]);
  }

  /** Records how far the sign-in has come. */
  async saveProgress(idHash: Buffer, progress: JourneyProgress): Promise<void> {
    await this.db.query('UPDATE authorization_transactions SET progress = $2::jsonb WHERE id_hash = $1', [idHash, JSON.stringify(progress)]);
  }

  /**
   * The sign-in of the transaction is complete, in one statement: the session starts (replacing
   * the browser's previous one), the transaction records it (or, with `finish`, ends), the
   * sign-in's source becomes known for the risk node, and its event is written; the answer
   * tells whether the transaction was still there, and what the person allowed `consentOf`
   * (a client) before: scopes and resources. Undefined, with nothing but the browser's previous session ended, when
   * the person is gone or disabled (src/store/sessions.ts insertSession).
   */
  async signedIn(idHash: Buffer, signIn: CompletedSignIn): Promise<{ session: Session; found: boolean; consented: Consented | undefined } | undefined> {
    const params = new StatementParams();
    const started = 'EXISTS (SELECT 1 FROM started)';
    const parts = [
      ...(signIn.replaces ? [`replaced AS (DELETE FROM sessions WHERE secret_hash = ${params.add(signIn.replaces)} RETURNING realm, user_id, sid, clients)`] : []),
      // A replaced session ends as any other does: its clients are told (src/store/session-endings.ts), in this
      // statement; but for a step-up, which continues the session it completes.
      ...(signIn.replaces && signIn.completes === undefined ? [`told AS (${logoutsQueuedFor('replaced')})`] : []),
      `started AS (${insertSession(params, signIn.secretHash, signIn.session, completesCondition(params, signIn))})`,
      signIn.finish
        ? `moved AS (DELETE FROM authorization_transactions WHERE id_hash = ${params.add(idHash)} AND expires_at > now() AND ${started} RETURNING 1)`
        : `moved AS (UPDATE authorization_transactions SET sid = (SELECT sid FROM started)
                      WHERE id_hash = ${params.add(idHash)} AND expires_at > now() AND ${started} RETURNING 1)`,
      `remembered AS (${rememberSource(params, signIn.session.realm, signIn.session.userId, signIn.source, started)})`,
      `recorded AS (${insertAuditEvent(params, signIn.event, started)})`,
    ];
    const consented = signIn.consentOf
      ? `(SELECT ${consentedOf('c')} FROM consents c WHERE c.realm = started.realm AND c.user_id = started.user_id AND c.client_id = ${params.add(signIn.consentOf)})`
      : 'NULL::json';
    const result = await this.db.query<SessionRow & { found: boolean; consented: Consented | null }>(
      `WITH ${parts.join(',\n')}
       SELECT started.*, EXISTS (SELECT 1 FROM moved) AS found, ${consented} AS consented FROM started`,
      params.values,
    );
    const row = result.rows[0];
    return row && { session: toSession(row), found: row.found, consented: row.consented ?? undefined };
  }

  /**
   * Ends the transaction, and in the same statement writes what its ending brings (a consent,
   * a code, the event of the decision), only for the one caller that ended it: true for that
   * caller, false when it had ended already (a double submit writes nothing).
   */
  async finish(idHash: Buffer, ending: TransactionEnding = {}): Promise<boolean> {
    const params = new StatementParams();
    const parts = [`finished AS (DELETE FROM authorization_transactions WHERE id_hash = ${params.add(idHash)} RETURNING 1)`];
    if (ending.consent) parts.push(`consented AS (${grantConsent(params, ending.consent, 'finished')})`);
    if (ending.code) {
      const { code } = ending.code;
      parts.push(`coded AS (${insertCode(params, ending.code.hash, code, 'finished')})`);
      parts.push(`noted AS (${noteSessionClient(params, code.realm, code.sid, code.clientId, 'finished')})`);
    }
    if (ending.event) parts.push(`recorded AS (${insertAuditEvent(params, ending.event, 'EXISTS (SELECT 1 FROM finished)')})`);
    const result = await this.db.query<{ finished: boolean }>(
      `WITH ${parts.join(',\n')} SELECT EXISTS (SELECT 1 FROM finished) AS finished`,
      params.values,
    );
    return result.rows[0]!.finished;
  }

  async push(uriHash: Buffer, pushed: { realm: string; clientId: string; request: AuthorizationRequest; lifetimeSeconds: number }): Promise<void> {
    await this.db.query(
      `INSERT INTO pushed_requests (uri_hash, realm, client_id, request, expires_at)
       VALUES ($1, $2, $3, $4::jsonb, now() + make_interval(secs => $5))`,
      [uriHash, pushed.realm, pushed.clientId, JSON.stringify(pushed.request), pushed.lifetimeSeconds],
    );
  }

  /** The pushed request, once: undefined when unknown, expired, used, or pushed by another client. */
  async usePushed(uriHash: Buffer, realm: string, clientId: string): Promise<AuthorizationRequest | undefined> {
    const result = await this.db.query<{ request: AuthorizationRequest }>(
      `UPDATE pushed_requests SET used_at = now()
        WHERE uri_hash = $1 AND realm = $2 AND client_id = $3 AND used_at IS NULL AND expires_at > now()
        RETURNING request`,
      [uriHash, realm, clientId],
    );
    return result.rows[0]?.request;
  }
}
