import type { Logger } from 'pino';
import { type PasswordHashing, hashPassword } from '../authn/password-hashing.js';
import { checkPassword } from '../authn/password-policy.js';
import { ConfigError, type FirstAdministrator } from '../config.js';
import { ROOT_REALM } from '../records/realm-names.js';
import type { Store } from '../store/index.js';
import { ADMIN_ROLE } from './permissions.js';

/**
 * `ADMIN_USER` and `ADMIN_PASSWORD` (CONTRACT.md §14, issue 36): the first start makes the
 * first administrator, a person of `root` holding `realmgate-admin`, so that nobody needs
 * `ADMIN_TOKEN` to begin. Read once: when it is made, or found unneeded because a person of
 * `root` holds `realmgate-admin` already, the server state remembers it and later starts
 * ignore the pair (a deleted administrator is not made again with a password left in an
 * environment). The password is hashed and never logged.
 */

export type FirstAdministratorOutcome =
  | { readonly made: true; readonly username: string; readonly sub: string }
  | { readonly made: false; readonly reason: 'read_before' | 'administrator_exists' | 'username_taken' };

/** The server state's name for "the pair was read": its value is when. */
export const FIRST_ADMINISTRATOR_STATE = 'first_administrator';

/** Arbitrary, fixed: instances starting together make one administrator, one after the other. */
const FIRST_ADMINISTRATOR_LOCK = 7_236_036;

const HAS_ADMINISTRATOR = `
  SELECT EXISTS (SELECT 1 FROM user_roles WHERE realm = $1 AND role = $2)
      OR EXISTS (SELECT 1 FROM user_groups ug JOIN group_roles gr ON gr.realm = ug.realm AND gr.group_name = ug.group_name
                  WHERE ug.realm = $1 AND gr.role = $2) AS present`;

export async function makeFirstAdministrator(store: Store, wanted: FirstAdministrator, hashing: PasswordHashing): Promise<FirstAdministratorOutcome> {
  if ((await store.serverState.get(FIRST_ADMINISTRATOR_STATE)) !== undefined) return { made: false, reason: 'read_before' };
  const root = await store.realms.get(ROOT_REALM);
  const problem = checkPassword(wanted.password, root!.settings, { username: wanted.username });
  // Only the rule broken is said, never the password.
  if (problem) throw new ConfigError(`invalid configuration: ADMIN_PASSWORD: ${problem.description} (the root realm's password policy)`);
  const passwordHash = await hashPassword(wanted.password, hashing);

  const outcome = await store.db.transaction(async (tx): Promise<FirstAdministratorOutcome> => {
    await tx.query(`SELECT pg_advisory_xact_lock(${FIRST_ADMINISTRATOR_LOCK})`);
    const read = await tx.query('SELECT 1 FROM server_state WHERE name = $1', [FIRST_ADMINISTRATOR_STATE]);
    if (read.rows.length > 0) return { made: false, reason: 'read_before' };
    await tx.query('INSERT INTO server_state (name, value) VALUES ($1, $2)', [FIRST_ADMINISTRATOR_STATE, new Date().toISOString()]);
    const existing = await tx.query<{ present: boolean }>(HAS_ADMINISTRATOR, [ROOT_REALM, ADMIN_ROLE]);
    if (existing.rows[0]!.present) return { made: false, reason: 'administrator_exists' };
    const person = await tx.query<{ id: string }>(
      `INSERT INTO users (realm, username, password_hash) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING id::text`,
      [ROOT_REALM, wanted.username, passwordHash],
    );
    // A person of that name who is no administrator is not made one by the environment.
    if (!person.rows[0]) return { made: false, reason: 'username_taken' };
    await tx.query(`INSERT INTO roles (realm, name, description) VALUES ($1, $2, 'everything, as ADMIN_TOKEN') ON CONFLICT DO NOTHING`, [ROOT_REALM, ADMIN_ROLE]);
    await tx.query('INSERT INTO user_roles (realm, user_id, role) VALUES ($1, $2::uuid, $3)', [ROOT_REALM, person.rows[0].id, ADMIN_ROLE]);
    return { made: true, username: wanted.username, sub: person.rows[0].id };
  });
  if (outcome.made) {
    const occurredAt = new Date();
    await store.auditEvents.append({
      realm: ROOT_REALM,
      type: 'user.created',
      occurredAt,
      clientId: undefined,
      userId: outcome.sub,
      address: undefined,
      // Not an admin API change, so no `actor` (CONTRACT.md §14 names those): the environment made it.
      details: { username: outcome.username, roles: [ADMIN_ROLE], source: 'ADMIN_USER' },
      expiresAt: new Date(occurredAt.getTime() + root!.settings.audit_event_lifetime * 1000),
    });
  }
  return outcome;
}

/** One line on what the pair did: the username at most, never the password. */
export function logFirstAdministrator(logger: Pick<Logger, 'info' | 'warn'>, outcome: FirstAdministratorOutcome): void {
  if (outcome.made) {
    logger.info({ username: outcome.username }, 'first administrator made from ADMIN_USER (a person of root with realmgate-admin); ADMIN_USER and ADMIN_PASSWORD are not read again');
  } else if (outcome.reason === 'username_taken') {
    logger.warn('ADMIN_USER names a person of root who exists: no administrator was made, and the pair is not read again; give them realmgate-admin with ADMIN_TOKEN (realmgate user grant-role root NAME realmgate-admin)');
  } else {
    const why = outcome.reason === 'read_before' ? 'they were read at an earlier start' : 'a person of root holds realmgate-admin already';
    logger.info(`ADMIN_USER and ADMIN_PASSWORD are ignored: ${why}; remove them from the environment`);
  }
}
