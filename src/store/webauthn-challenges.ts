import type { Db } from './db.js';

/** A challenge of one WebAuthn ceremony, as it was issued. */
export interface IssuedChallenge {
  readonly challenge: string;
  /** The person the ceremony is for; undefined for a sign-in that does not know them yet. */
  readonly userId: string | undefined;
}

/**
 * WebAuthn challenges (WebAuthn L3 §13.4.3), each for one ceremony, by the SHA-256 of a key
 * that binds it to where it was issued (src/authn/passkeys.ts). A challenge is taken once:
 * the conditional DELETE lets only one of concurrent uses have it.
 */
export class WebauthnChallengeStore {
  constructor(private readonly db: Db) {}

  async issue(idHash: Buffer, challenge: { realm: string; userId: string | undefined; challenge: string; lifetimeSeconds: number }): Promise<void> {
    await this.db.query(
      `INSERT INTO webauthn_challenges (id_hash, realm, user_id, challenge, expires_at)
       VALUES ($1, $2, $3::uuid, $4, now() + make_interval(secs => $5))`,
      [idHash, challenge.realm, challenge.userId ?? null, challenge.challenge, challenge.lifetimeSeconds],
    );
  }

  /** The unexpired challenge of this realm with this key, which is gone from then on. */
  async take(idHash: Buffer, realm: string): Promise<IssuedChallenge | undefined> {
    const result = await this.db.query<{ challenge: string; user_id: string | null }>(
      'DELETE FROM webauthn_challenges WHERE id_hash = $1 AND realm = $2 AND expires_at > now() RETURNING challenge, user_id',
      [idHash, realm],
    );
    const row = result.rows[0];
    return row && { challenge: row.challenge, userId: row.user_id ?? undefined };
  }
}
