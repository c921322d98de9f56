import { html } from './html.js';
import type { Page } from './layout.js';
import { errorBox, hiddenFields } from './parts.js';

/** RFC 8628 §3.3: where the person types the code their device shows. */
export function deviceCodePage(input: {
  realm: string;
  hidden: Record<string, string>;
  userCode?: string;
  error?: string;
  status?: number;
}): Page {
  return {
    options: { title: 'Connect a device', realm: input.realm, status: input.status ?? 200 },
    body: html`${errorBox(input.error)}
<form method="post">
${hiddenFields(input.hidden)}
<label for="user_code">Enter the code shown on your device</label>
<input id="user_code" name="user_code" class="user-code" autocomplete="off" autocapitalize="characters" spellcheck="false" required autofocus placeholder="XXXX-XXXX" value="${input.userCode ?? ''}">
<button class="primary" type="submit">Continue</button>
</form>`,
  };
}
