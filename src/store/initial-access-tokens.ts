import type { ClientMetadata } from '../records/client.js';
import type { RegistrationAllowance } from '../records/client.js';
import { type SharedCache, writeThrough } from './cache.js';
import { CLIENT_COLUMNS, type Client, type ClientRow, ClientStore, toClient } from './clients.js';
import { type Db, bytes } from './db.js';

/** A client registering itself (RFC 7591 §3.1), its credentials already hashed. */
export interface SelfRegistration {
  realm: string;
  clientId: string;
  metadata: ClientMetadata;
  secretHash: Buffer | undefined;
  registrationTokenHash: Buffer;
  /** What the initial access token allowed beyond the realm's policy, kept for the client's updates. */
  allowance: RegistrationAllowance | undefined;
}

/** What a self-registered client's configuration endpoint (RFC 7592) needs of its row. */
export interface RegistrationRow {
  /** SHA-256 of the registration access token (RFC 7592 §1). */
  tokenHash: Buffer;
  allowance: RegistrationAllowance | undefined;
}

/**
 * Initial access tokens (RFC 7591 §3), stored as SHA-256, and the writes of
 * self-registration that consume them: the token is spent in the transaction that inserts
 * the client, so that a registration that fails spends nothing, and two that race for one
 * token cannot both succeed.
 *
 * A token registers one client: it is a grant an admin hands to one party, and a token that
 * registered many until it expires would let whoever saw it fill the realm with clients.
 */
export class InitialAccessTokenStore {
  constructor(
    private readonly db: Db,
    private readonly clientCache: SharedCache<Client>,
  ) {}

  async issue(realm: string, tokenHash: Buffer, lifetimeSeconds: number, allowance: RegistrationAllowance | undefined): Promise<void> {
    await this.db.query(
      `INSERT INTO initial_access_tokens (token_hash, realm, expires_at, allowance)
       VALUES ($1, $2, now() + make_interval(secs => $3), $4::jsonb)`,
      [tokenHash, realm, lifetimeSeconds, allowance === undefined ? null : JSON.stringify(allowance)],
    );
  }

  /**
   * When the token is of this realm, unused and unexpired (checked before the request's
   * metadata), what it allows: `{}` when nothing beyond the realm's policy. Undefined otherwise.
   */
  async usable(realm: string, tokenHash: Buffer): Promise<{ allowance?: RegistrationAllowance } | undefined> {
    const result = await this.db.query<{ allowance: RegistrationAllowance | null }>(
      `SELECT allowance FROM initial_access_tokens WHERE token_hash = $1 AND realm = $2 AND used_at IS NULL AND expires_at > now()`,
      [tokenHash, realm],
    );
    const row = result.rows[0];
    if (!row) return undefined;
    return row.allowance ? { allowance: row.allowance } : {};
  }

  /**
   * Inserts the client, after spending the initial access token when one is given (none
   * under the realm's `open_registration`). Undefined when the token was spent, expired or
   * not of this realm: the conditional UPDATE lets one of concurrent uses win; the others
   * wait for its row lock, see `used_at` set and change nothing.
   */
  register(client: SelfRegistration, initialAccessTokenHash: Buffer | undefined): Promise<Client | undefined> {
    return writeThrough(this.db, [[this.clientCache, ClientStore.key(client.realm, client.clientId)]], async (tx) => {
      if (initialAccessTokenHash) {
        const spent = await tx.query(
          `UPDATE initial_access_tokens SET used_at = now()
            WHERE token_hash = $1 AND realm = $2 AND used_at IS NULL AND expires_at > now() RETURNING realm`,
          [initialAccessTokenHash, client.realm],
        );
        if (spent.rows.length !== 1) return undefined;
      }
      const inserted = await tx.query<ClientRow>(
        `INSERT INTO clients (realm, client_id, client_secret_hash, record, registration_token_hash, registration_allowance)
         VALUES ($1, $2, $3, $4::jsonb, $5, $6::jsonb) RETURNING ${CLIENT_COLUMNS}`,
        [
          client.realm,
          client.clientId,
          client.secretHash ?? null,
          JSON.stringify(client.metadata),
          client.registrationTokenHash,
          client.allowance === undefined ? null : JSON.stringify(client.allowance),
        ],
      );
      return toClient(inserted.rows[0]!);
    });
  }

  /**
   * The registration access token's SHA-256 and the registration's allowance of a
   * self-registered client; undefined when there is no such client or an admin created it.
   */
  async registration(realm: string, clientId: string): Promise<RegistrationRow | undefined> {
    const result = await this.db.query<{ registration_token_hash: Uint8Array | null; registration_allowance: RegistrationAllowance | null }>(
      'SELECT registration_token_hash, registration_allowance FROM clients WHERE realm = $1 AND client_id = $2',
      [realm, clientId],
    );
    const row = result.rows[0];
    if (!row?.registration_token_hash) return undefined;
    return { tokenHash: bytes(row.registration_token_hash), allowance: row.registration_allowance ?? undefined };
  }
}
