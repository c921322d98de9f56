import { html } from '../html.js';
import type { Messages } from '../i18n/index.js';
import type { Page } from '../layout.js';
import { errorBox, hiddenFields } from '../parts.js';

/** `{issuer}/reset`: the person names their account to receive a link (CONTRACT.md §9). */
export function resetRequestPage(t: Messages, view: { hidden: Record<string, string>; error?: string | undefined; signIn?: string | undefined }): Page {
  return {
    options: { t, title: t.reset.title, ...(view.error ? { status: 400 } : {}) },
    body: html`${errorBox(view.error)}
<p>${t.reset.lead}</p>
<form method="post">
${hiddenFields(view.hidden)}
<label for="username">${t.reset.nameLabel}</label>
<input id="username" name="username" autocomplete="username" autocapitalize="none" spellcheck="false" required autofocus>
<button class="primary" type="submit">${t.reset.send}</button>
</form>
${view.signIn ? html`<p><a href="${view.signIn}">${t.actions.backToSignIn}</a></p>` : ''}`,
  };
}
