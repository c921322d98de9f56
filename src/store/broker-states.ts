import { type Db, bytes } from './db.js';

/**
 * Upstream code flows in progress (src/identity-providers/upstream-flow.ts), by the SHA-256 of
 * their `state`: what the callback needs, sealed by the caller. A state is taken once: the
 * conditional DELETE lets only one of concurrent callbacks have it.
 */
export class BrokerStateStore {
  constructor(private readonly db: Db) {}

  async put(stateHash: Buffer, state: { realm: string; provider: string; sealed: Buffer; lifetimeSeconds: number }): Promise<void> {
    await this.db.query(
      `INSERT INTO broker_states (state_hash, realm, provider, sealed, expires_at)
       VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))`,
      [stateHash, state.realm, state.provider, state.sealed, state.lifetimeSeconds],
    );
  }

  /** The unexpired state of this realm's provider, which is gone from then on. */
  async take(stateHash: Buffer, realm: string, provider: string): Promise<Buffer | undefined> {
    const result = await this.db.query<{ sealed: Uint8Array }>(
      'DELETE FROM broker_states WHERE state_hash = $1 AND realm = $2 AND provider = $3 AND expires_at > now() RETURNING sealed',
      [stateHash, realm, provider],
    );
    const row = result.rows[0];
    return row && bytes(row.sealed);
  }
}
