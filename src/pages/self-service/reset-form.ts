import { html } from '../html.js';
import type { Page } from '../layout.js';
import { errorBox, hiddenFields } from '../parts.js';

/** The page of a reset mail's link: the new password of the account it names (CONTRACT.md §9). */
export function resetFormPage(view: { realm: string; username: string; hidden: Record<string, string>; error?: string | undefined }): Page {
  return {
    options: { title: 'Choose a new password', realm: view.realm },
    body: html`${errorBox(view.error)}
<p>Choose a new password for <strong>${view.username}</strong>. You will be signed out everywhere else.</p>
<form method="post">
${hiddenFields(view.hidden)}
<input type="text" autocomplete="username" value="${view.username}" hidden>
<label for="password">New password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required autofocus>
<button class="primary" type="submit">Set the password</button>
</form>`,
  };
}
