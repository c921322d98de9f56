/**
 * The admin console's users module: a realm's people, searched a page at a time; one person's
 * record (claims, linked accounts, roles and groups, sessions), a new password, a TOTP
 * enrolment, disabling, deletion; a new person.
 */
import { api } from './api.js';
import { claimFields, claimsOf } from './person-claims.js';
import type { User, UserSession } from './records.js';
import { operatorActions } from './user-actions.js';
import { confirmed, copyButton, deleteButton, field, guarded, h, localTime, pagedTable, same, say, secretBox, setValue, table, valueOf } from './dom.js';

/** The claims that change from one set to another; a claim taken out is removed with null. */
function claimChanges(current: Record<string, unknown>, wanted: Record<string, unknown>): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  for (const name of Object.keys(current)) if (!Object.hasOwn(wanted, name)) changes[name] = null;
  for (const [name, value] of Object.entries(wanted)) if (!same(value, current[name])) changes[name] = value;
  return changes;
}

/** The claims, one a line: the name, then the value (text as it is, anything else as JSON). */
const claimList = (claims: Record<string, unknown>) =>
  Object.keys(claims).length === 0
    ? 'None'
    : Object.entries(claims).map(([claim, value]) => h('div', {}, h('code', {}, claim), ': ', typeof value === 'string' ? value : JSON.stringify(value)));

const password = (label: string) => field(label, h('input', { name: 'password', type: 'password', autocomplete: 'new-password', required: true }), 'As the realm\'s password policy allows: 8 characters or more unless it says otherwise, and no common password.');

/** `record`: the username the URL names (`#/realms/{realm}/users/{username}`), opened at once. */
export async function usersView(realm: string, panel: HTMLElement, record?: string) {
  const secrets = h('div', { class: 'secrets' });
  const card = h('div');

  /**
   * The person's own roles and groups, each with a button that takes it away once confirmed,
   * and forms that give one of the realm's others.
   */
  function memberships(user: User, roles: string[], groups: string[]): HTMLElement {
    const reload = async () => showUser(await api.user(realm, user.username));
    type Change = (realm: string, username: string, name: string) => Promise<void>;
    const held = (kind: 'role' | 'group', names: string[], remove: Change, question: (name: string) => string) =>
      names.length === 0
        ? h('p', { class: 'empty' }, 'None.')
        : h('ul', {}, names.map((name) => h('li', {}, h('code', {}, name), ' ', h('button', {
            'data-operation': kind === 'role' ? 'revokeRole' : 'leaveGroup',
            type: 'button',
            'aria-label': 'Remove the ' + kind + ' ' + name + ' of ' + user.username,
            onclick: guarded(async () => {
              if (!(await confirmed(question(name), 'Remove'))) return;
              await remove(realm, user.username, name);
              await reload();
              say(user.username + (kind === 'role' ? ' no longer holds the role ' : ' is no longer in the group ') + name + '.');
            }),
          }, 'Remove'))));
    const adder = (kind: 'role' | 'group', available: string[], add: Change, done: string) => {
      if (available.length === 0) return h('p', { class: 'note' }, 'No other ' + kind + ' in the realm.');
      const form = h(
        'form',
        { class: 'inline', 'aria-label': (kind === 'role' ? 'Give ' : 'Add ') + user.username + (kind === 'role' ? ' a role' : ' to a group') },
        field(kind === 'role' ? 'Role' : 'Group', h('select', { name: kind }, available.map((name) => h('option', { value: name }, name)))),
        h('button', { 'data-operation': kind === 'role' ? 'grantRole' : 'joinGroup', type: 'submit' }, kind === 'role' ? 'Grant role' : 'Join group'),
      );
      form.addEventListener('submit', guarded(async () => {
        const name = valueOf(form, kind);
        await add(realm, user.username, name);
        await reload();
        say(user.username + done + name + '.');
      }));
      return form;
    };
    return h(
      'section',
      { 'aria-label': 'Roles and groups of ' + user.username },
      h('h4', {}, 'Roles and groups'),
      h('p', {}, 'Roles held, their own and through groups: ', user.effective_roles.length === 0 ? 'none' : user.effective_roles.join(', '), '.'),
      h('h5', {}, 'Own roles'),
      held('role', user.roles, api.revokeRole, (name) => 'Take the role ' + name + ' from ' + user.username + '? One held through a group stays.'),
      adder('role', roles.filter((name) => !user.roles.includes(name)), api.grantRole, ' now holds the role '),
      h('h5', {}, 'Groups'),
      held('group', user.groups, api.leaveGroup, (name) => 'Take ' + user.username + ' out of the group ' + name + '? They lose the roles it gave them.'),
      adder('group', groups.filter((name) => !user.groups.includes(name)), api.joinGroup, ' is now in the group '),
    );
  }

  /** The person's live sessions, and signing them out everywhere once confirmed. */
  function sessionsOf(user: User, sessions: UserSession[]): HTMLElement {
    const signOut = h('button', {
      'data-operation': 'endUserSessions',
      type: 'button',
      onclick: guarded(async () => {
        if (!(await confirmed('Sign ' + user.username + ' out everywhere? Each session ends, and the tokens issued in it are revoked.', 'Sign out'))) return;
        await api.endSessions(realm, user.username);
        await showUser(await api.user(realm, user.username));
        say(user.username + ' is signed out everywhere.');
      }),
    }, 'Sign out everywhere');
    return h(
      'section',
      { 'aria-label': 'Sessions of ' + user.username },
      h('h4', {}, 'Sessions'),
      table(
        'Sessions of ' + user.username,
        ['Signed in', 'Last seen', 'Expires', 'Journey', 'acr', 'amr', 'Clients'],
        sessions.map((session) => [localTime(session.created_at), localTime(session.last_seen_at), localTime(session.expires_at), session.journey, session.acr, session.amr.join(' '), session.clients.join(', ')]),
      ),
      sessions.length === 0 ? null : signOut,
    );
  }

  /** Enabling, or disabling once confirmed: a disabled person signs in nowhere. */
  function enabling(user: User): HTMLElement {
    const button = h('button', { 'data-operation': 'updateUser', type: 'button' }, user.enabled ? 'Disable' : 'Enable');
    button.addEventListener('click', guarded(async () => {
      if (user.enabled && !(await confirmed('Disable ' + user.username + '? They can sign in nowhere; their sessions end and their grants are revoked.', 'Disable'))) return;
      await showUser(await api.updateUser(realm, user.username, { enabled: !user.enabled }));
      await people.refresh();
      say(user.username + (user.enabled ? ' is disabled.' : ' is enabled.'));
    }));
    return button;
  }

  /** The person's record, with what may be done to them. */
  async function showUser(user: User): Promise<void> {
    const [roles, groups, { sessions }] = await Promise.all([api.roles(realm), api.groups(realm), api.sessions(realm, user.username)]);
    const reset = h('form', { 'aria-label': 'New password for ' + user.username }, h('h4', {}, 'Reset password'), password('New password'), h('button', { 'data-operation': 'updateUser', type: 'submit' }, 'Set password'));
    reset.addEventListener('submit', guarded(async () => {
      await api.updateUser(realm, user.username, { password: valueOf(reset, 'password') });
      setValue(reset, 'password', '');
      say('Password of ' + user.username + ' changed.');
    }));
    const totp = h('button', { 'data-operation': 'enrolTotp', type: 'button' }, 'Enrol TOTP');
    totp.addEventListener('click', guarded(async () => {
      const enrolment = await api.enrolTotp(realm, user.username);
      secrets.replaceChildren(
        secretBox('TOTP of ' + user.username, [['secret', enrolment.secret], ['otpauth URI', enrolment.otpauth_uri]]),
      );
      say('TOTP enrolled for ' + user.username + ': hand the secret or the URI to them; any earlier one is replaced.');
    }));
    const claims = h(
      'form',
      { 'aria-label': 'Claims of ' + user.username },
      h('h4', {}, 'Claims'),
      h('p', { class: 'note' }, 'What the ID token and userinfo say of them. An emptied field removes its claim.'),
      claimFields(user.claims),
      h('button', { 'data-operation': 'updateUser', type: 'submit' }, 'Save claims'),
    );
    claims.addEventListener('submit', guarded(async () => {
      const changes = claimChanges(user.claims, claimsOf(claims, user.claims));
      if (Object.keys(changes).length === 0) return say('Nothing changed.');
      await showUser(await api.updateUser(realm, user.username, { claims: changes }));
      say('Claims of ' + user.username + ' saved: ' + Object.keys(changes).join(', ') + '.');
    }));
    const identities = user.identities ?? [];
    card.replaceChildren(
      h(
        'section',
        { class: 'user', 'aria-label': 'User ' + user.username },
        h('h3', {}, user.username),
        h(
          'dl',
          {},
          h('dt', {}, 'sub'), h('dd', {}, h('code', {}, user.sub), ' ', copyButton(user.sub, 'the sub')),
          h('dt', {}, 'Claims'), h('dd', {}, claimList(user.claims)),
          h('dt', {}, 'Created'), h('dd', {}, localTime(user.created_at)),
          h('dt', {}, 'Updated'), h('dd', {}, localTime(user.updated_at)),
          h('dt', {}, 'Enabled'), h('dd', {}, user.enabled === false ? 'no: signs in nowhere' : 'yes'),
          h('dt', {}, 'Linked accounts'),
          h('dd', {}, identities.length === 0 ? 'None' : identities.map((identity) => h('div', {}, identity.provider + ': ', h('code', {}, identity.subject)))),
        ),
        claims,
        memberships(user, roles.map((role) => role.name), groups.map((group) => group.name)),
        sessionsOf(user, sessions),
        await operatorActions(realm, user, async () => showUser(await api.user(realm, user.username))),
        reset,
        h('h4', {}, 'One-time codes'),
        h('p', {}, 'A new TOTP secret, confirmed at once; the realm asks for codes when its authentication lists otp.'),
        totp,
        h('h4', {}, 'Disable or delete'),
        enabling(user),
        deleteButton(user.username, 'Delete ' + user.username + '? Their sessions end and their tokens stop working.', async () => {
          await api.deleteUser(realm, user.username);
          card.replaceChildren();
          secrets.replaceChildren();
          history.replaceState(null, '', listUrl);
          await people.refresh();
          say('User ' + user.username + ' deleted.');
        }, 'deleteUser'),
      ),
    );
  }

  // Each person has a URL of their own: opening one adds it to the history (the back button
  // shows the list again, through main.ts's hashchange), without rendering the tab again.
  const listUrl = '#/realms/' + encodeURIComponent(realm) + '/users';
  const urlOf = (username: string) => listUrl + '/' + encodeURIComponent(username);
  const open = async (username: string) => {
    secrets.replaceChildren();
    await showUser(await api.user(realm, username));
    if (!location.href.endsWith(urlOf(username))) history.pushState(null, '', urlOf(username));
  };
  const people = peopleList(realm, open);

  const create = h(
    'form',
    { 'aria-label': 'New user' },
    h('h3', {}, 'New user'),
    field('New username', h('input', { name: 'username', required: true, autocomplete: 'off' })),
    password('Password'),
    h('fieldset', {}, h('legend', {}, 'Claims (optional)'), claimFields({})),
    h('button', { 'data-operation': 'createUser', type: 'submit', class: 'primary' }, 'Create user'),
  );
  create.addEventListener('submit', guarded(async () => {
    const claims = claimsOf(create);
    const user = await api.createUser(realm, {
      username: valueOf(create, 'username').trim(),
      password: valueOf(create, 'password'),
      ...(Object.keys(claims).length > 0 ? { claims } : {}),
    });
    setValue(create, 'password', '');
    secrets.replaceChildren();
    await showUser(user);
    await people.refresh();
    say('User ' + user.username + ' created.');
  }));

  await people.refresh();
  panel.replaceChildren(people.element, secrets, card, create);
  if (record !== undefined) await open(record);
}

/**
 * The realm's people in the order of their usernames, searched by a part of the username,
 * email or name, a page at a time; a username opens the person.
 */
function peopleList(realm: string, open: (username: string) => Promise<void>) {
  const results = h('div');
  const search = h(
    'form',
    { class: 'inline', 'aria-label': 'Search people' },
    h('h3', {}, 'People'),
    field('Search', h('input', { name: 'search', type: 'search', maxlength: 255, autocomplete: 'off' }), 'A part of the username, the email or the name; empty: everyone.'),
    h('button', { type: 'submit' }, 'Search'),
  );
  const row = (user: User) => [
    h('button', { type: 'button', class: 'link', 'aria-label': 'Open ' + user.username, onclick: guarded(() => open(user.username)) }, user.username),
    typeof user.claims.email === 'string' ? user.claims.email : '',
    typeof user.claims.name === 'string' ? user.claims.name : '',
    user.enabled === false ? 'disabled' : 'enabled',
    localTime(user.created_at),
  ];

  const show = pagedTable(results, {
    caption: 'People',
    headings: ['Username', 'Email', 'Name', 'State', 'Created'],
    cursorParam: 'cursor',
    more: 'More people',
    fetchPage: async (query) => {
      const { users, next } = await api.users(realm, query);
      return { rows: users.map(row), next };
    },
  });

  const queryOf = () => {
    const text = valueOf(search, 'search').trim();
    return new URLSearchParams(text ? { search: text } : {});
  };
  search.addEventListener('submit', guarded(() => show(queryOf())));
  return { element: h('div', {}, search, results), refresh: () => show(queryOf()) };
}
