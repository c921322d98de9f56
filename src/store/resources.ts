import type { Db, Queryable } from './db.js';

/** A registered resource of a realm (CONTRACT.md §10, RFC 8707): an API its clients may ask tokens for. */
export interface Resource {
  /** An absolute URI without a fragment: the `resource` value, and the token's `aud`. */
  readonly identifier: string;
  /** What the consent page calls it; none: its identifier. */
  readonly name: string | undefined;
  /** The scopes that mean something at it: a token for it carries only these of the scopes asked. None: any. */
  readonly scopes: readonly string[] | undefined;
}

/** A resource's change: a field left out (undefined) is kept (none for a new resource), null clears it. */
export interface ResourceChange {
  readonly identifier: string;
  readonly name?: string | null | undefined;
  readonly scopes?: readonly string[] | null | undefined;
}

/** What a change found: the resource as it now is, or the scopes it named that the realm lacks (then nothing changed). */
export type ResourcePut = { resource: Resource; created: boolean; missingScopes?: undefined } | { missingScopes: string[] };

interface ResourceRow {
  identifier: string;
  name: string | null;
  scopes: string[] | null;
}

const toResource = (row: ResourceRow): Resource => ({ identifier: row.identifier, name: row.name ?? undefined, scopes: row.scopes ?? undefined });

const COLUMNS = 'identifier, name, scopes';

/** The registered resources of each realm, by identifier. */
export class ResourceStore {
  constructor(private readonly db: Db) {}

  /** In identifier order (byte order, the same on every database). */
  async list(realm: string): Promise<Resource[]> {
    const result = await this.db.query<ResourceRow>(`SELECT ${COLUMNS} FROM resources WHERE realm = $1 ORDER BY identifier COLLATE "C"`, [realm]);
    return result.rows.map(toResource);
  }

  async get(realm: string, identifier: string): Promise<Resource | undefined> {
    return (await this.find(realm, [identifier]))[0];
  }

  /** Those of `identifiers` that are registered in the realm. */
  async find(realm: string, identifiers: readonly string[]): Promise<Resource[]> {
    if (identifiers.length === 0) return [];
    const result = await this.db.query<ResourceRow>(`SELECT ${COLUMNS} FROM resources WHERE realm = $1 AND identifier = ANY ($2::text[])`, [realm, identifiers]);
    return result.rows.map(toResource);
  }

  /**
   * Registers the resource or changes it, in one transaction. Every scope it names must exist in
   * the realm: they are locked (FOR KEY SHARE) first, so that none is deleted meanwhile; when one
   * is missing, nothing changes.
   */
  put(realm: string, change: ResourceChange): Promise<ResourcePut> {
    return this.db.transaction(async (tx) => {
      const missingScopes = await missing(tx, realm, change.scopes ?? []);
      if (missingScopes.length > 0) return { missingScopes };
      const result = await tx.query<ResourceRow & { created: boolean }>(
        `INSERT INTO resources (realm, identifier, name, scopes) VALUES ($1, $2, $3::text, $4::text[])
         ON CONFLICT (realm, identifier) DO UPDATE SET
           name = CASE WHEN $5::boolean THEN excluded.name ELSE resources.name END,
           scopes = CASE WHEN $6::boolean THEN excluded.scopes ELSE resources.scopes END,
           updated_at = now()
         RETURNING ${COLUMNS}, (xmax = 0) AS created`,
        [realm, change.identifier, change.name ?? null, change.scopes ?? null, change.name !== undefined, change.scopes !== undefined],
      );
      const row = result.rows[0]!;
      return { resource: toResource(row), created: row.created };
    });
  }

  async delete(realm: string, identifier: string): Promise<boolean> {
    const result = await this.db.query('DELETE FROM resources WHERE realm = $1 AND identifier = $2', [realm, identifier]);
    return result.rowCount > 0;
  }

  /** The identifiers of the resources that list `scope`. */
  async listingScope(realm: string, scope: string): Promise<string[]> {
    const result = await this.db.query<{ identifier: string }>(
      'SELECT identifier FROM resources WHERE realm = $1 AND $2 = ANY (scopes) ORDER BY identifier COLLATE "C"',
      [realm, scope],
    );
    return result.rows.map((row) => row.identifier);
  }
}

async function missing(tx: Queryable, realm: string, scopes: readonly string[]): Promise<string[]> {
  if (scopes.length === 0) return [];
  const found = await tx.query<{ name: string }>('SELECT name FROM scopes WHERE realm = $1 AND name = ANY ($2::text[]) FOR KEY SHARE', [realm, scopes]);
  const existing = new Set(found.rows.map((row) => row.name));
  return scopes.filter((scope) => !existing.has(scope));
}
