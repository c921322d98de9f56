import type { SafeHtml } from '../html.js';
import { html } from '../html.js';
import type { Messages } from '../i18n/index.js';
import { checkYourMailBody, enrolmentCodeBody } from '../self-service/check-your-mail.js';
import { registrationFields } from '../self-service/person-registration.js';
import type { ProviderButtonView, SignInView } from '../../authn/nodes/views.js';
import { codeField, enrolmentView, passkeyControl, passkeyNameField } from './controls.js';

export type { ProviderButtonView, SignInView } from '../../authn/nodes/views.js';

/** The title of a node's page. */
export const titleOf = (t: Messages, view: SignInView): string => t.signIn.titles[view.kind];

/** The body of a node's form (CONTRACT.md §4 names its fields). */
export function signInBody(t: Messages, view: SignInView): SafeHtml {
  switch (view.kind) {
    case 'password':
      return html`<label for="username">${t.signIn.username}</label>
<input id="username" name="username" autocomplete="username webauthn" autocapitalize="none" spellcheck="false" required value="${view.username}"${view.username ? '' : html` autofocus`}>
<label for="password">${t.signIn.password}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${view.username ? html` autofocus` : ''}>
<button class="primary" type="submit">${t.actions.signIn}</button>${accountLinks(t, view)}`;
    case 'otp':
      // A recovery code has letters, which a numeric keyboard cannot type: it has a field of its own.
      return html`${codeField(t.signIn.codeFromAuthenticator)}
<details>
<summary>${t.signIn.useRecoveryCode}</summary>
<label for="recovery_code">${t.signIn.recoveryCode}</label>
<input id="recovery_code" name="recovery_code" autocomplete="off" autocapitalize="none" spellcheck="false">
</details>
<button class="primary" type="submit">${t.signIn.verify}</button>`;
    case 'otp_enrolment':
      return html`<p>${t.signIn.otpEnrolmentLead}</p>
${enrolmentView(t, view)}
<button class="primary" type="submit">${t.actions.confirm}</button>`;
    case 'passkey':
      return passkeyBody(t, view);
    case 'choice':
      return html`<p>${t.signIn.chooseHow}</p>
${view.labels.map((label, index) => html`<button type="submit" name="option" value="${String(index)}"${index === 0 ? html` class="primary"` : ''}>${label}</button>\n`)}`;
    case 'identity_provider':
      return html`<p>${t.signIn.providerLead(view.provider.name)}</p>
${providerButton(t, view.provider, true)}`;
    case 'register':
      return registrationFields(t, view.kept);
    case 'email_verification':
      return checkYourMailBody(t);
    case 'enrolment_code':
      return enrolmentCodeBody(t, view.mailed);
  }
}

/** Beside the password form: a forgotten password, a new account (CONTRACT.md §9). */
function accountLinks(t: Messages, view: Extract<SignInView, { kind: 'password' }>): SafeHtml | '' {
  const links = [
    ...(view.reset ? [html`<a href="${view.reset}">${t.signIn.forgotPassword}</a>`] : []),
    ...(view.register ? [html`<a href="${view.register}">${t.signIn.createAccount}</a>`] : []),
  ];
  return links.length === 0 ? '' : html`
<p class="account-links">${links.map((link, index) => html`${index > 0 ? html` · ` : ''}${link}`)}</p>`;
}

function passkeyBody(t: Messages, view: Extract<SignInView, { kind: 'passkey' }>): SafeHtml {
  const unavailable = view.offerUnavailable
    ? html`\n<button type="submit" name="unavailable" value="1" formnovalidate>${t.passkey.noPasskey}</button>`
    : '';
  if (view.mode === 'register') {
    return html`<p>${t.passkey.registerLead}</p>
${passkeyNameField(t, false)}
${passkeyControl(t, { ceremony: 'registration', options: view.options, label: t.passkey.register, primary: true, noscript: t.passkey.registerNoscript })}`;
  }
  if (view.mode === 'second_factor') {
    return html`<p>${t.passkey.secondFactorLead}</p>
${passkeyControl(t, { ceremony: 'authentication', options: view.options, label: t.passkey.useYours, primary: true, noscript: t.passkey.secondFactorNoscript })}`;
  }
  return html`<p>${t.passkey.passwordlessLead}</p>
${passkeyControl(t, { ceremony: 'authentication', options: view.options, label: t.passkey.signIn, primary: true, noscript: t.passkey.passwordlessNoscript })}${unavailable}`;
}

/** A passwordless passkey offered beside a password form (another way through it). */
export function passkeyAlternativeBody(t: Messages, options: unknown): SafeHtml {
  return passkeyControl(t, { ceremony: 'authentication', options, label: t.passkey.signIn, primary: false, noscript: t.passkey.alternativeNoscript });
}

/** A provider offered beside a password form (another way through it), in a form of its own. */
export function providerAlternativeBody(t: Messages, provider: ProviderButtonView): SafeHtml {
  return providerButton(t, provider, false);
}

function providerButton(t: Messages, provider: ProviderButtonView, primary: boolean): SafeHtml {
  return html`<button type="submit" name="provider" value="${provider.alias}"${primary ? html` class="primary"` : ''}>${t.signIn.withProvider(provider.name)}</button>`;
}
