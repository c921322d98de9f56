import { renderSVG } from 'uqr';
import { MAX_PASSKEY_NAME_LENGTH } from '../../authn/passkeys.js';
import { SafeHtml, html } from '../html.js';

/** The code field of every one-time code form (CONTRACT.md §4: `input[name=otp]`). */
export function codeField(label = 'Code'): SafeHtml {
  return html`<label for="otp">${label}</label>
<input id="otp" name="otp" autocomplete="one-time-code" inputmode="numeric" autocapitalize="none" spellcheck="false" autofocus>`;
}

/**
 * How to add a secret to an authenticator app: its QR code (an inline SVG: the pages load
 * nothing), the secret as text for typing it in, and the code field that confirms it.
 */
export function enrolmentView(enrolment: { otpauthUri: string; secretBase32: string }): SafeHtml {
  // uqr's SVG holds nothing of the input but the QR modules, so it is markup as it stands.
  const svg = renderSVG(enrolment.otpauthUri, { border: 4 });
  const qr = new SafeHtml(svg.replace('<svg ', '<svg width="220" height="220" role="img" aria-label="QR code of the secret" '));
  const grouped = enrolment.secretBase32.match(/.{1,4}/g)!.join(' ');
  return html`<p>Scan this QR code with an authenticator app, or type the secret into it, then enter the code it shows.</p>
<p>${qr}</p>
<p>Secret: <code id="totp-secret">${grouped}</code></p>
${codeField('Code from the app')}`;
}

/**
 * The submit button of a passkey form, the hidden field its result goes to, a box for what
 * went wrong in the browser, and what a browser without JavaScript shows instead. The button
 * stays hidden until the page's script (src/pages/assets/passkey-script.ts) finds WebAuthn.
 */
export function passkeyControl(input: {
  ceremony: 'authentication' | 'registration';
  options: unknown;
  label: string;
  primary: boolean;
  noscript: string;
}): SafeHtml {
  return html`<input type="hidden" name="credential" value="">
<button type="submit"${input.primary ? html` class="primary"` : ''} data-passkey="${input.ceremony}" data-passkey-options="${JSON.stringify(input.options)}" hidden>${input.label}</button>
<p class="error passkey-error" role="alert" hidden></p>
<noscript><p class="error">${input.noscript}</p></noscript>`;
}

/** The field that names a new passkey. */
export function passkeyNameField(required: boolean): SafeHtml {
  return html`<label for="passkey_name">Name of the passkey</label>
<input id="passkey_name" name="passkey_name" maxlength="${MAX_PASSKEY_NAME_LENGTH}" autocomplete="off" placeholder="e.g. Work laptop"${required ? html` required` : ''}>`;
}
