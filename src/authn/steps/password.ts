import { html } from '../../pages/html.js';
import type { UserStore } from '../../store/users.js';
import { PASSWORD_AMR, verifyPassword } from '../password.js';
import type { SignInStep } from '../steps.js';

/** One message whatever was wrong, so that the page does not tell which usernames exist. */
export const WRONG_CREDENTIALS = 'The username or password is incorrect.';

/** The `password` step (CONTRACT.md §4): `input[name=username]` and `input[name=password]`, checked with argon2id. */
export function passwordStep(users: UserStore): SignInStep {
  return {
    name: 'password',
    fields: ['username', 'password'],
    account: (form) => form.username,
    async render(_context, shown) {
      const username = shown.username ?? '';
      return {
        body: html`<label for="username">Username</label>
<input id="username" name="username" autocomplete="username webauthn" autocapitalize="none" spellcheck="false" required value="${username}"${username ? '' : html` autofocus`}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${username ? html` autofocus` : ''}>
<button class="primary" type="submit">Sign in</button>`,
      };
    },
    async submit(context, form) {
      if (form.username === undefined || form.password === undefined) return { error: 'Enter your username and password.', failure: false };
      const user = await verifyPassword(users, context.realm.name, form.username, form.password);
      if (!user) return { error: WRONG_CREDENTIALS, failure: true };
      return { passed: { userId: user.id, amr: PASSWORD_AMR } };
    },
  };
}
