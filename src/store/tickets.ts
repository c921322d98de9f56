import { randomUUID } from 'node:crypto';
import { addressKey } from '../address-key.js';
import { randomSecret, sha256 } from '../secrets.js';
import { type Db, isUuid } from './db.js';

/** What a mailed ticket lets its person do (CONTRACT.md §9). */
export type TicketKind = 'email_verification' | 'password_reset' | 'enrolment_code';

/**
 * Tickets of one kind issued per person and per address within the window, whatever became of
 * them. An address is counted as every per-address limit counts it: an IPv6 address by its /64
 * (src/address-key.ts), whose every host may pick any of its 2^64 addresses.
 */
export const TICKET_LIMITS = { perPerson: 5, perAddress: 30, windowSeconds: 15 * 60 } as const;

export type IssuedTicket = { readonly ticket: string; readonly expiresAt: Date } | 'limited';

/**
 * The two limits' locks, each taken in the order of its key, so that two issues sharing both
 * wait for each other rather than deadlock.
 */
const LOCK_LIMITS = `SELECT pg_advisory_xact_lock(key)
  FROM (SELECT DISTINCT hashtextextended(name, 0) AS key FROM unnest($1::text[]) AS name ORDER BY key) AS locks`;

const WITHIN_WINDOW = `kind = $2 AND realm = $3 AND created_at > now() - make_interval(secs => ${TICKET_LIMITS.windowSeconds})`;

const INSERT_WITHIN_LIMITS = `INSERT INTO tickets (ticket_hash, kind, realm, user_id, address, expires_at)
  SELECT $1, $2, $3, $4::uuid, $5, now() + make_interval(secs => $6)
   WHERE (SELECT count(*) FROM tickets WHERE ${WITHIN_WINDOW} AND user_id = $4::uuid) < ${TICKET_LIMITS.perPerson}
     AND (SELECT count(*) FROM tickets WHERE ${WITHIN_WINDOW} AND address = $5) < ${TICKET_LIMITS.perAddress}
  RETURNING expires_at`;

/** What INSERT_WITHIN_LIMITS reads and computes, writing nothing: `rehearse`. */
const COUNT_WITHIN_LIMITS = `SELECT $1::bytea AS ticket_hash, now() + make_interval(secs => $6) AS expires_at
   WHERE (SELECT count(*) FROM tickets WHERE ${WITHIN_WINDOW} AND user_id = $4::uuid) < ${TICKET_LIMITS.perPerson}
     AND (SELECT count(*) FROM tickets WHERE ${WITHIN_WINDOW} AND address = $5) < ${TICKET_LIMITS.perAddress}`;

/** Uses the ticket, and with it the person's other live tickets of its kind: an older mail's link stops working. */
const REDEEM = `WITH used AS (
    UPDATE tickets SET used_at = now()
     WHERE ticket_hash = $1 AND kind = $2 AND realm = $3 AND used_at IS NULL AND expires_at > now()
    RETURNING realm, user_id, kind
  ), others AS (
    UPDATE tickets t SET used_at = now() FROM used
     WHERE t.realm = used.realm AND t.user_id = used.user_id AND t.kind = used.kind AND t.used_at IS NULL AND t.ticket_hash <> $1
  )
  SELECT user_id::text AS user_id FROM used`;

const LIVE = `SELECT user_id::text AS user_id FROM tickets
  WHERE ticket_hash = $1 AND kind = $2 AND realm = $3 AND used_at IS NULL AND expires_at > now()`;

/** How many wrong codes a mailed enrolment code takes before it stops working. */
export const ENROLMENT_CODE_TRIES = 5;

const INSERT_CODE_WITHIN_LIMITS = `INSERT INTO tickets (ticket_hash, kind, realm, user_id, address, expires_at, transaction_hash, code_hash, tries_left)
  SELECT $1, $2, $3, $4::uuid, $5, now() + make_interval(secs => $6), $7, $8, ${ENROLMENT_CODE_TRIES}
   WHERE (SELECT count(*) FROM tickets WHERE ${WITHIN_WINDOW} AND user_id = $4::uuid) < ${TICKET_LIMITS.perPerson}
     AND (SELECT count(*) FROM tickets WHERE ${WITHIN_WINDOW} AND address = $5) < ${TICKET_LIMITS.perAddress}
  RETURNING expires_at`;

/** The codes of the sign-in mailed before: a new mail replaces them. */
const REPLACE_CODES = `UPDATE tickets SET tries_left = 0
  WHERE transaction_hash = $1 AND realm = $2 AND user_id = $3::uuid AND kind = 'enrolment_code' AND used_at IS NULL AND ticket_hash <> $4`;

/** A typed code against the sign-in's live code: used when it matches, one try fewer when not. */
const CHECK_CODE = `UPDATE tickets
     SET used_at = CASE WHEN code_hash = $4 THEN now() END,
         tries_left = tries_left - CASE WHEN code_hash = $4 THEN 0 ELSE 1 END
   WHERE transaction_hash = $1 AND realm = $2 AND user_id = $3::uuid AND kind = 'enrolment_code'
     AND used_at IS NULL AND tries_left > 0 AND expires_at > now()
  RETURNING used_at IS NOT NULL AS matched`;

const CODE_STATE = `SELECT bool_or(used_at IS NOT NULL) AS passed, bool_or(used_at IS NULL AND tries_left > 0 AND expires_at > now()) AS live, count(*) > 0 AS mailed
  FROM tickets WHERE transaction_hash = $1 AND realm = $2 AND user_id = $3::uuid AND kind = 'enrolment_code'`;

/** Where a sign-in stands with its mailed enrolment code: passed, a live code mailed, codes mailed that no longer work, none mailed. */
export type EnrolmentCodeState = 'passed' | 'sent' | 'spent' | 'none';

/** A ticket value is 43 base64url characters; anything much longer names no ticket and is not hashed. */
const MAX_TICKET_LENGTH = 128;

/**
 * Single-use tickets that mails carry in their links, stored as SHA-256 only. Issuing counts the
 * tickets of the last 15 minutes before it writes; using one is decided by one conditional
 * UPDATE. Both are decided by the database, so that concurrent requests on any number of
 * instances cannot pass a limit or use a ticket twice.
 */
export class TicketStore {
  constructor(private readonly db: Db) {}

  /**
   * A new ticket for the person, asked for from `address`, living `lifetime` seconds; 'limited'
   * when the person or the address had their share of this kind in the window. Under READ
   * COMMITTED a statement does not see the rows that concurrent ones are inserting, so the
   * limits' advisory locks are held from before the count until the commit: each count then
   * sees every ticket issued before it.
   */
  async issue(kind: TicketKind, realm: string, userId: string, requester: string, lifetime: number): Promise<IssuedTicket> {
    const ticket = randomSecret();
    const address = addressKey(requester);
    const lockNames = [`ticket:${kind}:${realm}:person:${userId}`, `ticket:${kind}:${realm}:address:${address}`];
    const expiresAt = await this.db.transaction(async (tx) => {
      await tx.query(LOCK_LIMITS, [lockNames]);
      const result = await tx.query<{ expires_at: Date }>(INSERT_WITHIN_LIMITS, [sha256(ticket), kind, realm, userId, address, lifetime]);
      return result.rows[0]?.expires_at;
    });
    return expiresAt ? { ticket, expiresAt } : 'limited';
  }

  /**
   * The work of `issue` for no one: a value and its hash, the same locks and counts, nothing
   * written. A page that must not tell whether a person exists (a password reset) does this
   * for a name that names no one, so that its work does not tell either.
   */
  async rehearse(kind: TicketKind, realm: string, requester: string, lifetime: number): Promise<void> {
    const nobody = randomUUID();
    const address = addressKey(requester);
    const lockNames = [`ticket:${kind}:${realm}:person:${nobody}`, `ticket:${kind}:${realm}:address:${address}`];
    await this.db.transaction(async (tx) => {
      await tx.query(LOCK_LIMITS, [lockNames]);
      await tx.query(COUNT_WITHIN_LIMITS, [sha256(randomSecret()), kind, realm, nobody, address, lifetime]);
    });
  }

  /** Uses the ticket once: the person's id, or undefined when it is unknown, used, expired, or of another kind or realm. */
  async redeem(kind: TicketKind, realm: string, value: string): Promise<string | undefined> {
    if (value.length > MAX_TICKET_LENGTH) return undefined;
    const result = await this.db.query<{ user_id: string }>(REDEEM, [sha256(value), kind, realm]);
    return result.rows[0]?.user_id;
  }

  /**
   * Ends the person's unused tickets of a kind: the links already mailed no longer work (the
   * verification links of an address the person replaced). Answers how many were withdrawn.
   */
  async withdraw(kind: TicketKind, realm: string, userId: string): Promise<number> {
    const result = await this.db.query('UPDATE tickets SET used_at = now() WHERE kind = $1 AND realm = $2 AND user_id = $3::uuid AND used_at IS NULL', [kind, realm, userId]);
    return result.rowCount;
  }

  /** Whose the ticket is while it would still work, without using it (a page that shows a form before the ticket is spent). */
  async live(kind: TicketKind, realm: string, value: string): Promise<string | undefined> {
    if (value.length > MAX_TICKET_LENGTH) return undefined;
    const result = await this.db.query<{ user_id: string }>(LIVE, [sha256(value), kind, realm]);
    return result.rows[0]?.user_id;
  }

  /**
   * A code for the person's sign-in `transactionHash`, mailed before they enrol a first second
   * factor (CONTRACT.md §8): counted with the tickets of its kind per person and per address
   * (`limited` past them), living `lifetime` seconds; it replaces the codes mailed for the same
   * sign-in before. `codeHash` is the code as the caller binds it to the sign-in.
   */
  async issueEnrolmentCode(realm: string, userId: string, requester: string, lifetime: number, codes: { transactionHash: Buffer; codeHash: Buffer }): Promise<'issued' | 'limited'> {
    const kind: TicketKind = 'enrolment_code';
    const ticketHash = sha256(randomSecret());
    const address = addressKey(requester);
    const lockNames = [`ticket:${kind}:${realm}:person:${userId}`, `ticket:${kind}:${realm}:address:${address}`];
    return this.db.transaction(async (tx) => {
      await tx.query(LOCK_LIMITS, [lockNames]);
      const inserted = await tx.query(INSERT_CODE_WITHIN_LIMITS, [ticketHash, kind, realm, userId, address, lifetime, codes.transactionHash, codes.codeHash]);
      if (inserted.rowCount === 0) return 'limited';
      await tx.query(REPLACE_CODES, [codes.transactionHash, realm, userId, ticketHash]);
      return 'issued';
    });
  }

  /**
   * Checks a typed code against the sign-in's live code, in one statement: `passed` uses it,
   * `wrong` takes one of its tries; `none` when there is no code that still works (expired,
   * out of tries, replaced, or never sent), and nothing changes.
   */
  async checkEnrolmentCode(realm: string, userId: string, transactionHash: Buffer, codeHash: Buffer): Promise<'passed' | 'wrong' | 'none'> {
    if (!isUuid(userId)) return 'none';
    const result = await this.db.query<{ matched: boolean }>(CHECK_CODE, [transactionHash, realm, userId, codeHash]);
    const row = result.rows[0];
    return row === undefined ? 'none' : row.matched ? 'passed' : 'wrong';
  }

  async enrolmentCodeState(realm: string, userId: string, transactionHash: Buffer): Promise<EnrolmentCodeState> {
    if (!isUuid(userId)) return 'none';
    const result = await this.db.query<{ passed: boolean | null; live: boolean | null; mailed: boolean }>(CODE_STATE, [transactionHash, realm, userId]);
    const row = result.rows[0];
    return row?.passed ? 'passed' : row?.live ? 'sent' : row?.mailed ? 'spent' : 'none';
  }
}
