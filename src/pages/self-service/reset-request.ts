import { html } from '../html.js';
import type { Page } from '../layout.js';
import { errorBox, hiddenFields } from '../parts.js';

/** `{issuer}/reset`: the person names their account to receive a link (CONTRACT.md §9). */
export function resetRequestPage(view: { realm: string; hidden: Record<string, string>; error?: string | undefined; signIn?: string | undefined }): Page {
  return {
    options: { title: 'Reset your password', realm: view.realm, ...(view.error ? { status: 400 } : {}) },
    body: html`${errorBox(view.error)}
<p>Enter your username or email address. If it belongs to an account, we will mail a link to choose a new password.</p>
<form method="post">
${hiddenFields(view.hidden)}
<label for="username">Username or email address</label>
<input id="username" name="username" autocomplete="username" autocapitalize="none" spellcheck="false" required autofocus>
<button class="primary" type="submit">Send the link</button>
</form>
${view.signIn ? html`<p><a href="${view.signIn}">Back to sign-in</a></p>` : ''}`,
  };
}
