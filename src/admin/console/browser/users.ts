/**
 * `users.js` of the admin console: a new person, and one found by username (the admin API
 * reads users one at a time): their record, a new password, a TOTP enrolment.
 */
export const USERS_JS = String.raw`import { api } from './api.js';
import { deleteButton, field, guarded, h, jsonObject, same, say, secretBox } from './dom.js';

const CLAIMS_EXAMPLE = '{"name": "Alice", "email": "alice@example.com"}';

/** Claims typed as a JSON object; empty: none. */
const claimsOf = (text) => jsonObject(text, 'Claims');

/** The claims that change from one set to another; a claim taken out is removed with null. */
function claimChanges(current, wanted) {
  const changes = {};
  for (const name of Object.keys(current)) if (!Object.hasOwn(wanted, name)) changes[name] = null;
  for (const [name, value] of Object.entries(wanted)) if (!same(value, current[name])) changes[name] = value;
  return changes;
}

const password = (label) => field(label, h('input', { name: 'password', type: 'password', autocomplete: 'new-password', required: true }), 'As the realm\'s password policy allows: 8 characters or more unless it says otherwise, and no common password.');

export async function usersView(realm, panel) {
  const secrets = h('div', { class: 'secrets' });
  const card = h('div');

  /** The person's record, with what may be done to them. */
  function showUser(user) {
    const reset = h('form', { 'aria-label': 'New password for ' + user.username }, h('h4', {}, 'Reset password'), password('New password'), h('button', { type: 'submit' }, 'Set password'));
    reset.addEventListener('submit', guarded(async () => {
      await api.updateUser(realm, user.username, { password: reset.elements.password.value });
      reset.elements.password.value = '';
      say('Password of ' + user.username + ' changed.');
    }));
    const totp = h('button', { type: 'button' }, 'Enrol TOTP');
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
      field('Claims (JSON)', h('textarea', { name: 'claims', rows: 5, spellcheck: 'false', class: 'code', value: JSON.stringify(user.claims, null, 2) }), 'What the ID token and userinfo say of them. A claim taken out is removed.'),
      h('button', { type: 'submit' }, 'Save claims'),
    );
    claims.addEventListener('submit', guarded(async () => {
      const changes = claimChanges(user.claims, claimsOf(claims.elements.claims.value) ?? {});
      if (Object.keys(changes).length === 0) return say('Nothing changed.');
      showUser(await api.updateUser(realm, user.username, { claims: changes }));
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
          h('dt', {}, 'sub'), h('dd', {}, h('code', {}, user.sub)),
          h('dt', {}, 'Claims'), h('dd', {}, h('pre', {}, JSON.stringify(user.claims, null, 2))),
          h('dt', {}, 'Created'), h('dd', {}, user.created_at),
          h('dt', {}, 'Updated'), h('dd', {}, user.updated_at),
          h('dt', {}, 'Linked accounts'),
          h('dd', {}, identities.length === 0 ? 'None' : identities.map((identity) => h('div', {}, identity.provider + ': ', h('code', {}, identity.subject)))),
        ),
        claims,
        reset,
        h('h4', {}, 'One-time codes'),
        h('p', {}, 'A new TOTP secret, confirmed at once; the realm asks for codes when its authentication lists otp.'),
        totp,
        h('h4', {}, 'Delete'),
        deleteButton(user.username, 'Delete ' + user.username + '? Their sessions end and their tokens stop working.', async () => {
          await api.deleteUser(realm, user.username);
          card.replaceChildren();
          secrets.replaceChildren();
          say('User ' + user.username + ' deleted.');
        }),
      ),
    );
  }

  const username = h('input', { name: 'username', required: true, autocomplete: 'off' });
  const find = h('form', { class: 'inline', 'aria-label': 'Find a user' }, h('h3', {}, 'Find a user'), field('Username', username), h('button', { type: 'submit' }, 'Find'));
  find.addEventListener('submit', guarded(async () => {
    secrets.replaceChildren();
    showUser(await api.user(realm, username.value.trim()));
  }));

  const create = h(
    'form',
    { 'aria-label': 'New user' },
    h('h3', {}, 'New user'),
    field('New username', h('input', { name: 'username', required: true, autocomplete: 'off' })),
    password('Password'),
    field('Claims', h('textarea', { name: 'claims', rows: 3, placeholder: CLAIMS_EXAMPLE }), 'Optional: a JSON object.'),
    h('button', { type: 'submit', class: 'primary' }, 'Create user'),
  );
  create.addEventListener('submit', guarded(async () => {
    const claims = claimsOf(create.elements.claims.value);
    const user = await api.createUser(realm, {
      username: create.elements.username.value.trim(),
      password: create.elements.password.value,
      ...(claims ? { claims } : {}),
    });
    create.elements.password.value = '';
    secrets.replaceChildren();
    showUser(user);
    say('User ' + user.username + ' created.');
  }));

  panel.replaceChildren(
    h('p', { class: 'note' }, 'The admin API reads people one at a time, by username.'),
    find,
    secrets,
    card,
    create,
  );
}
`;
