import { type Db, bytes, isUuid } from './db.js';

/** A person's TOTP secret as stored: sealed with MASTER_KEY (src/authn/otp.ts opens it). */
export interface StoredTotp {
  readonly secretEncrypted: Buffer;
  /** Undefined while the enrolment waits for its first code. */
  readonly confirmedAt: Date | undefined;
  readonly createdAt: Date;
}

interface TotpRow {
  secret_encrypted: Uint8Array;
  confirmed_at: Date | null;
  created_at: Date;
}

const toTotp = (row: TotpRow): StoredTotp => ({
  secretEncrypted: bytes(row.secret_encrypted),
  confirmedAt: row.confirmed_at ?? undefined,
  createdAt: row.created_at,
});

/**
 * One-time codes of people: their TOTP secret (`user_totp`) and their single-use recovery
 * codes (`recovery_codes`, by SHA-256). Every use is one conditional statement, so that of
 * concurrent uses of one code exactly one passes, on any instance.
 */
export class OneTimeCodeStore {
  constructor(private readonly db: Db) {}

  async totp(realm: string, userId: string): Promise<StoredTotp | undefined> {
    if (!isUuid(userId)) return undefined;
    const result = await this.db.query<TotpRow>(
      'SELECT secret_encrypted, confirmed_at, created_at FROM user_totp WHERE realm = $1 AND user_id = $2::uuid',
      [realm, userId],
    );
    return result.rows[0] && toTotp(result.rows[0]);
  }

  /** Replaces any secret of the person: confirmed at once (an admin's enrolment), or waiting for a first code. */
  async replaceTotp(realm: string, userId: string, secretEncrypted: Buffer, confirmed: boolean): Promise<void> {
    await this.db.query(
      `INSERT INTO user_totp (realm, user_id, secret_encrypted, confirmed_at) VALUES ($1, $2::uuid, $3, CASE WHEN $4::boolean THEN now() END)
       ON CONFLICT (realm, user_id) DO UPDATE
         SET secret_encrypted = EXCLUDED.secret_encrypted, confirmed_at = EXCLUDED.confirmed_at, last_step = NULL, created_at = now()`,
      [realm, userId, secretEncrypted, confirmed],
    );
  }

  /**
   * The enrolment a person is in the middle of: `secretEncrypted` becomes the pending
   * secret unless one younger than `reuseSeconds` is there (the same page shown again), and
   * never over a confirmed one. Answers what is stored afterwards.
   */
  async pendingTotp(realm: string, userId: string, secretEncrypted: Buffer, reuseSeconds: number): Promise<StoredTotp> {
    await this.db.query(
      `INSERT INTO user_totp (realm, user_id, secret_encrypted) VALUES ($1, $2::uuid, $3)
       ON CONFLICT (realm, user_id) DO UPDATE
         SET secret_encrypted = EXCLUDED.secret_encrypted, last_step = NULL, created_at = now()
         WHERE user_totp.confirmed_at IS NULL AND user_totp.created_at <= now() - make_interval(secs => $4)`,
      [realm, userId, secretEncrypted, reuseSeconds],
    );
    const stored = await this.totp(realm, userId);
    if (!stored) throw new Error('the pending one-time code secret was not stored');
    return stored;
  }

  /**
   * Accepts the code of time step `step` checked against `secretEncrypted`: only while that
   * secret is still the person's (not replaced meanwhile), only when no code of this step or
   * a later one was accepted (RFC 6238 §5.2: a code is accepted once), and, unless
   * `confirming`, only for a confirmed secret. A pending secret becomes confirmed.
   */
  async acceptStep(realm: string, userId: string, secretEncrypted: Buffer, step: number, confirming: boolean): Promise<boolean> {
    const result = await this.db.query(
      `UPDATE user_totp SET last_step = $4::bigint, confirmed_at = coalesce(confirmed_at, now())
        WHERE realm = $1 AND user_id = $2::uuid AND secret_encrypted = $3
          AND (last_step IS NULL OR last_step < $4::bigint)
          AND (confirmed_at IS NOT NULL OR $5::boolean)`,
      [realm, userId, secretEncrypted, step, confirming],
    );
    return result.rowCount === 1;
  }

  async removeTotp(realm: string, userId: string): Promise<boolean> {
    const result = await this.db.query('DELETE FROM user_totp WHERE realm = $1 AND user_id = $2::uuid', [realm, userId]);
    return result.rowCount > 0;
  }

  /** The person's recovery codes become these (by SHA-256); the previous ones stop working. */
  async replaceRecoveryCodes(realm: string, userId: string, hashes: readonly Buffer[]): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query('DELETE FROM recovery_codes WHERE realm = $1 AND user_id = $2::uuid', [realm, userId]);
      await tx.query(
        `INSERT INTO recovery_codes (realm, user_id, code_hash)
         SELECT $1, $2::uuid, decode(hash, 'hex') FROM unnest($3::text[]) AS hash ON CONFLICT DO NOTHING`,
        [realm, userId, hashes.map((hash) => hash.toString('hex'))],
      );
    });
  }

  /** Spends an unused recovery code: true for the one use that finds it unused. */
  async useRecoveryCode(realm: string, userId: string, hash: Buffer): Promise<boolean> {
    if (!isUuid(userId)) return false;
    const result = await this.db.query(
      'UPDATE recovery_codes SET used_at = now() WHERE realm = $1 AND user_id = $2::uuid AND code_hash = $3 AND used_at IS NULL',
      [realm, userId, hash],
    );
    return result.rowCount === 1;
  }

  /** The person's recovery codes: how many are unused, and whether they have any at all (used ones stay until replaced). */
  async recoveryCodesHeld(realm: string, userId: string): Promise<{ left: number; any: boolean }> {
    const result = await this.db.query<{ left: number; total: number }>(
      'SELECT count(*) FILTER (WHERE used_at IS NULL)::int AS left, count(*)::int AS total FROM recovery_codes WHERE realm = $1 AND user_id = $2::uuid',
      [realm, userId],
    );
    const row = result.rows[0];
    return { left: row?.left ?? 0, any: (row?.total ?? 0) > 0 };
  }

  async recoveryCodesLeft(realm: string, userId: string): Promise<number> {
    const result = await this.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM recovery_codes WHERE realm = $1 AND user_id = $2::uuid AND used_at IS NULL',
      [realm, userId],
    );
    return result.rows[0]?.n ?? 0;
  }
}
