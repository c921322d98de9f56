import { type SafeHtml, html } from '../html.js';
import type { Messages } from '../i18n/index.js';
import { passkeyControl, passkeyNameField } from '../sign-in/controls.js';
import { enrolmentCodeForm } from './enrolment-code.js';
import { type AccountForm, csrfInput, textWithDates } from './form.js';

export interface PasskeyView {
  readonly name: string;
  /** Synced to the person's other devices (the authenticator's BS flag). */
  readonly synced: boolean;
  readonly addedAt: Date;
  readonly lastUsedAt: Date | undefined;
  /** base64url, as the delete form posts it. */
  readonly credentialId: string;
}

export interface PasskeysSectionView {
  readonly passkeys: readonly PasskeyView[];
  /** The delete form of every passkey: one action, one CSRF token. */
  readonly remove: AccountForm;
  /**
   * Adding one: none at the limit; with a sign-in older than the realm allows, a form that
   * signs the person in again first; otherwise the WebAuthn registration with its options.
   */
  readonly add:
    | { readonly kind: 'at-limit' }
    | { readonly kind: 'sign-in-again'; readonly form: AccountForm }
    /** A first second factor waits for the mailed code (src/account/enrolment-code.ts). */
    | { readonly kind: 'code-first'; readonly code: AccountForm }
    | { readonly kind: 'register'; readonly form: AccountForm; readonly options: unknown };
}

function item(t: Messages, passkey: PasskeyView, remove: AccountForm): SafeHtml {
  const texts = t.account.passkeys;
  const used = passkey.lastUsedAt ? textWithDates(t, [passkey.lastUsedAt], (when) => texts.lastUsed(when!)) : texts.neverUsed;
  return html`<li><strong>${passkey.name}</strong>${passkey.synced ? texts.synced : ''}: ${textWithDates(t, [passkey.addedAt], (when) => texts.added(when!))}, ${used}
<form method="post" action="${remove.action}">
${csrfInput(remove.csrf)}
<input type="hidden" name="credential_id" value="${passkey.credentialId}">
<button type="submit">${texts.delete(passkey.name)}</button>
</form></li>`;
}

export function passkeysSectionBody(t: Messages, view: PasskeysSectionView): SafeHtml {
  const texts = t.account.passkeys;
  const list =
    view.passkeys.length > 0 ? html`<ul class="passkeys">${view.passkeys.map((passkey) => item(t, passkey, view.remove))}</ul>` : html`<p>${texts.none}</p>`;
  const { add } = view;
  switch (add.kind) {
    case 'at-limit':
      return list;
    case 'code-first':
      return html`${list}
${enrolmentCodeForm(t, add.code)}`;
    case 'sign-in-again':
      return html`${list}
<form method="post" action="${add.form.action}">
${csrfInput(add.form.csrf)}
<button type="submit">${texts.signInAgainToAdd}</button>
</form>`;
    case 'register':
      return html`${list}
<form method="post" action="${add.form.action}">
${csrfInput(add.form.csrf)}
${passkeyNameField(t, true)}
${passkeyControl(t, { ceremony: 'registration', options: add.options, label: texts.add, primary: false, noscript: texts.addNoscript })}
</form>`;
  }
}
