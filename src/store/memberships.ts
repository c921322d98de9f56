import { type Db, isUuid } from './db.js';
import { USER_COLUMNS, type User, type UserRow, toUser } from './users.js';

/** A person's place in the realm's roles and groups (CONTRACT.md §10). */
export interface Memberships {
  /** The roles given to the person directly, in name order. */
  readonly roles: readonly string[];
  /** Their groups, in name order. */
  readonly groups: readonly string[];
  /** What tokens carry: their own roles and their groups', each once, in name order. */
  readonly effectiveRoles: readonly string[];
}

export const NO_MEMBERSHIPS: Memberships = Object.freeze({ roles: [], groups: [], effectiveRoles: [] });

/** What a change of a person's roles or groups found. `absent`: the person does not hold it (a removal). */
export type MembershipChange = 'done' | 'no_person' | 'no_target' | 'absent';

interface MembershipRow {
  roles: string[];
  groups: string[];
  effective_roles: string[];
}

/** The three lists of the person `u` (a row of users), in byte order so that both databases agree. */
const MEMBERSHIP_COLUMNS = `
  ARRAY(SELECT ur.role FROM user_roles ur WHERE ur.realm = u.realm AND ur.user_id = u.id ORDER BY ur.role COLLATE "C") AS roles,
  ARRAY(SELECT ug.group_name FROM user_groups ug WHERE ug.realm = u.realm AND ug.user_id = u.id ORDER BY ug.group_name COLLATE "C") AS groups,
  ARRAY(SELECT held.role FROM (
          SELECT ur.role FROM user_roles ur WHERE ur.realm = u.realm AND ur.user_id = u.id
          UNION
          SELECT gr.role FROM user_groups ug JOIN group_roles gr ON gr.realm = ug.realm AND gr.group_name = ug.group_name
           WHERE ug.realm = u.realm AND ug.user_id = u.id
        ) AS held ORDER BY held.role COLLATE "C") AS effective_roles`;

const toMemberships = (row: MembershipRow): Memberships => ({ roles: row.roles, groups: row.groups, effectiveRoles: row.effective_roles });

/** Links of a person (by username) to a role or group: their table and column, and the table the target is defined in. */
const LINKS = {
  role: { table: 'user_roles', column: 'role', targets: 'roles' },
  group: { table: 'user_groups', column: 'group_name', targets: 'groups' },
} as const;

/**
 * Adds the link, once: the person and the target are locked (FOR KEY SHARE) by the statement
 * that links them, so that neither is deleted before the link is written (the deletion then
 * removes it). $1 realm, $2 username, $3 the role's or group's name.
 */
const linkStatement = ({ table, column, targets }: (typeof LINKS)[keyof typeof LINKS]) => `
  WITH person AS (SELECT realm, id FROM users WHERE realm = $1 AND lower(username) = lower($2) FOR KEY SHARE),
       target AS (SELECT name FROM ${targets} WHERE realm = $1 AND name = $3 FOR KEY SHARE),
       linked AS (INSERT INTO ${table} (realm, user_id, ${column}) SELECT person.realm, person.id, target.name FROM person, target ON CONFLICT DO NOTHING)
  SELECT EXISTS (SELECT 1 FROM person) AS person, EXISTS (SELECT 1 FROM target) AS target, true AS changed`;

const unlinkStatement = ({ table, column, targets }: (typeof LINKS)[keyof typeof LINKS]) => `
  WITH person AS (SELECT realm, id FROM users WHERE realm = $1 AND lower(username) = lower($2)),
       target AS (SELECT name FROM ${targets} WHERE realm = $1 AND name = $3),
       unlinked AS (DELETE FROM ${table} l USING person WHERE l.realm = person.realm AND l.user_id = person.id AND l.${column} = $3 RETURNING 1)
  SELECT EXISTS (SELECT 1 FROM person) AS person, EXISTS (SELECT 1 FROM target) AS target, EXISTS (SELECT 1 FROM unlinked) AS changed`;

const STATEMENTS = {
  grantRole: linkStatement(LINKS.role),
  revokeRole: unlinkStatement(LINKS.role),
  joinGroup: linkStatement(LINKS.group),
  leaveGroup: unlinkStatement(LINKS.group),
};

/**
 * People's roles and groups. Read afresh for each token that needs them, never cached: a
 * change shows in the next token on every instance.
 */
export class MembershipStore {
  constructor(private readonly db: Db) {}

  /** The person's roles and groups, in one statement; none for a person who does not exist. */
  async ofPerson(realm: string, userId: string): Promise<Memberships> {
    if (!isUuid(userId)) return NO_MEMBERSHIPS;
    const result = await this.db.query<MembershipRow>(`SELECT ${MEMBERSHIP_COLUMNS} FROM users u WHERE u.realm = $1 AND u.id = $2::uuid`, [realm, userId]);
    return result.rows[0] ? toMemberships(result.rows[0]) : NO_MEMBERSHIPS;
  }

  /** The own roles and the groups of every person of the realm who has any, by user id (a realm's export). */
  async ofRealm(realm: string): Promise<Map<string, Pick<Memberships, 'roles' | 'groups'>>> {
    const result = await this.db.query<{ user_id: string; roles: string[]; groups: string[] }>(
      `SELECT u.id AS user_id,
              ARRAY(SELECT ur.role FROM user_roles ur WHERE ur.realm = u.realm AND ur.user_id = u.id ORDER BY ur.role COLLATE "C") AS roles,
              ARRAY(SELECT ug.group_name FROM user_groups ug WHERE ug.realm = u.realm AND ug.user_id = u.id ORDER BY ug.group_name COLLATE "C") AS groups
         FROM users u
        WHERE u.realm = $1
          AND (EXISTS (SELECT 1 FROM user_roles ur WHERE ur.realm = u.realm AND ur.user_id = u.id)
               OR EXISTS (SELECT 1 FROM user_groups ug WHERE ug.realm = u.realm AND ug.user_id = u.id))`,
      [realm],
    );
    return new Map(result.rows.map((row) => [row.user_id, { roles: row.roles, groups: row.groups }]));
  }

  /** The person's record with their roles and groups, in one statement. */
  async personWithMemberships(realm: string, userId: string): Promise<{ user: User; memberships: Memberships } | undefined> {
    if (!isUuid(userId)) return undefined;
    const columns = USER_COLUMNS.map((column) => `u.${column}`).join(', ');
    const result = await this.db.query<UserRow & MembershipRow>(
      `SELECT ${columns}, ${MEMBERSHIP_COLUMNS} FROM users u WHERE u.realm = $1 AND u.id = $2::uuid`,
      [realm, userId],
    );
    const row = result.rows[0];
    return row && { user: toUser(row), memberships: toMemberships(row) };
  }

  grantRole(realm: string, username: string, role: string): Promise<MembershipChange> {
    return this.change(STATEMENTS.grantRole, realm, username, role);
  }

  revokeRole(realm: string, username: string, role: string): Promise<MembershipChange> {
    return this.change(STATEMENTS.revokeRole, realm, username, role);
  }

  joinGroup(realm: string, username: string, group: string): Promise<MembershipChange> {
    return this.change(STATEMENTS.joinGroup, realm, username, group);
  }

  leaveGroup(realm: string, username: string, group: string): Promise<MembershipChange> {
    return this.change(STATEMENTS.leaveGroup, realm, username, group);
  }

  private async change(statement: string, realm: string, username: string, target: string): Promise<MembershipChange> {
    const result = await this.db.query<{ person: boolean; target: boolean; changed: boolean }>(statement, [realm, username, target]);
    const row = result.rows[0]!;
    if (!row.person) return 'no_person';
    if (!row.target) return 'no_target';
    return row.changed ? 'done' : 'absent';
  }
}
