import { type SafeHtml, html } from '../html.js';
import type { Messages } from '../i18n/index.js';
import { codeField } from '../sign-in/controls.js';

/**
 * The page at which a sign-in waits for the person's email address to be confirmed
 * (CONTRACT.md §9): continue once the mail's link is opened, or have the mail sent again.
 */
export function checkYourMailBody(t: Messages): SafeHtml {
  return html`<p>${t.emailVerification.lead}</p>
<button class="primary" type="submit">${t.actions.continue}</button>
<button type="submit" name="resend" value="1">${t.emailVerification.resend}</button>`;
}

/**
 * The page before a first second factor is enrolled during a sign-in (CONTRACT.md §8): the
 * code mailed to the person's verified address, or have another sent.
 */
export function enrolmentCodeBody(t: Messages, mailed: 'sent' | 'limited' | 'failed' | 'spent'): SafeHtml {
  const texts = t.enrolmentCode;
  const status = mailed === 'sent' ? '' : html`<p class="error" role="alert">${mailed === 'limited' ? texts.tooMany : mailed === 'failed' ? texts.notSent : texts.expired}</p>\n`;
  return html`${status}<p>${texts.lead}</p>
${codeField(texts.codeFromMail)}
<button class="primary" type="submit">${t.signIn.verify}</button>
<button type="submit" name="resend" value="1">${texts.resend}</button>`;
}
