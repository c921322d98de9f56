import { html } from '../html.js';
import type { Messages } from '../i18n/index.js';
import type { Page } from '../layout.js';
import { errorBox, hiddenFields } from '../parts.js';

/** The page of a reset mail's link: the new password of the account it names (CONTRACT.md §9). */
export function resetFormPage(t: Messages, view: { username: string; hidden: Record<string, string>; error?: string | undefined }): Page {
  return {
    options: { t, title: t.reset.formTitle },
    body: html`${errorBox(view.error)}
<p>${t.reset.formLead(html`<strong>${view.username}</strong>`)}</p>
<form method="post">
${hiddenFields(view.hidden)}
<input type="text" autocomplete="username" value="${view.username}" hidden>
<label for="password">${t.reset.newPassword}</label>
<input id="password" name="password" type="password" autocomplete="new-password" required autofocus>
<button class="primary" type="submit">${t.reset.setPassword}</button>
</form>`,
  };
}
