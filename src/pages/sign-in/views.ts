import type { SafeHtml } from '../html.js';
import { html } from '../html.js';
import { checkYourMailBody } from '../self-service/check-your-mail.js';
import { type RegistrationKept, registrationFields } from '../self-service/registration.js';
import { codeField, enrolmentView, passkeyControl, passkeyNameField } from './controls.js';

/** What a node of a journey shows (src/authn/nodes/ builds these; nothing here decides). */
export type SignInView =
  /** `register`, `reset`: the links to `{issuer}/register` and `{issuer}/reset` when the realm offers them (CONTRACT.md §9). */
  | { readonly kind: 'password'; readonly username: string; readonly register?: string; readonly reset?: string }
  | { readonly kind: 'otp' }
  | { readonly kind: 'otp_enrolment'; readonly otpauthUri: string; readonly secretBase32: string }
  /** `passwordless`: no one known yet; `second_factor`: the known person's passkey; `register`: they have none. */
  | { readonly kind: 'passkey'; readonly mode: 'passwordless' | 'second_factor' | 'register'; readonly options: unknown; readonly offerUnavailable: boolean }
  | { readonly kind: 'choice'; readonly labels: readonly string[] }
  /** An `identity_provider` node: sign-in at that upstream provider (CONTRACT.md §10). */
  | { readonly kind: 'identity_provider'; readonly provider: ProviderButtonView }
  /** A `register` node: the registration form, with what was typed (CONTRACT.md §9). */
  | { readonly kind: 'register'; readonly kept: RegistrationKept }
  /** An `email_verification` node: check the mail, or have it sent again. */
  | { readonly kind: 'email_verification' };

/** A provider's button: `button[name=provider][value=<alias>]` (CONTRACT.md §10). */
export interface ProviderButtonView {
  readonly alias: string;
  readonly name: string;
}

export const TITLES: Readonly<Record<SignInView['kind'], string>> = {
  password: 'Sign in',
  otp: 'One-time code',
  otp_enrolment: 'One-time code',
  passkey: 'Passkey',
  choice: 'Sign in',
  identity_provider: 'Sign in',
  register: 'Create an account',
  email_verification: 'Confirm your email address',
};

/** The body of a node's form (CONTRACT.md §4 names its fields). */
export function signInBody(view: SignInView): SafeHtml {
  switch (view.kind) {
    case 'password':
      return html`<label for="username">Username</label>
<input id="username" name="username" autocomplete="username webauthn" autocapitalize="none" spellcheck="false" required value="${view.username}"${view.username ? '' : html` autofocus`}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${view.username ? html` autofocus` : ''}>
<button class="primary" type="submit">Sign in</button>${accountLinks(view)}`;
    case 'otp':
      // A recovery code has letters, which a numeric keyboard cannot type: it has a field of its own.
      return html`${codeField('Code from your authenticator app')}
<details>
<summary>Use a recovery code</summary>
<label for="recovery_code">Recovery code</label>
<input id="recovery_code" name="recovery_code" autocomplete="off" autocapitalize="none" spellcheck="false">
</details>
<button class="primary" type="submit">Verify</button>`;
    case 'otp_enrolment':
      return html`<p><strong>Set up an authenticator app</strong>: this sign-in asks for a one-time code.</p>
${enrolmentView(view)}
<button class="primary" type="submit">Confirm</button>`;
    case 'passkey':
      return passkeyBody(view);
    case 'choice':
      return html`<p>How do you want to sign in?</p>
${view.labels.map((label, index) => html`<button type="submit" name="option" value="${String(index)}"${index === 0 ? html` class="primary"` : ''}>${label}</button>\n`)}`;
    case 'identity_provider':
      return html`<p>Sign in with your account at ${view.provider.name}.</p>
${providerButton(view.provider, true)}`;
    case 'register':
      return registrationFields(view.kept);
    case 'email_verification':
      return checkYourMailBody();
  }
}

/** Beside the password form: a forgotten password, a new account (CONTRACT.md §9). */
function accountLinks(view: Extract<SignInView, { kind: 'password' }>): SafeHtml | '' {
  const links = [
    ...(view.reset ? [html`<a href="${view.reset}">Forgot your password?</a>`] : []),
    ...(view.register ? [html`<a href="${view.register}">Create an account</a>`] : []),
  ];
  return links.length === 0 ? '' : html`
<p class="account-links">${links.map((link, index) => html`${index > 0 ? html` · ` : ''}${link}`)}</p>`;
}

function passkeyBody(view: Extract<SignInView, { kind: 'passkey' }>): SafeHtml {
  const unavailable = view.offerUnavailable
    ? html`\n<button type="submit" name="unavailable" value="1" formnovalidate>I have no passkey</button>`
    : '';
  if (view.mode === 'register') {
    return html`<p><strong>Register a passkey</strong>: this sign-in asks for one, and your account has none yet. Create it on this device, your phone or a security key.</p>
${passkeyNameField(false)}
${passkeyControl({
  ceremony: 'registration',
  options: view.options,
  label: 'Register a passkey',
  primary: true,
  noscript: 'Registering a passkey needs JavaScript, which is turned off in this browser: this sign-in cannot go on without it.',
})}`;
  }
  if (view.mode === 'second_factor') {
    return html`<p>Confirm that it is you with your passkey.</p>
${passkeyControl({
  ceremony: 'authentication',
  options: view.options,
  label: 'Use your passkey',
  primary: true,
  noscript: 'This sign-in asks for a passkey, which needs JavaScript: it is turned off in this browser, so the sign-in cannot go on.',
})}`;
  }
  return html`<p>Sign in with a passkey saved on this device, your phone or a security key.</p>
${passkeyControl({
  ceremony: 'authentication',
  options: view.options,
  label: 'Sign in with a passkey',
  primary: true,
  noscript: 'Signing in with a passkey needs JavaScript, which is turned off in this browser: this sign-in cannot go on without it.',
})}${unavailable}`;
}

/** A passwordless passkey offered beside a password form (another way through it). */
export function passkeyAlternativeBody(options: unknown): SafeHtml {
  return passkeyControl({
    ceremony: 'authentication',
    options,
    label: 'Sign in with a passkey',
    primary: false,
    noscript: 'Signing in with a passkey needs JavaScript, which is turned off in this browser. Sign in with your password instead.',
  });
}

/** A provider offered beside a password form (another way through it), in a form of its own. */
export function providerAlternativeBody(provider: ProviderButtonView): SafeHtml {
  return providerButton(provider, false);
}

function providerButton(provider: ProviderButtonView, primary: boolean): SafeHtml {
  return html`<button type="submit" name="provider" value="${provider.alias}"${primary ? html` class="primary"` : ''}>Sign in with ${provider.name}</button>`;
}
