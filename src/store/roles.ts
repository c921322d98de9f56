import type { Db } from './db.js';

/** A role of a realm (CONTRACT.md §10): given to people directly or through their groups. */
export interface Role {
  readonly name: string;
  readonly description: string;
}

/** The roles of a realm, by name. People's roles are src/store/memberships.ts's. */
export class RoleStore {
  constructor(private readonly db: Db) {}

  /** In name order (byte order, the same on every database). */
  async list(realm: string): Promise<Role[]> {
    const result = await this.db.query<Role>('SELECT name, description FROM roles WHERE realm = $1 ORDER BY name COLLATE "C"', [realm]);
    return result.rows;
  }

  async get(realm: string, name: string): Promise<Role | undefined> {
    const result = await this.db.query<Role>('SELECT name, description FROM roles WHERE realm = $1 AND name = $2', [realm, name]);
    return result.rows[0];
  }

  /** Creates the role or changes its description (kept when none is given; empty for a new role); `created` tells which. */
  async put(realm: string, name: string, description: string | undefined): Promise<{ role: Role; created: boolean }> {
    const result = await this.db.query<Role & { created: boolean }>(
      `INSERT INTO roles (realm, name, description) VALUES ($1, $2, coalesce($3::text, ''))
       ON CONFLICT (realm, name) DO UPDATE SET description = coalesce($3::text, roles.description)
       RETURNING name, description, (xmax = 0) AS created`,
      [realm, name, description ?? null],
    );
    const row = result.rows[0]!;
    return { role: { name: row.name, description: row.description }, created: row.created };
  }

  /**
   * Deletes the role, and with it (the foreign keys' cascade, in the same statement) its place
   * in every group and every person's roles, as Keycloak does: no group or person names it after.
   */
  async delete(realm: string, name: string): Promise<boolean> {
    const result = await this.db.query('DELETE FROM roles WHERE realm = $1 AND name = $2', [realm, name]);
    return result.rowCount > 0;
  }
}
