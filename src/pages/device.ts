import { html } from './html.js';
import type { Messages } from './i18n/index.js';
import type { Page } from './layout.js';
import { errorBox, hiddenFields } from './parts.js';

/** RFC 8628 §3.3: where the person types the code their device shows. */
export function deviceCodePage(
  t: Messages,
  input: {
    hidden: Record<string, string>;
    userCode?: string | undefined;
    error?: string | undefined;
    status?: number | undefined;
  },
): Page {
  return {
    options: { t, title: t.device.title, status: input.status ?? 200 },
    body: html`${errorBox(input.error)}
<form method="post">
${hiddenFields(input.hidden)}
<label for="user_code">${t.device.codeLabel}</label>
<input id="user_code" name="user_code" class="user-code" autocomplete="off" autocapitalize="characters" spellcheck="false" required autofocus placeholder="XXXX-XXXX" value="${input.userCode ?? ''}">
<button class="primary" type="submit">${t.actions.continue}</button>
</form>`,
  };
}
