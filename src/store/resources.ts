import type { LocalisedTexts } from '../records/locales.js';
import { type SharedCache, writeThrough } from './cache.js';
import type { Db, Queryable } from './db.js';

/** A registered resource of a realm (CONTRACT.md §10, RFC 8707): an API its clients may ask tokens for. */
export interface Resource {
  /** An absolute URI without a fragment: the `resource` value, and the token's `aud`. */
  readonly identifier: string;
  /** What the consent page calls it; none: its identifier. */
  readonly name: string | undefined;
  /** What the consent page calls it in some of the languages (CONTRACT.md §16), before `name`. */
  readonly descriptions: LocalisedTexts | undefined;
  /** The scopes that mean something at it: a token for it carries only these of the scopes asked. None: any. */
  readonly scopes: readonly string[] | undefined;
}

/** A resource's change: a field left out (undefined) is kept (none for a new resource), null clears it. */
export interface ResourceChange {
  readonly identifier: string;
  readonly name?: string | null | undefined;
  readonly descriptions?: LocalisedTexts | null | undefined;
  readonly scopes?: readonly string[] | null | undefined;
}

/** What a change found: the resource as it now is, or the scopes it named that the realm lacks (then nothing changed). */
export type ResourcePut = { resource: Resource; created: boolean; missingScopes?: undefined } | { missingScopes: string[] };

interface ResourceRow {
  identifier: string;
  name: string | null;
  descriptions: LocalisedTexts | null;
  scopes: string[] | null;
}

const toResource = (row: ResourceRow): Resource => ({
  identifier: row.identifier,
  name: row.name ?? undefined,
  descriptions: row.descriptions ?? undefined,
  scopes: row.scopes ?? undefined,
});

const COLUMNS = 'identifier, name, descriptions, scopes';

/**
 * A realm's resources, cached per instance as "{realm}/all" (by identifier, in identifier
 * order): /authorize, PAR, the consent page and the token endpoint read them for every request
 * that names a `resource`, and an admin changes them rarely. A change invalidates them on every
 * instance as it commits; so does the realm's creation or deletion (src/store/realms.ts).
 */
export type ResourceCache = SharedCache<ReadonlyMap<string, Resource>>;

/** The registered resources of each realm, by identifier. */
export class ResourceStore {
  constructor(
    private readonly db: Db,
    private readonly cache: ResourceCache,
  ) {}

  private async all(realm: string): Promise<ReadonlyMap<string, Resource>> {
    const resources = await this.cache.get(`${realm}/all`, async () => {
      const result = await this.db.query<ResourceRow>(`SELECT ${COLUMNS} FROM resources WHERE realm = $1 ORDER BY identifier COLLATE "C"`, [realm]);
      return new Map(result.rows.map((row) => [row.identifier, toResource(row)]));
    });
    return resources ?? new Map();
  }

  /** In identifier order (byte order, the same on every database). */
  async list(realm: string): Promise<Resource[]> {
    return [...(await this.all(realm)).values()];
  }

  async get(realm: string, identifier: string): Promise<Resource | undefined> {
    return (await this.all(realm)).get(identifier);
  }

  /** Those of `identifiers` that are registered in the realm. */
  async find(realm: string, identifiers: readonly string[]): Promise<Resource[]> {
    if (identifiers.length === 0) return [];
    const resources = await this.all(realm);
    return [...new Set(identifiers)].flatMap((identifier) => resources.get(identifier) ?? []);
  }

  /**
   * Registers the resource or changes it, in one transaction. Every scope it names must exist in
   * the realm: they are locked (FOR KEY SHARE) first, so that none is deleted meanwhile; when one
   * is missing, nothing changes.
   */
  put(realm: string, change: ResourceChange): Promise<ResourcePut> {
    return writeThrough(this.db, [[this.cache, `${realm}/`]], async (tx) => {
      const missingScopes = await missing(tx, realm, change.scopes ?? []);
      if (missingScopes.length > 0) return { missingScopes };
      const result = await tx.query<ResourceRow & { created: boolean }>(
        `INSERT INTO resources (realm, identifier, name, scopes, descriptions) VALUES ($1, $2, $3::text, $4::text[], $7::jsonb)
         ON CONFLICT (realm, identifier) DO UPDATE SET
           name = CASE WHEN $5::boolean THEN excluded.name ELSE resources.name END,
           scopes = CASE WHEN $6::boolean THEN excluded.scopes ELSE resources.scopes END,
           descriptions = CASE WHEN $8::boolean THEN excluded.descriptions ELSE resources.descriptions END,
           updated_at = now()
         RETURNING ${COLUMNS}, (xmax = 0) AS created`,
        [
          realm,
          change.identifier,
          change.name ?? null,
          change.scopes ?? null,
          change.name !== undefined,
          change.scopes !== undefined,
          change.descriptions == null ? null : JSON.stringify(change.descriptions),
          change.descriptions !== undefined,
        ],
      );
      const row = result.rows[0]!;
      return { resource: toResource(row), created: row.created };
    });
  }

  delete(realm: string, identifier: string): Promise<boolean> {
    return writeThrough(this.db, [[this.cache, `${realm}/`]], async (tx) => {
      const result = await tx.query('DELETE FROM resources WHERE realm = $1 AND identifier = $2', [realm, identifier]);
      return result.rowCount > 0;
    });
  }

  /** The identifiers of the resources that list `scope`. */
  async listingScope(realm: string, scope: string): Promise<string[]> {
    return [...(await this.all(realm)).values()].filter((resource) => resource.scopes?.includes(scope)).map((resource) => resource.identifier);
  }
}

async function missing(tx: Queryable, realm: string, scopes: readonly string[]): Promise<string[]> {
  if (scopes.length === 0) return [];
  const found = await tx.query<{ name: string }>('SELECT name FROM scopes WHERE realm = $1 AND name = ANY ($2::text[]) FOR KEY SHARE', [realm, scopes]);
  const existing = new Set(found.rows.map((row) => row.name));
  return scopes.filter((scope) => !existing.has(scope));
}
