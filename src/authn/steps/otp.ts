import { renderSVG } from 'uqr';
import { SafeHtml, html } from '../../pages/html.js';
import type { Store } from '../../store/index.js';
import type { KeyEncryption } from '../../tokens/key-encryption.js';
import { OTP_AMR, RECOVERY_CODE_AMR, base32Of, hasConfirmedTotp, issuerLabel, otpauthUri, pendingTotpSecret, verifyOneTimeCode } from '../otp.js';
import type { SignInStep } from '../steps.js';

export const WRONG_CODE = 'The code is incorrect or was already used.';
const NO_CODE = 'Enter the code your authenticator app shows.';

/** The code field of every one-time code form (CONTRACT.md §4: `input[name=otp]`). */
export function codeField(label = 'Code'): SafeHtml {
  return html`<label for="otp">${label}</label>
<input id="otp" name="otp" autocomplete="one-time-code" inputmode="numeric" autocapitalize="none" spellcheck="false" autofocus>`;
}

/**
 * How to add a secret to an authenticator app: its QR code (an inline SVG: the pages load
 * nothing), the secret as text for typing it in, and the code field that confirms it.
 */
export function enrolmentView(issuer: string, username: string, secret: Buffer): SafeHtml {
  const uri = otpauthUri(issuer, username, secret);
  // uqr's SVG holds nothing of the input but the QR modules, so it is markup as it stands.
  const qr = new SafeHtml(renderSVG(uri, { border: 4 }).replace('<svg ', '<svg width="220" height="220" role="img" aria-label="QR code of the secret" '));
  const grouped = base32Of(secret).match(/.{1,4}/g)!.join(' ');
  return html`<p>Scan this QR code with an authenticator app, or type the secret into it, then enter the code it shows.</p>
<p>${qr}</p>
<p>Secret: <code id="totp-secret">${grouped}</code></p>
${codeField('Code from the app')}`;
}

/**
 * The `otp` step: a code of the person's authenticator app (RFC 6238), or one of their
 * recovery codes. A person without a confirmed app sets one up right here: the pending
 * secret is kept in the database, and the first valid code both confirms it and passes.
 */
export function otpStep(deps: { store: Store; encryption: KeyEncryption }): SignInStep {
  const { store, encryption } = deps;
  return {
    name: 'otp',
    fields: ['otp', 'recovery_code'],
    async render(context) {
      const userId = context.progress.userId;
      if (userId !== undefined && !(await hasConfirmedTotp(store, context.realm.name, userId))) {
        const secret = await pendingTotpSecret(store, encryption, context.realm.name, userId, { fresh: false });
        if (secret) {
          const username = (await store.users.usernameOf(context.realm.name, userId)) ?? '';
          return {
            body: html`<p><strong>Set up an authenticator app</strong>: this sign-in asks for a one-time code.</p>
${enrolmentView(issuerLabel(context.realm), username, secret)}
<button class="primary" type="submit">Confirm</button>`,
          };
        }
      }
      // A recovery code has letters, which a numeric keyboard cannot type: it has a field of its own.
      return {
        body: html`${codeField('Code from your authenticator app')}
<details>
<summary>Use a recovery code</summary>
<label for="recovery_code">Recovery code</label>
<input id="recovery_code" name="recovery_code" autocomplete="off" autocapitalize="none" spellcheck="false">
</details>
<button class="primary" type="submit">Verify</button>`,
      };
    },
    async submit(context, form) {
      const userId = context.progress.userId;
      const typed = form.recovery_code ?? form.otp;
      if (userId === undefined) return { error: 'Sign in first.', failure: false };
      if (typed === undefined || typed.trim() === '') return { error: NO_CODE, failure: false };
      const kind = await verifyOneTimeCode(store, encryption, context.realm.name, userId, typed, { pending: true });
      if (kind === undefined) return { error: WRONG_CODE, failure: true };
      return { passed: { userId, amr: kind === 'otp' ? OTP_AMR : RECOVERY_CODE_AMR } };
    },
  };
}
