import { type SafeHtml, html } from '../html.js';
import type { Messages } from '../i18n/index.js';
import type { Page } from '../layout.js';
import { errorBox, hiddenFields } from '../parts.js';
import type { RegistrationKept } from '../../authn/nodes/views.js';

export type { RegistrationKept } from '../../authn/nodes/views.js';


/** The registration fields (CONTRACT.md §9) and the button that creates the account: the page's and the `register` node's. */
export function registrationFields(t: Messages, kept: RegistrationKept): SafeHtml {
  return html`<label for="username">${t.signIn.username}</label>
<input id="username" name="username" autocomplete="username" autocapitalize="none" spellcheck="false" maxlength="255" required value="${kept.username}"${kept.username ? '' : html` autofocus`}>
<label for="email">${t.register.email}</label>
<input id="email" name="email" type="email" autocomplete="email" autocapitalize="none" spellcheck="false" maxlength="254" required value="${kept.email}">
<label for="password">${t.signIn.password}</label>
<input id="password" name="password" type="password" autocomplete="new-password" required${kept.username ? html` autofocus` : ''}>
<label for="given_name">${t.register.givenName}</label>
<input id="given_name" name="given_name" autocomplete="given-name" maxlength="100" value="${kept.given_name}">
<label for="family_name">${t.register.familyName}</label>
<input id="family_name" name="family_name" autocomplete="family-name" maxlength="100" value="${kept.family_name}">
<button class="primary" type="submit">${t.register.submit}</button>`;
}

/** `{issuer}/register`: the form, and the way back to the sign-in it was reached from. */
export function registrationPage(t: Messages, view: { hidden: Record<string, string>; kept: RegistrationKept; error?: string | undefined; signIn?: string | undefined }): Page {
  return {
    options: { t, title: t.register.title },
    body: html`${errorBox(view.error)}
<form method="post">
${hiddenFields(view.hidden)}
${registrationFields(t, view.kept)}
</form>
${view.signIn ? html`<p><a href="${view.signIn}">${t.actions.backToSignIn}</a></p>` : ''}`,
  };
}
