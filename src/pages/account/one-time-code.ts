import { type SafeHtml, html } from '../html.js';
import type { Messages } from '../i18n/index.js';
import { errorBox } from '../parts.js';
import { enrolmentView } from '../sign-in/controls.js';
import { enrolmentCodeForm } from './enrolment-code.js';
import { type AccountForm, csrfInput, textWithDates } from './form.js';
import type { AccountSubpage } from './page.js';

/** Whether an authenticator app gives the person codes, and the one form that changes it. */
export type OneTimeCodeSectionView =
  | { readonly kind: 'set-up'; readonly confirmedAt: Date; readonly remove: AccountForm }
  | { readonly kind: 'none'; readonly enrol: AccountForm }
  /** No app, and a first second factor waits for the mailed code (src/account/enrolment-code.ts). */
  | { readonly kind: 'code-first'; readonly code: AccountForm };

export function oneTimeCodeSectionBody(t: Messages, view: OneTimeCodeSectionView): SafeHtml {
  const texts = t.account.oneTimeCode;
  if (view.kind === 'set-up') {
    return html`<p>${textWithDates(t, [view.confirmedAt], (day) => texts.setUp(day!), 'day')}</p>
<form method="post" action="${view.remove.action}">
${csrfInput(view.remove.csrf)}
<button type="submit">${texts.remove}</button>
</form>`;
  }
  if (view.kind === 'code-first') return html`<p>${texts.none}</p>
${enrolmentCodeForm(t, view.code)}`;
  return html`<p>${texts.none}</p>
<form method="post" action="${view.enrol.action}">
${csrfInput(view.enrol.csrf)}
<button type="submit">${texts.enrol}</button>
</form>`;
}

/** The pending secret, shown to be added to an app, and the field for its first code. */
export function otpEnrolmentPage(
  t: Messages,
  view: { confirm: AccountForm; otpauthUri: string; secretBase32: string; error?: string | undefined },
): AccountSubpage {
  return {
    title: t.account.oneTimeCode.enrolTitle,
    body: html`${view.error ? html`${errorBox(view.error)}\n` : ''}<form method="post" action="${view.confirm.action}">
${csrfInput(view.confirm.csrf)}
${enrolmentView(t, view)}
<button class="primary" type="submit">${t.actions.confirm}</button>
</form>`,
  };
}
