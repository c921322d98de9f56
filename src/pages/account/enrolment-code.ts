import { type SafeHtml, html } from '../html.js';
import type { Messages } from '../i18n/index.js';
import { type AccountForm, csrfInput } from './form.js';

/**
 * In place of setting up a first second factor, until the code mailed to the person's verified
 * address is typed (src/account/enrolment-code.ts): the code's field, and a button that mails one.
 */
export function enrolmentCodeForm(t: Messages, form: AccountForm): SafeHtml {
  return html`<p>${t.account.enrolmentCode.lead}</p>
<form method="post" action="${form.action}">
${csrfInput(form.csrf)}
<label>${t.enrolmentCode.codeFromMail} <input name="otp" autocomplete="one-time-code" inputmode="numeric" autocapitalize="none" spellcheck="false"></label>
<button type="submit">${t.account.enrolmentCode.confirm}</button>
<button type="submit" name="resend" value="1">${t.account.enrolmentCode.send}</button>
</form>`;
}
