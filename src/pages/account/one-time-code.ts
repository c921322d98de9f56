import { type SafeHtml, html } from '../html.js';
import { errorBox } from '../parts.js';
import { enrolmentView } from '../sign-in/controls.js';
import { type AccountForm, csrfInput, utcDay } from './form.js';
import type { AccountSubpage } from './page.js';

/** Whether an authenticator app gives the person codes, and the one form that changes it. */
export type OneTimeCodeSectionView =
  | { readonly kind: 'set-up'; readonly confirmedAt: Date; readonly remove: AccountForm }
  | { readonly kind: 'none'; readonly enrol: AccountForm };

export function oneTimeCodeSectionBody(view: OneTimeCodeSectionView): SafeHtml {
  if (view.kind === 'set-up') {
    return html`<p>An authenticator app gives you one-time codes (set up on ${utcDay(view.confirmedAt)}).</p>
<form method="post" action="${view.remove.action}">
${csrfInput(view.remove.csrf)}
<button type="submit">Remove the authenticator app</button>
</form>`;
  }
  return html`<p>No authenticator app is set up.</p>
<form method="post" action="${view.enrol.action}">
${csrfInput(view.enrol.csrf)}
<button type="submit">Set up an authenticator app</button>
</form>`;
}

/** The pending secret, shown to be added to an app, and the field for its first code. */
export function otpEnrolmentPage(view: { confirm: AccountForm; otpauthUri: string; secretBase32: string; error?: string | undefined }): AccountSubpage {
  return {
    title: 'Set up an authenticator app',
    body: html`${view.error ? html`${errorBox(view.error)}\n` : ''}<form method="post" action="${view.confirm.action}">
${csrfInput(view.confirm.csrf)}
${enrolmentView(view)}
<button class="primary" type="submit">Confirm</button>
</form>`,
  };
}
