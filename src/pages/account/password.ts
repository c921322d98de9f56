import { type SafeHtml, html } from '../html.js';
import { errorBox } from '../parts.js';
import { type AccountForm, csrfInput } from './form.js';
import type { AccountSubpage } from './page.js';

/** Whether the person has a password to change (one who signs in elsewhere may have none). */
export type PasswordSectionView = { readonly kind: 'change'; readonly form: AccountForm } | { readonly kind: 'none' };

/** The fields of a password change (CONTRACT.md §9): the current password, and the new one. */
function changeForm(form: AccountForm): SafeHtml {
  return html`<form method="post" action="${form.action}">
${csrfInput(form.csrf)}
<label for="current_password">Current password</label>
<input id="current_password" name="current_password" type="password" autocomplete="current-password" required>
<label for="new_password">New password</label>
<input id="new_password" name="new_password" type="password" autocomplete="new-password" required>
<button type="submit">Change the password</button>
</form>`;
}

export function passwordSectionBody(view: PasswordSectionView): SafeHtml {
  if (view.kind === 'none') return html`<p>Your account has no password: you sign in another way.</p>`;
  return html`<p>Changing it signs you out everywhere else.</p>
${changeForm(view.form)}`;
}

/** The change again, with what was wrong. */
export function passwordChangePage(view: { form: AccountForm; error: string }): AccountSubpage {
  return { title: 'Change your password', body: html`${errorBox(view.error)}\n${changeForm(view.form)}` };
}
