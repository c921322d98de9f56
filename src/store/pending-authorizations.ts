import { CIBA_PUSH, CibaPushRows } from './ciba-push.js';
import type { Db } from './db.js';
import type { Approval } from '../records/approval.js';

export type { Approval } from '../records/approval.js';

/** The outbox kind of a CIBA ping (src/outbox/ciba-ping.ts sends it). */
export const CIBA_PING = 'ciba_ping';

/** RFC 8628 §3.5: each poll that comes too soon adds this much to the interval. */
export const SLOW_DOWN_SECONDS = 5;

export type PendingKind = 'device' | 'ciba';


/** A device authorization or CIBA request, as the pages show it. */
export interface PendingAuthorization {
  /** Public id: names the request in forms, never usable to poll. */
  readonly id: string;
  readonly kind: PendingKind;
  readonly realm: string;
  readonly clientId: string;
  readonly scope: readonly string[];
  readonly userCode: string | undefined;
  readonly userId: string | undefined;
  readonly bindingMessage: string | undefined;
  readonly expiresAt: Date;
}

/** What a poll at the token endpoint finds (RFC 8628 §3.5, CIBA Core §11). */
export type PollOutcome =
  | { readonly state: 'unknown' }
  | { readonly state: 'expired' }
  | { readonly state: 'pending'; readonly tooSoon: boolean }
  | { readonly state: 'denied' }
  /** Tokens went to an earlier poll. */
  | { readonly state: 'issued' }
  /** A push-mode request (CIBA Core §10.3): its outcome goes to the client's notification endpoint, never to a poll. */
  | { readonly state: 'pushed' }
  /** This poll, and no other, receives the tokens. */
  | { readonly state: 'approved'; readonly scope: readonly string[]; readonly approval: Approval };

interface PendingRow {
  id: string;
  kind: PendingKind;
  realm: string;
  client_id: string;
  scope: string;
  user_code: string | null;
  user_id: string | null;
  binding_message: string | null;
  expires_at: Date;
}

const COLUMNS = 'id, kind, realm, client_id, scope, user_code, user_id, binding_message, expires_at';

const toPending = (row: PendingRow): PendingAuthorization => ({
  id: row.id,
  kind: row.kind,
  realm: row.realm,
  clientId: row.client_id,
  scope: row.scope.split(' ').filter((name) => name !== ''),
  userCode: row.user_code ?? undefined,
  userId: row.user_id ?? undefined,
  bindingMessage: row.binding_message ?? undefined,
  expiresAt: row.expires_at,
});

interface PollRow {
  push: boolean;
  status: 'pending' | 'approved' | 'denied' | 'issued';
  expired: boolean;
  too_soon: boolean;
  scope: string;
  user_id: string | null;
  sid: string | null;
  auth_time: Date | null;
  amr: string[] | null;
  acr: string | null;
}

/**
 * One statement answers a poll: it locks the row, records the poll, grows the interval of a
 * poll that came too soon, and moves an approved request to issued, so that of concurrent
 * polls exactly one receives the tokens. RETURNING reports the row as it was before.
 */
const POLL = `
  WITH before AS (
    SELECT secret_hash, push, status, expires_at <= now() AS expired,
           last_polled_at IS NOT NULL AND last_polled_at + make_interval(secs => interval_seconds) > now() AS too_soon,
           scope, user_id, sid, auth_time, amr, acr
      FROM pending_authorizations
     WHERE secret_hash = $1 AND realm = $2 AND client_id = $3 AND kind = $4
       FOR UPDATE
  )
  UPDATE pending_authorizations p
     SET last_polled_at = now(),
         interval_seconds = p.interval_seconds + CASE WHEN NOT before.expired AND before.status = 'pending' AND before.too_soon THEN ${SLOW_DOWN_SECONDS} ELSE 0 END,
         status = CASE WHEN NOT before.expired AND NOT before.push AND before.status = 'approved' THEN 'issued' ELSE p.status END
    FROM before
   WHERE p.secret_hash = before.secret_hash
  RETURNING before.push, before.status, before.expired, before.too_soon, before.scope, before.user_id, before.sid, before.auth_time, before.amr, before.acr`;

/**
 * Device authorizations (RFC 8628) and CIBA requests, by the SHA-256 of the secret the client
 * polls with. Stored, not kept in memory, so that any instance serves any poll or page.
 */
export class PendingAuthorizationStore {
  constructor(private readonly db: Db) {}

  /** What the sender of push-mode outcomes reads and writes (src/outbox/ciba-push.ts). */
  get push(): CibaPushRows {
    return new CibaPushRows(this.db);
  }

  /** False when the user code is taken (the caller draws another). */
  async createDevice(
    secretHash: Buffer,
    request: { realm: string; clientId: string; scope: readonly string[]; userCode: string; intervalSeconds: number; lifetimeSeconds: number },
  ): Promise<boolean> {
    const result = await this.db.query(
      `INSERT INTO pending_authorizations (secret_hash, kind, realm, client_id, scope, user_code, interval_seconds, expires_at)
       VALUES ($1, 'device', $2, $3, $4, $5, $6, now() + make_interval(secs => $7))
       ON CONFLICT (user_code) DO NOTHING`,
      [secretHash, request.realm, request.clientId, request.scope.join(' '), request.userCode, request.intervalSeconds, request.lifetimeSeconds],
    );
    return result.rowCount > 0;
  }

  async createBackchannel(
    secretHash: Buffer,
    request: {
      /** Drawn by the caller when `notification` is sealed with it; else by the database. */
      id?: string;
      realm: string;
      clientId: string;
      scope: readonly string[];
      userId: string;
      bindingMessage: string | undefined;
      intervalSeconds: number;
      lifetimeSeconds: number;
      /**
       * Ping or push mode (CIBA Core §10.2, §10.3): where to POST, and the secrets it carries, sealed
       * (migrations/037_ciba_ping.sql). A push request has its outbox entry queued with it, due at
       * its expiry (migrations/038_ciba_push.sql).
       */
      notification?: { endpoint: string; sealed: Buffer; push: boolean };
    },
  ): Promise<PendingAuthorization> {
    const result = await this.db.query<PendingRow>(
      `WITH created AS (
         INSERT INTO pending_authorizations (secret_hash, kind, realm, client_id, scope, user_id, binding_message, interval_seconds, expires_at,
                                             id, notification_endpoint, notification_sealed, push)
         VALUES ($1, 'ciba', $2, $3, $4, $5::uuid, $6, $7, now() + make_interval(secs => $8), coalesce($9::uuid, gen_random_uuid()), $10, $11, $12)
         RETURNING ${COLUMNS}, notification_endpoint, push
       ), queued AS (
         INSERT INTO outbox (kind, realm, target, payload, created_at, next_at)
         SELECT '${CIBA_PUSH}', c.realm, c.notification_endpoint, jsonb_build_object('request', c.id, 'client', c.client_id), c.expires_at, c.expires_at
           FROM created c WHERE c.push
       )
       SELECT ${COLUMNS} FROM created`,
      [
        secretHash,
        request.realm,
        request.clientId,
        request.scope.join(' '),
        request.userId,
        request.bindingMessage ?? null,
        request.intervalSeconds,
        request.lifetimeSeconds,
        request.id ?? null,
        request.notification?.endpoint ?? null,
        request.notification?.sealed ?? null,
        request.notification?.push ?? false,
      ],
    );
    return toPending(result.rows[0]!);
  }

  /** The unexpired device authorization, still unanswered, with that (normalised) user code. */
  async findDeviceByUserCode(realm: string, userCode: string): Promise<PendingAuthorization | undefined> {
    const result = await this.db.query<PendingRow>(
      `SELECT ${COLUMNS} FROM pending_authorizations
        WHERE user_code = $1 AND realm = $2 AND kind = 'device' AND status = 'pending' AND expires_at > now()`,
      [userCode, realm],
    );
    return result.rows[0] && toPending(result.rows[0]);
  }

  /** The unexpired, unanswered request by its public id. */
  async findPending(realm: string, id: string): Promise<PendingAuthorization | undefined> {
    const result = await this.db.query<PendingRow>(
      `SELECT ${COLUMNS} FROM pending_authorizations
        WHERE id = $1::uuid AND realm = $2 AND status = 'pending' AND expires_at > now()`,
      [id, realm],
    );
    return result.rows[0] && toPending(result.rows[0]);
  }

  /** The person's unexpired, unanswered CIBA requests, oldest first. */
  async pendingFor(realm: string, userId: string): Promise<PendingAuthorization[]> {
    const result = await this.db.query<PendingRow>(
      `SELECT ${COLUMNS} FROM pending_authorizations
        WHERE realm = $1 AND user_id = $2::uuid AND kind = 'ciba' AND status = 'pending' AND expires_at > now()
        ORDER BY created_at, id`,
      [realm, userId],
    );
    return result.rows.map(toPending);
  }

  /**
   * Records the person's answer to an unexpired, unanswered request; false when it was
   * answered already, expired, or (CIBA) is meant for another person. A CIBA request in ping
   * mode has its ping queued in the outbox by the same statement (CIBA Core §10.2), for an
   * approval or a denial alike: answered and told together, or neither. One in push mode has
   * its outbox entry, queued due at its expiry, made due now (and its hour of retries counted
   * from now): its sender mints the tokens or tells the denial (src/outbox/ciba-push.ts).
   */
  async answer(realm: string, id: string, decision: 'approved' | 'denied', approval: Approval): Promise<boolean> {
    // An approval records the client among its session's (src/store/sessions.ts noteSessionClient), in the same statement.
    const result = await this.db.query<{ answered: boolean }>(
      `WITH answered AS (
         UPDATE pending_authorizations
            SET status = $3, user_id = $4::uuid, sid = $5::uuid, auth_time = $6, amr = $7::text[], acr = $8
          WHERE id = $1::uuid AND realm = $2 AND status = 'pending' AND expires_at > now()
            AND (kind = 'device' OR user_id = $4::uuid)
          RETURNING id, client_id, notification_endpoint, push
       ), pinged AS (
         INSERT INTO outbox (kind, realm, target, payload)
         SELECT '${CIBA_PING}', $2, a.notification_endpoint, jsonb_build_object('request', a.id)
           FROM answered a WHERE a.notification_endpoint IS NOT NULL AND NOT a.push
       ), pushed AS (
         UPDATE outbox o SET next_at = now(), created_at = now()
           FROM answered a
          WHERE a.push AND o.kind = '${CIBA_PUSH}' AND o.payload ->> 'request' = a.id::text AND o.realm = $2
            AND o.delivered_at IS NULL AND o.abandoned_at IS NULL
       ), noted AS (
         UPDATE sessions s SET clients = array_append(s.clients, a.client_id)
           FROM answered a
          WHERE $3 = 'approved' AND s.realm = $2 AND s.sid = $5::uuid AND NOT (a.client_id = ANY (s.clients))
       )
       SELECT EXISTS (SELECT 1 FROM answered) AS answered`,
      [id, realm, decision, approval.userId, approval.sid, approval.authTime, approval.amr, approval.acr],
    );
    return result.rows[0]!.answered;
  }

  /** What the ping of a CIBA request carries, sealed (migrations/037_ciba_ping.sql); none once the request is gone. */
  async sealedNotification(realm: string, id: string): Promise<Buffer | undefined> {
    const result = await this.db.query<{ notification_sealed: Buffer | null }>(
      'SELECT notification_sealed FROM pending_authorizations WHERE id = $1::uuid AND realm = $2',
      [id, realm],
    );
    return result.rows[0]?.notification_sealed ?? undefined;
  }

  /** A poll by the client the request belongs to; another client's secret is unknown to it. */
  async poll(secretHash: Buffer, realm: string, clientId: string, kind: PendingKind): Promise<PollOutcome> {
    const row = (await this.db.query<PollRow>(POLL, [secretHash, realm, clientId, kind])).rows[0];
    if (!row) return { state: 'unknown' };
    if (row.push) return { state: 'pushed' };
    if (row.expired) return { state: 'expired' };
    switch (row.status) {
      case 'pending':
        return { state: 'pending', tooSoon: row.too_soon };
      case 'denied':
        return { state: 'denied' };
      case 'issued':
        return { state: 'issued' };
      case 'approved':
        return {
          state: 'approved',
          scope: row.scope.split(' ').filter((name) => name !== ''),
          approval: { userId: row.user_id!, sid: row.sid!, authTime: row.auth_time!, amr: row.amr!, acr: row.acr ?? '0' },
        };
    }
  }
}
