import { type SafeHtml, html } from '../html.js';
import type { Messages } from '../i18n/index.js';
import { errorBox } from '../parts.js';
import { type AccountForm, csrfInput } from './form.js';
import type { AccountSubpage } from './page.js';

/** Whether the person has a password to change (one who signs in elsewhere may have none). */
export type PasswordSectionView = { readonly kind: 'change'; readonly form: AccountForm } | { readonly kind: 'none' };

/** The fields of a password change (CONTRACT.md §9): the current password, and the new one. */
function changeForm(t: Messages, form: AccountForm): SafeHtml {
  const texts = t.account.password;
  return html`<form method="post" action="${form.action}">
${csrfInput(form.csrf)}
<label for="current_password">${texts.current}</label>
<input id="current_password" name="current_password" type="password" autocomplete="current-password" required>
<label for="new_password">${texts.new}</label>
<input id="new_password" name="new_password" type="password" autocomplete="new-password" required>
<button type="submit">${texts.change}</button>
</form>`;
}

export function passwordSectionBody(t: Messages, view: PasswordSectionView): SafeHtml {
  if (view.kind === 'none') return html`<p>${t.account.password.none}</p>`;
  return html`<p>${t.account.password.signsOutElsewhere}</p>
${changeForm(t, view.form)}`;
}

/** The change again, with what was wrong. */
export function passwordChangePage(t: Messages, view: { form: AccountForm; error: string }): AccountSubpage {
  return { title: t.account.password.changeTitle, body: html`${errorBox(view.error)}\n${changeForm(t, view.form)}` };
}
