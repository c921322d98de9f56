import { renderSVG } from 'uqr';
import { MAX_PASSKEY_NAME_LENGTH } from '../../authn/passkeys.js';
import { SafeHtml, html } from '../html.js';
import type { Messages } from '../i18n/index.js';

/** The code field of every one-time code form (CONTRACT.md §4: `input[name=otp]`). */
export function codeField(label: string): SafeHtml {
  return html`<label for="otp">${label}</label>
<input id="otp" name="otp" autocomplete="one-time-code" inputmode="numeric" autocapitalize="none" spellcheck="false" autofocus>`;
}

/**
 * How to add a secret to an authenticator app: its QR code (an inline SVG: the pages load
 * nothing), the secret as text for typing it in, and the code field that confirms it.
 */
export function enrolmentView(t: Messages, enrolment: { otpauthUri: string; secretBase32: string }): SafeHtml {
  // uqr's SVG holds nothing of the input but the QR modules, so it is markup as it stands; the label is escaped.
  const svg = renderSVG(enrolment.otpauthUri, { border: 4 });
  const qr = new SafeHtml(svg.replace('<svg ', html`<svg width="220" height="220" role="img" aria-label="${t.oneTimeCode.qrLabel}" `.value));
  const grouped = enrolment.secretBase32.match(/.{1,4}/g)!.join(' ');
  return html`<p>${t.oneTimeCode.enrolmentLead}</p>
<p>${qr}</p>
<p>${t.oneTimeCode.secret} <code id="totp-secret">${grouped}</code></p>
${codeField(t.oneTimeCode.codeFromApp)}`;
}

/**
 * The submit button of a passkey form, the hidden field its result goes to, a box for what
 * went wrong in the browser, and what a browser without JavaScript shows instead. The button
 * stays hidden until the page's script (src/pages/assets/browser/passkey.ts) finds WebAuthn;
 * the script's own messages travel with the button, in the page's language.
 */
export function passkeyControl(
  t: Messages,
  input: {
    ceremony: 'authentication' | 'registration';
    options: unknown;
    label: string;
    primary: boolean;
    noscript: string;
  },
): SafeHtml {
  return html`<input type="hidden" name="credential" value="">
<button type="submit"${input.primary ? html` class="primary"` : ''} data-passkey="${input.ceremony}" data-passkey-options="${JSON.stringify(input.options)}" data-passkey-messages="${JSON.stringify(t.passkey.browser)}" hidden>${input.label}</button>
<p class="error passkey-error" role="alert" hidden></p>
<noscript><p class="error">${input.noscript}</p></noscript>`;
}

/** The field that names a new passkey. */
export function passkeyNameField(t: Messages, required: boolean): SafeHtml {
  return html`<label for="passkey_name">${t.passkey.nameLabel}</label>
<input id="passkey_name" name="passkey_name" maxlength="${MAX_PASSKEY_NAME_LENGTH}" autocomplete="off" placeholder="${t.passkey.namePlaceholder}"${required ? html` required` : ''}>`;
}
