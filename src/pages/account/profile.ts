import { type SafeHtml, html } from '../html.js';
import type { Messages } from '../i18n/index.js';
import { errorBox } from '../parts.js';
import { type AccountForm, csrfInput } from './form.js';
import type { AccountSubpage } from './page.js';

/** The person's name and email address as the account page shows them (CONTRACT.md §16). */
export interface ProfileView {
  readonly givenName: string;
  readonly familyName: string;
  readonly email: string | undefined;
  readonly emailVerified: boolean;
  readonly names: AccountForm;
  readonly changeEmail: AccountForm;
}

function namesForm(t: Messages, view: Pick<ProfileView, 'givenName' | 'familyName' | 'names'>): SafeHtml {
  const texts = t.account.profile;
  return html`<form method="post" action="${view.names.action}">
${csrfInput(view.names.csrf)}
<label for="given_name">${texts.givenName}</label>
<input id="given_name" name="given_name" autocomplete="given-name" maxlength="100" value="${view.givenName}">
<label for="family_name">${texts.familyName}</label>
<input id="family_name" name="family_name" autocomplete="family-name" maxlength="100" value="${view.familyName}">
<button type="submit">${texts.saveNames}</button>
</form>`;
}

function emailForm(t: Messages, form: AccountForm, value: string): SafeHtml {
  const texts = t.account.profile;
  return html`<form method="post" action="${form.action}">
${csrfInput(form.csrf)}
<label for="email">${texts.email}</label>
<input id="email" name="email" type="email" autocomplete="email" maxlength="254" required value="${value}" aria-describedby="email-hint">
<p id="email-hint" class="hint">${texts.emailHint}</p>
<button type="submit">${texts.changeEmail}</button>
</form>`;
}

export function profileSectionBody(t: Messages, view: ProfileView): SafeHtml {
  const texts = t.account.profile;
  const state = view.email === undefined ? texts.noEmail : view.emailVerified ? texts.confirmed : texts.unconfirmed;
  return html`${namesForm(t, view)}
<p class="email-state">${view.email === undefined ? '' : html`<strong>${view.email}</strong> `}${state}</p>
${emailForm(t, view.changeEmail, view.email ?? '')}`;
}

/** The names again, with what was wrong. */
export function namesPage(t: Messages, view: { form: AccountForm; givenName: string; familyName: string; error: string }): AccountSubpage {
  return { title: t.account.sections.profile, body: html`${errorBox(view.error)}\n${namesForm(t, { names: view.form, givenName: view.givenName, familyName: view.familyName })}` };
}

/** The address again, with what was wrong. */
export function emailChangePage(t: Messages, view: { form: AccountForm; email: string; error: string }): AccountSubpage {
  return { title: t.account.profile.changeEmailTitle, body: html`${errorBox(view.error)}\n${emailForm(t, view.form, view.email)}` };
}
