import { type SafeHtml, html } from '../html.js';
import type { Page } from '../layout.js';
import { errorBox, hiddenFields } from '../parts.js';

/** What a registration form shows again: what was typed, never the password. */
export interface RegistrationKept {
  readonly username: string;
  readonly email: string;
  readonly given_name: string;
  readonly family_name: string;
}

/** The registration fields (CONTRACT.md §9) and the button that creates the account: the page's and the `register` node's. */
export function registrationFields(kept: RegistrationKept): SafeHtml {
  return html`<label for="username">Username</label>
<input id="username" name="username" autocomplete="username" autocapitalize="none" spellcheck="false" maxlength="255" required value="${kept.username}"${kept.username ? '' : html` autofocus`}>
<label for="email">Email address</label>
<input id="email" name="email" type="email" autocomplete="email" autocapitalize="none" spellcheck="false" maxlength="254" required value="${kept.email}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required${kept.username ? html` autofocus` : ''}>
<label for="given_name">First name (optional)</label>
<input id="given_name" name="given_name" autocomplete="given-name" maxlength="100" value="${kept.given_name}">
<label for="family_name">Last name (optional)</label>
<input id="family_name" name="family_name" autocomplete="family-name" maxlength="100" value="${kept.family_name}">
<button class="primary" type="submit">Create account</button>`;
}

/** `{issuer}/register`: the form, and the way back to the sign-in it was reached from. */
export function registrationPage(view: { realm: string; hidden: Record<string, string>; kept: RegistrationKept; error?: string | undefined; signIn?: string | undefined }): Page {
  return {
    options: { title: 'Create an account', realm: view.realm },
    body: html`${errorBox(view.error)}
<form method="post">
${hiddenFields(view.hidden)}
${registrationFields(view.kept)}
</form>
${view.signIn ? html`<p><a href="${view.signIn}">Back to sign-in</a></p>` : ''}`,
  };
}
