import type { ClientMetadata, ClientRecord } from '../records/client.js';
import { type SharedCache, writeThrough } from './cache.js';
import { type Db, type Queryable, bytes } from './db.js';
import { withSharedValues } from './shared-values.js';

export interface Client extends ClientRecord {
  readonly realm: string;
  /**
   * SHA-256 of the client secret, base64; confidential clients authenticating with a secret have
   * one. A string, not a Buffer: clients are cached by the hundred thousand, and a Buffer of 32
   * bytes takes some 240 bytes of heap and more of native memory, the string 72 bytes.
   */
  readonly secretHash: string | undefined;
  /** RFC 7591 `client_id_issued_at`: when the client was created, in seconds since the epoch. */
  readonly issuedAt: number;
  /**
   * The row's internal id (migrations/008_token_client_check_on_read.sql), a bigint as a
   * string: the tokens issued to the client carry it.
   */
  readonly internalId: string;
}

export interface ClientRow {
  realm: string;
  client_id: string;
  client_secret_hash: Uint8Array | null;
  record: ClientMetadata;
  created_at: Date;
  internal_id: string;
}

/** What `toClient` reads of a clients row. */
export const CLIENT_COLUMNS = 'realm, client_id, client_secret_hash, record, created_at, internal_id::text AS internal_id';

/**
 * Built on the parsed record itself, its common values shared (src/store/shared-values.ts): a
 * spread copy of it takes twice the memory (V8 holds it as a dictionary). Clients are cached by
 * the hundred thousand.
 */
export const toClient = (row: ClientRow): Client =>
  Object.freeze(
    Object.assign(withSharedValues(row.record), {
      client_id: row.client_id,
      realm: row.realm,
      secretHash: row.client_secret_hash ? bytes(row.client_secret_hash).toString('base64') : undefined,
      issuedAt: Math.floor(row.created_at.getTime() / 1000),
      internalId: row.internal_id,
    }),
  );

/**
 * Deletes the tokens of one registered client of the realm, or of all its clients (metadata
 * document clients' anchors included): tokens have no foreign key to clients
 * (migrations/008_token_client_check_on_read.sql).
 */
export async function deleteTokensOfClients(tx: Queryable, realm: string, clientId?: string): Promise<void> {
  await tx.query(
    `DELETE FROM tokens
      WHERE client_internal_id IN (SELECT internal_id FROM clients
                                    WHERE realm = $1 AND ($2::text IS NULL OR (client_id = $2 AND NOT metadata_document)))`,
    [realm, clientId ?? null],
  );
}

/** What a change does to the secret: keep it, replace it (with this hash), or remove it. */
export type SecretChange = { keep: true } | { hash: Buffer | null };

export class ClientStore {
  constructor(
    private readonly db: Db,
    private readonly cache: SharedCache<Client>,
  ) {}

  /** The cache key of a client: what a write of the clients table elsewhere must invalidate. */
  static key(realm: string, clientId: string): string {
    return `${realm}/${clientId}`;
  }

  get(realm: string, clientId: string): Promise<Client | undefined> {
    return this.cache.get(ClientStore.key(realm, clientId), async () => {
      const result = await this.db.query<ClientRow>(`SELECT ${CLIENT_COLUMNS} FROM clients WHERE realm = $1 AND client_id = $2 AND NOT metadata_document`, [
        realm,
        clientId,
      ]);
      return result.rows[0] && toClient(result.rows[0]);
    });
  }

  async list(realm: string): Promise<Client[]> {
    const result = await this.db.query<ClientRow>(`SELECT ${CLIENT_COLUMNS} FROM clients WHERE realm = $1 AND NOT metadata_document ORDER BY client_id`, [realm]);
    return result.rows.map(toClient);
  }

  /** Undefined when the client id is taken in this realm. */
  create(realm: string, clientId: string, metadata: ClientMetadata, secretHash: Buffer | undefined): Promise<Client | undefined> {
    return writeThrough(this.db, [[this.cache, ClientStore.key(realm, clientId)]], async (tx) => {
      const result = await tx.query<ClientRow>(
        `INSERT INTO clients (realm, client_id, client_secret_hash, record) VALUES ($1, $2, $3, $4::jsonb)
         ON CONFLICT (realm, client_id) DO NOTHING RETURNING ${CLIENT_COLUMNS}`,
        [realm, clientId, secretHash ?? null, JSON.stringify(metadata)],
      );
      return result.rows[0] && toClient(result.rows[0]);
    });
  }

  /**
   * Applies `change` to the client's current record under a row lock, so that concurrent
   * changes apply one after the other. `change` may throw to change nothing.
   */
  update(
    realm: string,
    clientId: string,
    change: (current: Client) => { metadata: ClientMetadata; secret: SecretChange },
  ): Promise<Client | undefined> {
    return writeThrough(this.db, [[this.cache, ClientStore.key(realm, clientId)]], async (tx) => {
      const locked = await tx.query<ClientRow>(
        `SELECT ${CLIENT_COLUMNS} FROM clients WHERE realm = $1 AND client_id = $2 AND NOT metadata_document FOR UPDATE`,
        [realm, clientId],
      );
      if (!locked.rows[0]) return undefined;
      const { metadata, secret } = change(toClient(locked.rows[0]));
      const keep = 'keep' in secret;
      const result = await tx.query<ClientRow>(
        `UPDATE clients SET record = $3::jsonb, updated_at = now(),
                client_secret_hash = CASE WHEN $4::boolean THEN client_secret_hash ELSE $5::bytea END
          WHERE realm = $1 AND client_id = $2 RETURNING ${CLIENT_COLUMNS}`,
        [realm, clientId, JSON.stringify(metadata), keep, keep ? null : secret.hash],
      );
      return result.rows[0] && toClient(result.rows[0]);
    });
  }

  /** Replaces a confidential client's secret; undefined when there is no such client. */
  rotateSecret(realm: string, clientId: string, secretHash: Buffer): Promise<Client | undefined> {
    return writeThrough(this.db, [[this.cache, ClientStore.key(realm, clientId)]], async (tx) => {
      const result = await tx.query<ClientRow>(
        `UPDATE clients SET client_secret_hash = $3, updated_at = now()
          WHERE realm = $1 AND client_id = $2 AND record->>'client_type' = 'confidential' AND NOT metadata_document RETURNING ${CLIENT_COLUMNS}`,
        [realm, clientId, secretHash],
      );
      return result.rows[0] && toClient(result.rows[0]);
    });
  }

  /** Deletes the client; its tokens go with it. */
  delete(realm: string, clientId: string): Promise<boolean> {
    return writeThrough(this.db, [[this.cache, ClientStore.key(realm, clientId)]], async (tx) => {
      await deleteTokensOfClients(tx, realm, clientId);
      const result = await tx.query('DELETE FROM clients WHERE realm = $1 AND client_id = $2 AND NOT metadata_document', [realm, clientId]);
      return result.rowCount > 0;
    });
  }

  /** Client ids of the realm whose scope lists `scope`. */
  async usingScope(realm: string, scope: string): Promise<string[]> {
    const result = await this.db.query<{ client_id: string }>(
      `SELECT client_id FROM clients
        WHERE realm = $1 AND $2 = ANY (string_to_array(record->>'scope', ' ')) ORDER BY client_id`,
      [realm, scope],
    );
    return result.rows.map((row) => row.client_id);
  }
}
