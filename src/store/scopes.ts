import type { Db } from './db.js';

export interface Scope {
  readonly name: string;
  readonly description: string;
}

export class ScopeStore {
  constructor(private readonly db: Db) {}

  async list(realm: string): Promise<Scope[]> {
    const result = await this.db.query<Scope>('SELECT name, description FROM scopes WHERE realm = $1 ORDER BY name', [realm]);
    return result.rows;
  }

  async get(realm: string, name: string): Promise<Scope | undefined> {
    const result = await this.db.query<Scope>('SELECT name, description FROM scopes WHERE realm = $1 AND name = $2', [realm, name]);
    return result.rows[0];
  }

  /** Each of `names`, in their order, with its description (empty when the realm has none). */
  async described(realm: string, names: readonly string[]): Promise<Scope[]> {
    const result = await this.db.query<Scope>('SELECT name, description FROM scopes WHERE realm = $1 AND name = ANY ($2::text[])', [
      realm,
      names,
    ]);
    const descriptions = new Map(result.rows.map((scope) => [scope.name, scope.description]));
    return names.map((name) => ({ name, description: descriptions.get(name) ?? '' }));
  }

  /** Names among `names` that the realm does not define. */
  async missing(realm: string, names: readonly string[]): Promise<string[]> {
    if (names.length === 0) return [];
    const result = await this.db.query<{ name: string }>('SELECT name FROM scopes WHERE realm = $1 AND name = ANY ($2::text[])', [
      realm,
      names,
    ]);
    const known = new Set(result.rows.map((row) => row.name));
    return names.filter((name) => !known.has(name));
  }

  /** Creates or updates the scope; `created` tells which. */
  async put(realm: string, name: string, description: string): Promise<{ scope: Scope; created: boolean }> {
    const result = await this.db.query<Scope & { created: boolean }>(
      `INSERT INTO scopes (realm, name, description) VALUES ($1, $2, $3)
       ON CONFLICT (realm, name) DO UPDATE SET description = excluded.description
       RETURNING name, description, (xmax = 0) AS created`,
      [realm, name, description],
    );
    const row = result.rows[0]!;
    return { scope: { name: row.name, description: row.description }, created: row.created };
  }

  async delete(realm: string, name: string): Promise<boolean> {
    const result = await this.db.query('DELETE FROM scopes WHERE realm = $1 AND name = $2', [realm, name]);
    return result.rowCount > 0;
  }
}
