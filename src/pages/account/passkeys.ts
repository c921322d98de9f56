import { type SafeHtml, html } from '../html.js';
import { passkeyControl, passkeyNameField } from '../sign-in/controls.js';
import { type AccountForm, csrfInput, utcMinute } from './form.js';

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
    | { readonly kind: 'register'; readonly form: AccountForm; readonly options: unknown };
}

const item = (passkey: PasskeyView, remove: AccountForm) => html`<li><strong>${passkey.name}</strong>${passkey.synced ? ' (synced)' : ''}: added ${utcMinute(passkey.addedAt)}, ${
  passkey.lastUsedAt ? `last used ${utcMinute(passkey.lastUsedAt)}` : 'never used'
}
<form method="post" action="${remove.action}">
${csrfInput(remove.csrf)}
<input type="hidden" name="credential_id" value="${passkey.credentialId}">
<button type="submit">Delete ${passkey.name}</button>
</form></li>`;

export function passkeysSectionBody(view: PasskeysSectionView): SafeHtml {
  const list =
    view.passkeys.length > 0 ? html`<ul class="passkeys">${view.passkeys.map((passkey) => item(passkey, view.remove))}</ul>` : html`<p>You have no passkeys.</p>`;
  const { add } = view;
  switch (add.kind) {
    case 'at-limit':
      return list;
    case 'sign-in-again':
      return html`${list}
<form method="post" action="${add.form.action}">
${csrfInput(add.form.csrf)}
<button type="submit">Sign in again to add a passkey</button>
</form>`;
    case 'register':
      return html`${list}
<form method="post" action="${add.form.action}">
${csrfInput(add.form.csrf)}
${passkeyNameField(true)}
${passkeyControl({
  ceremony: 'registration',
  options: add.options,
  label: 'Add a passkey',
  primary: false,
  noscript: 'Adding a passkey needs JavaScript, which is turned off in this browser.',
})}
</form>`;
  }
}
