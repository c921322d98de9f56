import { type SafeHtml, html } from '../html.js';
import type { Messages } from '../i18n/index.js';

/**
 * The page at which a sign-in waits for the person's email address to be confirmed
 * (CONTRACT.md §9): continue once the mail's link is opened, or have the mail sent again.
 */
export function checkYourMailBody(t: Messages): SafeHtml {
  return html`<p>${t.emailVerification.lead}</p>
<button class="primary" type="submit">${t.actions.continue}</button>
<button type="submit" name="resend" value="1">${t.emailVerification.resend}</button>`;
}
