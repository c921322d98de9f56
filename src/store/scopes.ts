import type { LocalisedTexts } from '../records/locales.js';
import type { ScopeClaim } from '../records/scope-claim.js';
import { type SharedCache, writeThrough } from './cache.js';
import type { Db, Queryable } from './db.js';

export interface Scope {
  readonly name: string;
  readonly description: string;
  /** `description` in some of the languages (CONTRACT.md §16): the consent page shows the person's. */
  readonly descriptions: LocalisedTexts;
  /** The claims about the person that tokens of this scope carry (src/tokens/scope-claims.ts). */
  readonly claims: readonly ScopeClaim[];
}

interface ScopeRow {
  name: string;
  description: string;
  descriptions: LocalisedTexts;
  claims: ScopeClaim[];
}

/**
 * A realm's scopes, cached per instance as "{realm}/all" (by name, in name order): the consent
 * page, discovery, client checks and the claims of tokens read them on every request, and an
 * admin changes them rarely. A change invalidates them on every instance as it commits; so does
 * the realm's creation or deletion (src/store/realms.ts).
 */
export type ScopeCache = SharedCache<ReadonlyMap<string, Scope>>;

const NO_CLAIMS: readonly ScopeClaim[] = Object.freeze([]);

const toScope = (row: ScopeRow): Scope => ({
  name: row.name,
  description: row.description,
  descriptions: row.descriptions,
  claims: row.claims.length === 0 ? NO_CLAIMS : row.claims,
});

export class ScopeStore {
  constructor(
    private readonly db: Db,
    private readonly cache: ScopeCache,
  ) {}

  private async all(realm: string): Promise<ReadonlyMap<string, Scope>> {
    const scopes = await this.cache.get(`${realm}/all`, async () => {
      const result = await this.db.query<ScopeRow>('SELECT name, description, descriptions, claims FROM scopes WHERE realm = $1 ORDER BY name', [realm]);
      return new Map(result.rows.map((row) => [row.name, toScope(row)]));
    });
    return scopes ?? new Map();
  }

  async list(realm: string): Promise<Scope[]> {
    return [...(await this.all(realm)).values()];
  }

  async get(realm: string, name: string): Promise<Scope | undefined> {
    return (await this.all(realm)).get(name);
  }

  /** Each of `names`, in their order, with its descriptions (empty when the realm has none). */
  async described(realm: string, names: readonly string[]): Promise<Array<Pick<Scope, 'name' | 'description' | 'descriptions'>>> {
    const scopes = await this.all(realm);
    return names.map((name) => ({ name, description: scopes.get(name)?.description ?? '', descriptions: scopes.get(name)?.descriptions ?? {} }));
  }

  /** Names among `names` that the realm does not define. */
  async missing(realm: string, names: readonly string[]): Promise<string[]> {
    if (names.length === 0) return [];
    const known = await this.all(realm);
    return names.filter((name) => !known.has(name));
  }

  /**
   * The claims that the scopes among `names` map, the scopes taken in name order (so that
   * where two map one claim name, the later scope's mapping is the one applied last).
   */
  async claimsOf(realm: string, names: readonly string[]): Promise<ScopeClaim[]> {
    const scopes = await this.all(realm);
    const mapped: ScopeClaim[] = [];
    for (const name of [...names].sort()) {
      const claims = scopes.get(name)?.claims;
      if (claims) mapped.push(...claims);
    }
    return mapped;
  }

  /** Creates or updates the scope; `created` tells which. Claims and descriptions not given stay as they are (none for a new scope). */
  put(realm: string, name: string, description: string, claims?: readonly ScopeClaim[], descriptions?: LocalisedTexts): Promise<{ scope: Scope; created: boolean }> {
    return writeThrough(this.db, [[this.cache, `${realm}/`]], (tx) => putScope(tx, realm, name, description, claims, descriptions));
  }

  delete(realm: string, name: string): Promise<boolean> {
    return writeThrough(this.db, [[this.cache, `${realm}/`]], async (tx) => {
      const result = await tx.query('DELETE FROM scopes WHERE realm = $1 AND name = $2', [realm, name]);
      return result.rowCount > 0;
    });
  }
}

/** Creates or updates a scope, within a transaction of the caller's (which invalidates the cache, or runs before any). */
export async function putScope(
  tx: Queryable,
  realm: string,
  name: string,
  description: string,
  claims?: readonly ScopeClaim[],
  descriptions?: LocalisedTexts,
): Promise<{ scope: Scope; created: boolean }> {
  const result = await tx.query<ScopeRow & { created: boolean }>(
    `INSERT INTO scopes (realm, name, description, claims, descriptions) VALUES ($1, $2, $3, coalesce($4::jsonb, '[]'), coalesce($5::jsonb, '{}'))
     ON CONFLICT (realm, name) DO UPDATE SET description = excluded.description, claims = coalesce($4::jsonb, scopes.claims),
       descriptions = coalesce($5::jsonb, scopes.descriptions)
     RETURNING name, description, descriptions, claims, (xmax = 0) AS created`,
    [realm, name, description, claims === undefined ? null : JSON.stringify(claims), descriptions === undefined ? null : JSON.stringify(descriptions)],
  );
  const row = result.rows[0]!;
  return { scope: toScope(row), created: row.created };
}
