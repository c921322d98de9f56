import type { Db, Queryable } from './db.js';

/** A group of a realm (CONTRACT.md §10): its members hold its roles. */
export interface Group {
  readonly name: string;
  readonly description: string;
  /** In name order. */
  readonly roles: readonly string[];
}

/** What a group's change found: the group as it now is, or the roles it named that the realm lacks (then nothing changed). */
export type GroupPut = { group: Group; created: boolean; missingRoles?: undefined } | { missingRoles: string[] };

const SELECT_GROUPS = `SELECT g.name, g.description,
         ARRAY(SELECT gr.role FROM group_roles gr WHERE gr.realm = g.realm AND gr.group_name = g.name ORDER BY gr.role COLLATE "C") AS roles
    FROM groups g`;

/** The groups of a realm and the roles each gives. People's groups are src/store/memberships.ts's. */
export class GroupStore {
  constructor(private readonly db: Db) {}

  /** In name order (byte order, the same on every database). */
  async list(realm: string): Promise<Group[]> {
    const result = await this.db.query<Group>(`${SELECT_GROUPS} WHERE g.realm = $1 ORDER BY g.name COLLATE "C"`, [realm]);
    return result.rows;
  }

  get(realm: string, name: string): Promise<Group | undefined> {
    return getGroup(this.db, realm, name);
  }

  /**
   * Creates the group or changes it, in one transaction: its description when given (empty for
   * a new group), and its roles when given, which then replace the ones it had. Every role named
   * must exist in the realm: the named roles are locked (FOR KEY SHARE) first, so that none is
   * deleted before the group names it; when one is missing, nothing changes.
   */
  put(realm: string, name: string, change: { description?: string | undefined; roles?: readonly string[] | undefined }): Promise<GroupPut> {
    return this.db.transaction(async (tx) => {
      const { roles } = change;
      if (roles !== undefined && roles.length > 0) {
        const found = await tx.query<{ name: string }>('SELECT name FROM roles WHERE realm = $1 AND name = ANY($2::text[]) FOR KEY SHARE', [realm, roles]);
        const existing = new Set(found.rows.map((row) => row.name));
        const missingRoles = roles.filter((role) => !existing.has(role));
        if (missingRoles.length > 0) return { missingRoles };
      }
      const saved = await tx.query<{ created: boolean }>(
        `INSERT INTO groups (realm, name, description) VALUES ($1, $2, coalesce($3::text, ''))
         ON CONFLICT (realm, name) DO UPDATE SET description = coalesce($3::text, groups.description)
         RETURNING (xmax = 0) AS created`,
        [realm, name, change.description ?? null],
      );
      if (roles !== undefined) {
        await tx.query('DELETE FROM group_roles WHERE realm = $1 AND group_name = $2 AND NOT (role = ANY($3::text[]))', [realm, name, roles]);
        await tx.query(
          'INSERT INTO group_roles (realm, group_name, role) SELECT $1, $2, unnest($3::text[]) ON CONFLICT DO NOTHING',
          [realm, name, roles],
        );
      }
      return { group: (await getGroup(tx, realm, name))!, created: saved.rows[0]!.created };
    });
  }

  /** Deletes the group; its members lose it (and the roles it gave) in the same statement. */
  async delete(realm: string, name: string): Promise<boolean> {
    const result = await this.db.query('DELETE FROM groups WHERE realm = $1 AND name = $2', [realm, name]);
    return result.rowCount > 0;
  }
}

async function getGroup(q: Queryable, realm: string, name: string): Promise<Group | undefined> {
  const result = await q.query<Group>(`${SELECT_GROUPS} WHERE g.realm = $1 AND g.name = $2`, [realm, name]);
  return result.rows[0];
}
