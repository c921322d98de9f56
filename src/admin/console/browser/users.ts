/**
 * The admin console's users module: a realm's people, searched a page at a time; one person's
 * record (claims, linked accounts, roles and groups, sessions), a new password, a TOTP
 * enrolment, disabling, deletion; a new person.
 */
import { api } from './api.js';
import { claimFields, claimsOf } from './person-claims.js';
import type { User, UserSession } from './records.js';
import { operatorActions } from './user-actions.js';
import { t } from './i18n.js';
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
    ? t('None')
    : Object.entries(claims).map(([claim, value]) => h('div', {}, h('code', {}, claim), ': ', typeof value === 'string' ? value : JSON.stringify(value)));

const password = (label: string) => field(label, h('input', { name: 'password', type: 'password', autocomplete: 'new-password', required: true }), t('As the realm\'s password policy allows: 8 characters or more unless it says otherwise, and no common password.'));

/** What the Roles and groups section says of one kind of membership, as whole sentences. */
const MEMBERSHIP = {
  role: {
    operation: { remove: 'revokeRole', add: 'grantRole' },
    removeLabel: (name: string, person: string) => t('Remove the role {name} of {person}', { name, person }),
    removed: (name: string, person: string) => t('{person} no longer holds the role {name}.', { name, person }),
    question: (name: string, person: string) => t('Take the role {name} from {person}? One held through a group stays.', { name, person }),
    none: () => t('No other role in the realm.'),
    form: (person: string) => t('Give {person} a role', { person }),
    field: () => t('Role'),
    button: () => t('Grant role'),
    added: (name: string, person: string) => t('{person} now holds the role {name}.', { name, person }),
  },
  group: {
    operation: { remove: 'leaveGroup', add: 'joinGroup' },
    removeLabel: (name: string, person: string) => t('Remove the group {name} of {person}', { name, person }),
    removed: (name: string, person: string) => t('{person} is no longer in the group {name}.', { name, person }),
    question: (name: string, person: string) => t('Take {person} out of the group {name}? They lose the roles it gave them.', { name, person }),
    none: () => t('No other group in the realm.'),
    form: (person: string) => t('Add {person} to a group', { person }),
    field: () => t('Group'),
    button: () => t('Join group'),
    added: (name: string, person: string) => t('{person} is now in the group {name}.', { name, person }),
  },
} as const;

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
    const person = user.username;
    const held = (kind: 'role' | 'group', names: string[], remove: Change) =>
      names.length === 0
        ? h('p', { class: 'empty' }, t('None.'))
        : h('ul', {}, names.map((name) => h('li', {}, h('code', {}, name), ' ', h('button', {
            'data-operation': MEMBERSHIP[kind].operation.remove,
            type: 'button',
            'aria-label': MEMBERSHIP[kind].removeLabel(name, person),
            onclick: guarded(async () => {
              if (!(await confirmed(MEMBERSHIP[kind].question(name, person), t('Remove')))) return;
              await remove(realm, person, name);
              await reload();
              say(MEMBERSHIP[kind].removed(name, person));
            }),
          }, t('Remove')))));
    const adder = (kind: 'role' | 'group', available: string[], add: Change) => {
      if (available.length === 0) return h('p', { class: 'note' }, MEMBERSHIP[kind].none());
      const form = h(
        'form',
        { class: 'inline', 'aria-label': MEMBERSHIP[kind].form(person) },
        field(MEMBERSHIP[kind].field(), h('select', { name: kind }, available.map((name) => h('option', { value: name }, name)))),
        h('button', { 'data-operation': MEMBERSHIP[kind].operation.add, type: 'submit' }, MEMBERSHIP[kind].button()),
      );
      form.addEventListener('submit', guarded(async () => {
        const name = valueOf(form, kind);
        await add(realm, person, name);
        await reload();
        say(MEMBERSHIP[kind].added(name, person));
      }));
      return form;
    };
    return h(
      'section',
      { 'aria-label': t('Roles and groups of {person}', { person }) },
      h('h4', {}, t('Roles and groups')),
      h('p', {}, user.effective_roles.length === 0 ? t('Roles held, their own and through groups: none.') : t('Roles held, their own and through groups: {roles}.', { roles: user.effective_roles.join(', ') })),
      h('h5', {}, t('Own roles')),
      held('role', user.roles, api.revokeRole),
      adder('role', roles.filter((name) => !user.roles.includes(name)), api.grantRole),
      h('h5', {}, t('Groups')),
      held('group', user.groups, api.leaveGroup),
      adder('group', groups.filter((name) => !user.groups.includes(name)), api.joinGroup),
    );
  }

  /** The person's live sessions, and signing them out everywhere once confirmed. */
  function sessionsOf(user: User, sessions: UserSession[]): HTMLElement {
    const signOut = h('button', {
      'data-operation': 'endUserSessions',
      type: 'button',
      onclick: guarded(async () => {
        if (!(await confirmed(t('Sign {person} out everywhere? Each session ends, and the tokens issued in it are revoked.', { person: user.username }), t('Sign out')))) return;
        await api.endSessions(realm, user.username);
        await showUser(await api.user(realm, user.username));
        say(t('{person} is signed out everywhere.', { person: user.username }));
      }),
    }, t('Sign out everywhere'));
    return h(
      'section',
      { 'aria-label': t('Sessions of {person}', { person: user.username }) },
      h('h4', {}, t('Sessions')),
      table(
        t('Sessions of {person}', { person: user.username }),
        [t('Signed in'), t('Last seen'), t('Expires'), t('Journey'), 'acr', 'amr', t('Clients')],
        sessions.map((session) => [localTime(session.created_at), localTime(session.last_seen_at), localTime(session.expires_at), session.journey, session.acr, session.amr.join(' '), session.clients.join(', ')]),
      ),
      sessions.length === 0 ? null : signOut,
    );
  }

  /** Enabling, or disabling once confirmed: a disabled person signs in nowhere. */
  function enabling(user: User): HTMLElement {
    const button = h('button', { 'data-operation': 'updateUser', type: 'button' }, user.enabled ? t('Disable') : t('Enable'));
    button.addEventListener('click', guarded(async () => {
      if (user.enabled && !(await confirmed(t('Disable {person}? They can sign in nowhere; their sessions end and their grants are revoked.', { person: user.username }), t('Disable')))) return;
      await showUser(await api.updateUser(realm, user.username, { enabled: !user.enabled }));
      await people.refresh();
      say(user.enabled ? t('{person} is disabled.', { person: user.username }) : t('{person} is enabled.', { person: user.username }));
    }));
    return button;
  }

  /** The person's record, with what may be done to them. */
  async function showUser(user: User): Promise<void> {
    const [roles, groups, { sessions }] = await Promise.all([api.roles(realm), api.groups(realm), api.sessions(realm, user.username)]);
    const reset = h('form', { 'aria-label': t('New password for {person}', { person: user.username }) }, h('h4', {}, t('Reset password')), password(t('New password')), h('button', { 'data-operation': 'updateUser', type: 'submit' }, t('Set password')));
    reset.addEventListener('submit', guarded(async () => {
      await api.updateUser(realm, user.username, { password: valueOf(reset, 'password') });
      setValue(reset, 'password', '');
      say(t('Password of {person} changed.', { person: user.username }));
    }));
    const totp = h('button', { 'data-operation': 'enrolTotp', type: 'button' }, t('Enrol TOTP'));
    totp.addEventListener('click', guarded(async () => {
      const enrolment = await api.enrolTotp(realm, user.username);
      secrets.replaceChildren(
        secretBox(t('TOTP of {person}', { person: user.username }), [['secret', enrolment.secret], ['otpauth URI', enrolment.otpauth_uri]]),
      );
      say(t('TOTP enrolled for {person}: hand the secret or the URI to them; any earlier one is replaced.', { person: user.username }));
    }));
    const claims = h(
      'form',
      { 'aria-label': t('Claims of {person}', { person: user.username }) },
      h('h4', {}, t('Claims')),
      h('p', { class: 'note' }, t('What the ID token and userinfo say of them. An emptied field removes its claim.')),
      claimFields(user.claims),
      h('button', { 'data-operation': 'updateUser', type: 'submit' }, t('Save claims')),
    );
    claims.addEventListener('submit', guarded(async () => {
      const changes = claimChanges(user.claims, claimsOf(claims, user.claims));
      if (Object.keys(changes).length === 0) return say(t('Nothing changed.'));
      await showUser(await api.updateUser(realm, user.username, { claims: changes }));
      say(t('Claims of {person} saved: {claims}.', { person: user.username, claims: Object.keys(changes).join(', ') }));
    }));
    const identities = user.identities ?? [];
    card.replaceChildren(
      h(
        'section',
        { class: 'user', 'aria-label': t('User {person}', { person: user.username }) },
        h('h3', {}, user.username),
        h(
          'dl',
          {},
          h('dt', {}, 'sub'), h('dd', {}, h('code', {}, user.sub), ' ', copyButton(user.sub, t('the sub'))),
          h('dt', {}, t('Claims')), h('dd', {}, claimList(user.claims)),
          h('dt', {}, t('Created')), h('dd', {}, localTime(user.created_at)),
          h('dt', {}, t('Updated')), h('dd', {}, localTime(user.updated_at)),
          h('dt', {}, t('Enabled')), h('dd', {}, user.enabled === false ? t('no: signs in nowhere') : t('yes')),
          h('dt', {}, t('Linked accounts')),
          h('dd', {}, identities.length === 0 ? t('None') : identities.map((identity) => h('div', {}, identity.provider + ': ', h('code', {}, identity.subject)))),
        ),
        claims,
        memberships(user, roles.map((role) => role.name), groups.map((group) => group.name)),
        sessionsOf(user, sessions),
        await operatorActions(realm, user, async () => showUser(await api.user(realm, user.username))),
        reset,
        h('h4', {}, t('One-time codes')),
        h('p', {}, t('A new TOTP secret, confirmed at once; the realm asks for codes when its authentication lists otp.')),
        totp,
        h('h4', {}, t('Disable or delete')),
        enabling(user),
        deleteButton(user.username, t('Delete {person}? Their sessions end and their tokens stop working.', { person: user.username }), async () => {
          await api.deleteUser(realm, user.username);
          card.replaceChildren();
          secrets.replaceChildren();
          history.replaceState(null, '', listUrl);
          await people.refresh();
          say(t('User {person} deleted.', { person: user.username }));
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
    { 'aria-label': t('New user') },
    h('h3', {}, t('New user')),
    field(t('New username'), h('input', { name: 'username', required: true, autocomplete: 'off' })),
    password(t('Password')),
    h('fieldset', {}, h('legend', {}, t('Claims (optional)')), claimFields({})),
    h('button', { 'data-operation': 'createUser', type: 'submit', class: 'primary' }, t('Create user')),
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
    say(t('User {person} created.', { person: user.username }));
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
    { class: 'inline', 'aria-label': t('Search people') },
    h('h3', {}, t('People')),
    field(t('Search'), h('input', { name: 'search', type: 'search', maxlength: 255, autocomplete: 'off' }), t('A part of the username, the email or the name; empty: everyone.')),
    h('button', { type: 'submit' }, t('Search')),
  );
  const row = (user: User) => [
    h('button', { type: 'button', class: 'link', 'aria-label': t('Open {person}', { person: user.username }), onclick: guarded(() => open(user.username)) }, user.username),
    typeof user.claims.email === 'string' ? user.claims.email : '',
    typeof user.claims.name === 'string' ? user.claims.name : '',
    user.enabled === false ? t('disabled') : t('enabled'),
    localTime(user.created_at),
  ];

  const show = pagedTable(results, {
    caption: t('People'),
    headings: [t('Username'), t('Email'), t('Name'), t('State'), t('Created')],
    cursorParam: 'cursor',
    more: t('More people'),
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
