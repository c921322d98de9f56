import type { Command } from 'commander';
import { parseAssignments } from '../assignments.js';
import { ROOT_REALM } from '../../records/realm-names.js';
import { CliError, UsageError } from '../errors.js';
import { fields, notice, printLines, printable, table } from '../output.js';
import { print } from '../output-mode.js';
import { AdminApi, type ConnectionOptions, adminPath, connectionOptions } from '../server.js';
import { readStdin } from '../stdin.js';
import { addUserActionCommands } from './user-actions.js';

/** The role of an administrator of everything (CONTRACT.md §14); src/admin/permissions.ts is not loaded for one name. */
const ADMIN_ROLE = 'realmgate-admin';

interface UserView {
  username: string;
  sub: string;
  claims: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  enabled?: boolean;
  identities?: Array<{ provider: string; subject: string }>;
  roles?: string[];
  groups?: string[];
  effective_roles?: string[];
}

interface PasswordOptions extends ConnectionOptions {
  password?: string;
  passwordStdin?: boolean;
}

const userView = (user: UserView): string =>
  fields([
    ['username', user.username],
    ['sub', user.sub],
    ['claims', user.claims],
    ['created_at', user.created_at],
    ['updated_at', user.updated_at],
    ...(user.enabled === undefined ? [] : [['enabled', user.enabled] as const]),
    // The accounts at other providers that sign in as this person.
    ...(user.identities === undefined ? [] : [['identities', user.identities.map(({ provider, subject }) => `${provider}:${subject}`)] as const]),
    // Their own roles and groups, and every role they hold (their own and their groups').
    ...(['roles', 'groups', 'effective_roles'] as const).filter((name) => user[name] !== undefined).map((name) => [name, user[name]] as const),
  ]);

function passwordOptions(command: Command): Command {
  return command
    .option('--password-stdin', 'read the password from standard input (its one final line break dropped)')
    .option('--password <password>', 'the password (visible to other users of this machine: prefer --password-stdin)');
}

async function passwordFrom(options: PasswordOptions): Promise<string> {
  if (options.passwordStdin && options.password !== undefined) throw new UsageError('give the password one way: --password-stdin or --password');
  if (options.passwordStdin) return readStdin();
  if (options.password !== undefined) return options.password;
  throw new UsageError('a password is needed: pipe it in with --password-stdin (or give --password)');
}

interface SessionView {
  id: string;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  journey: string;
  acr: string;
  amr: string[];
  clients: string[];
}

interface ListOptions extends ConnectionOptions {
  search?: string;
  limit?: string;
  cursor?: string;
}

/** A person's own roles and groups: `…/users/{username}/roles/{role}` and `…/groups/{group}`, given or taken. */
const MEMBERSHIPS = [
  { command: 'grant-role', method: 'put', kind: 'roles', what: 'role', description: 'give a user a role of the realm', done: 'now holds' },
  { command: 'revoke-role', method: 'delete', kind: 'roles', what: 'role', description: "take a role from a user (one held through a group stays)", done: 'no longer holds' },
  { command: 'join-group', method: 'put', kind: 'groups', what: 'group', description: 'put a user in a group of the realm (they hold its roles)', done: 'is now in' },
  { command: 'leave-group', method: 'delete', kind: 'groups', what: 'group', description: 'take a user out of a group', done: 'is no longer in' },
] as const;

/**
 * `realmgate user list|create|show|update|delete|set-password|enrol-totp|disable|enable|sessions|sign-out|grant-role|revoke-role|join-group|leave-group`:
 * /admin/realms/{realm}/users.
 */
export function addUserCommands(program: Command): void {
  const user = program
    .command('user')
    .description("list, create, show, change, disable and delete a realm's users; set a password; enrol a one-time code generator; end sessions; give roles and groups");

  connectionOptions(
    passwordOptions(
      user
        .command('create')
        .description('create a user with a password (as the realm\'s password policy allows) and claims')
        .argument('<realm>')
        .argument('<username>')
        .argument('[claim=value...]', 'claims of the ID token and userinfo, e.g. name="Alice Liddell" email_verified=true')
        .option('--admin', `an administrator of the whole server: a person of ${ROOT_REALM} given the role ${ADMIN_ROLE} (defined when absent)`),
    ),
  ).action(async (realm: string, username: string, assignments: string[], options: PasswordOptions & { admin?: boolean }) => {
    if (options.admin && realm !== ROOT_REALM) throw new UsageError(`--admin: administrators are people of the ${ROOT_REALM} realm`);
    const claims = parseAssignments(assignments, 'claim');
    const password = await passwordFrom(options);
    const body = { username, password, ...(Object.keys(claims).length > 0 ? { claims } : {}) };
    const api = AdminApi.from(options);
    if (!options.admin) {
      print(options, (await api.post(adminPath('realms', realm, 'users'), body)) as UserView, userView);
      return;
    }
    // Only realmgate-admin (or ADMIN_TOKEN) defines and gives the role: refused before anyone is made.
    await api.put(adminPath('realms', realm, 'roles', ADMIN_ROLE), {});
    await api.post(adminPath('realms', realm, 'users'), body);
    try {
      await api.put(adminPath('realms', realm, 'users', username, 'roles', ADMIN_ROLE), undefined);
    } catch (error) {
      throw new CliError(`${printable(username)} was created but not given ${ADMIN_ROLE} (${(error as Error).message}): run realmgate user grant-role ${realm} ${printable(username)} ${ADMIN_ROLE}`);
    }
    print(options, (await api.get(adminPath('realms', realm, 'users', username))) as UserView, userView);
  });

  connectionOptions(
    user
      .command('list')
      .description("a realm's people in the order of their usernames, a page at a time; --cursor with the next value a page ends with gives the page after it")
      .argument('<realm>')
      .option('--search <text>', 'only those whose username, email or name holds this text (any case)')
      .option('--limit <n>', 'at most this many, up to 1000 [default: 100]')
      .option('--cursor <next>', 'the page after the one whose next value this is'),
  ).action(async (realm: string, options: ListOptions) => {
    const query = new URLSearchParams();
    for (const [name, value] of [['search', options.search], ['limit', options.limit], ['cursor', options.cursor]] as const) {
      if (value !== undefined) query.set(name, value);
    }
    const path = `${adminPath('realms', realm, 'users')}${query.size > 0 ? `?${query}` : ''}`;
    const answer = (await AdminApi.from(options).get(path)) as { users: UserView[]; next: string | null };
    print(options, answer, ({ users, next }) => {
      if (next !== null) notice(`More people: add --cursor ${printable(next)}`);
      return table<UserView>(
        [
          ['username', (u) => u.username],
          ['enabled', (u) => u.enabled],
          ['email', (u) => u.claims.email],
          ['name', (u) => u.claims.name],
          ['created_at', (u) => u.created_at],
        ],
        users,
      );
    });
  });

  connectionOptions(user.command('show').alias('get').description('a user: their claims, roles, groups and accounts at other providers').argument('<realm>').argument('<username>')).action(
    async (realm: string, username: string, options: ConnectionOptions) => {
      print(options, (await AdminApi.from(options).get(adminPath('realms', realm, 'users', username))) as UserView, userView);
    },
  );

  connectionOptions(
    user
      .command('update')
      .description("change a user's claims (the others stay); claim=null removes one")
      .argument('<realm>')
      .argument('<username>')
      .argument('<claim=value...>', 'claims, each value JSON where it parses as JSON, e.g. email=alice@example.com email_verified=true nickname=null'),
  ).action(async (realm: string, username: string, assignments: string[], options: ConnectionOptions) => {
    const claims = parseAssignments(assignments, 'claim');
    const answer = (await AdminApi.from(options).patch(adminPath('realms', realm, 'users', username), { claims })) as UserView;
    print(options, answer, userView);
  });

  connectionOptions(
    user.command('delete').description('delete a user; their sessions end and their tokens stop working').argument('<realm>').argument('<username>'),
  ).action(async (realm: string, username: string, options: ConnectionOptions) => {
    await AdminApi.from(options).delete(adminPath('realms', realm, 'users', username));
    if (!options.json) printLines(`User ${printable(username)} of ${printable(realm)} deleted.`);
  });

  connectionOptions(
    passwordOptions(user.command('set-password').description("replace a user's password").argument('<realm>').argument('<username>')),
  ).action(async (realm: string, username: string, options: PasswordOptions) => {
    const password = await passwordFrom(options);
    const answer = (await AdminApi.from(options).patch(adminPath('realms', realm, 'users', username), { password })) as UserView;
    print(options, answer, (changed) => `The password of ${changed.username} in ${realm} is changed.`);
  });

  connectionOptions(
    user
      .command('enrol-totp')
      .description('a new TOTP secret for the user, replacing any other (shown once)')
      .argument('<realm>')
      .argument('<username>')
      .option('--qr', 'also draw the otpauth URI as a QR code, for a phone to scan'),
  ).action(async (realm: string, username: string, options: ConnectionOptions & { qr?: boolean }) => {
    const answer = (await AdminApi.from(options).post(adminPath('realms', realm, 'users', username, 'totp'))) as {
      secret: string;
      otpauth_uri: string;
    };
    // Loaded only when asked for: every other command starts without it.
    const qr = options.qr && !options.json ? (await import('uqr')).renderUnicodeCompact(answer.otpauth_uri) : undefined;
    print(options, answer, ({ secret, otpauth_uri: uri }) => {
      notice(`Shown this once: hand the secret or the URI to ${username}. It replaces any code generator enrolled before.`);
      const text = fields([
        ['secret', secret],
        ['otpauth_uri', uri],
      ]);
      return qr ? `${text}\n\n${qr}` : text;
    });
  });

  for (const [command, enabled] of [['disable', false], ['enable', true]] as const) {
    connectionOptions(
      user
        .command(command)
        .description(enabled ? 'let a disabled user sign in again' : 'stop a user signing in anywhere; their sessions end and their grants are revoked')
        .argument('<realm>')
        .argument('<username>'),
    ).action(async (realm: string, username: string, options: ConnectionOptions) => {
      const answer = (await AdminApi.from(options).patch(adminPath('realms', realm, 'users', username), { enabled })) as UserView;
      print(options, answer, (changed) => `${printable(changed.username)} of ${printable(realm)} is ${enabled ? 'enabled' : 'disabled'}.`);
    });
  }

  connectionOptions(user.command('sessions').description("a user's live sessions: when, how and to which clients they signed in").argument('<realm>').argument('<username>')).action(
    async (realm: string, username: string, options: ConnectionOptions) => {
      const answer = (await AdminApi.from(options).get(adminPath('realms', realm, 'users', username, 'sessions'))) as { sessions: SessionView[] };
      print(options, answer, ({ sessions }) =>
        table<SessionView>(
          [
            ['id', (s) => s.id],
            ['created_at', (s) => s.created_at],
            ['last_seen_at', (s) => s.last_seen_at],
            ['expires_at', (s) => s.expires_at],
            ['acr', (s) => s.acr],
            ['amr', (s) => s.amr],
            ['clients', (s) => s.clients],
          ],
          sessions,
        ),
      );
    },
  );

  connectionOptions(
    user
      .command('sign-out')
      .description('sign a user out everywhere: each session ends, and the tokens issued in it are revoked')
      .argument('<realm>')
      .argument('<username>'),
  ).action(async (realm: string, username: string, options: ConnectionOptions) => {
    await AdminApi.from(options).delete(adminPath('realms', realm, 'users', username, 'sessions'));
    if (!options.json) printLines(`${printable(username)} of ${printable(realm)} is signed out everywhere.`);
  });

  for (const membership of MEMBERSHIPS) {
    connectionOptions(
      user.command(membership.command).description(membership.description).argument('<realm>').argument('<username>').argument(`<${membership.what}>`),
    ).action(async (realm: string, username: string, name: string, options: ConnectionOptions) => {
      const api = AdminApi.from(options);
      const path = adminPath('realms', realm, 'users', username, membership.kind, name);
      await (membership.method === 'put' ? api.put(path, undefined) : api.delete(path));
      if (!options.json) printLines(`${printable(username)} of ${printable(realm)} ${membership.done} the ${membership.what} ${printable(name)}.`);
    });
  }

  addUserActionCommands(user);
}
