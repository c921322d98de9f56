import type { TrustedIssuerKind, TrustedIssuerRecord } from '../records/trusted-issuer.js';
import { type SharedCache, writeThrough } from './cache.js';
import { type Db, isUuid } from './db.js';

export interface TrustedIssuer extends TrustedIssuerRecord {
  readonly id: string;
  readonly realm: string;
  readonly createdAt: Date;
}

interface TrustedIssuerRow {
  id: string;
  realm: string;
  kind: TrustedIssuerKind;
  issuer: string;
  record: Omit<TrustedIssuerRecord, 'kind' | 'issuer'>;
  created_at: Date;
}

const COLUMNS = 'id, realm, kind, issuer, record, created_at';

const toTrustedIssuer = (row: TrustedIssuerRow): TrustedIssuer => ({
  ...row.record,
  kind: row.kind,
  issuer: row.issuer,
  id: row.id,
  realm: row.realm,
  createdAt: row.created_at,
});

const recordOf = ({ kind: _kind, issuer: _issuer, ...rest }: TrustedIssuerRecord) => JSON.stringify(rest);

/**
 * The identity systems whose assertions a realm accepts (RFC 7521 §5.1), one per kind and
 * issuer. Lookups by issuer are cached on every instance (keyed "{realm}/{kind}/{issuer}"); any
 * change drops the realm's entries everywhere.
 */
export class TrustedIssuerStore {
  constructor(
    private readonly db: Db,
    private readonly cache: SharedCache<TrustedIssuer>,
  ) {}

  /** Undefined when the realm trusts this issuer for this kind already. */
  create(realm: string, record: TrustedIssuerRecord): Promise<TrustedIssuer | undefined> {
    return writeThrough(this.db, [[this.cache, `${realm}/`]], async (tx) => {
      const result = await tx.query<TrustedIssuerRow>(
        `INSERT INTO trusted_issuers (realm, kind, issuer, record) VALUES ($1, $2, $3, $4::jsonb)
         ON CONFLICT (realm, kind, issuer) DO NOTHING RETURNING ${COLUMNS}`,
        [realm, record.kind, record.issuer, recordOf(record)],
      );
      return result.rows[0] && toTrustedIssuer(result.rows[0]);
    });
  }

  async list(realm: string): Promise<TrustedIssuer[]> {
    const result = await this.db.query<TrustedIssuerRow>(
      `SELECT ${COLUMNS} FROM trusted_issuers WHERE realm = $1 ORDER BY created_at, id`,
      [realm],
    );
    return result.rows.map(toTrustedIssuer);
  }

  async get(realm: string, id: string): Promise<TrustedIssuer | undefined> {
    if (!isUuid(id)) return undefined;
    const result = await this.db.query<TrustedIssuerRow>(`SELECT ${COLUMNS} FROM trusted_issuers WHERE realm = $1 AND id = $2::uuid`, [
      realm,
      id,
    ]);
    return result.rows[0] && toTrustedIssuer(result.rows[0]);
  }

  /** The issuer an assertion names, when the realm trusts it for that kind. */
  find(realm: string, kind: TrustedIssuerKind, issuer: string): Promise<TrustedIssuer | undefined> {
    return this.cache.get(`${realm}/${kind}/${issuer}`, async () => {
      const result = await this.db.query<TrustedIssuerRow>(
        `SELECT ${COLUMNS} FROM trusted_issuers WHERE realm = $1 AND kind = $2 AND issuer = $3`,
        [realm, kind, issuer],
      );
      return result.rows[0] && toTrustedIssuer(result.rows[0]);
    });
  }

  /** Replaces the record; undefined when there is no such issuer, or when the new issuer name is taken. */
  async update(realm: string, id: string, record: TrustedIssuerRecord): Promise<TrustedIssuer | undefined | 'conflict'> {
    if (!isUuid(id)) return undefined;
    try {
      return await writeThrough(this.db, [[this.cache, `${realm}/`]], async (tx) => {
        const result = await tx.query<TrustedIssuerRow>(
          `UPDATE trusted_issuers SET issuer = $3, record = $4::jsonb WHERE realm = $1 AND id = $2::uuid RETURNING ${COLUMNS}`,
          [realm, id, record.issuer, recordOf(record)],
        );
        return result.rows[0] && toTrustedIssuer(result.rows[0]);
      });
    } catch (error) {
      if ((error as { code?: unknown }).code === '23505') return 'conflict';
      throw error;
    }
  }

  async delete(realm: string, id: string): Promise<boolean> {
    if (!isUuid(id)) return false;
    return writeThrough(this.db, [[this.cache, `${realm}/`]], async (tx) => {
      const result = await tx.query('DELETE FROM trusted_issuers WHERE realm = $1 AND id = $2::uuid', [realm, id]);
      return result.rowCount > 0;
    });
  }
}
