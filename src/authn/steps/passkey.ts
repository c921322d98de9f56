import { passkeyScripts } from '../../pages/assets/scripts.js';
import { type SafeHtml, html } from '../../pages/html.js';
import type { Store } from '../../store/index.js';
import { type CeremonyFailure, type Failed, MAX_PASSKEY_NAME_LENGTH, RelyingParty, passkeyName } from '../passkeys.js';
import { type SignInStep, type StepContext, type StepOutcome, type StepPage, nextStep } from '../steps.js';

/** What the person reads when a ceremony failed; `failure` counts towards brute-force limits. */
const FAILURES: Readonly<Record<CeremonyFailure, { error: string; failure: boolean }>> = {
  missing: { error: 'Passkeys need JavaScript, which is turned off or not supported in this browser.', failure: false },
  malformed: { error: 'The passkey was not accepted.', failure: false },
  expired: { error: 'The passkey request expired. Try again.', failure: false },
  refused: { error: 'The passkey was not accepted.', failure: true },
  duplicate: { error: 'This passkey is registered already.', failure: false },
  limit: { error: 'You have too many passkeys.', failure: false },
};

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

/**
 * The `passkey` step (WebAuthn). Two ways through it:
 *
 * - for the person a step before identified, a passkey of theirs (allowCredentials): a
 *   second factor. A person who has none registers one here (as one-time codes are set up
 *   on first use), which passes the step.
 * - for no one yet, a discoverable credential with user verification: a passwordless sign-in
 *   without a username, offered on the password page (`alternativeTo('password')`) or as the
 *   realm's first step.
 *
 * A user-verified passkey stands for the whole sign-in (`completesSignIn`). Without
 * JavaScript this step cannot be passed, and its page says so.
 */
export function passkeyStep(deps: { store: Store; baseUrl: string }): SignInStep {
  const { store } = deps;
  const relyingParty = new RelyingParty(deps.baseUrl, store.passkeys, store.webauthnChallenges);

  async function passwordlessPage(context: StepContext, primary: boolean): Promise<StepPage> {
    const options = await relyingParty.authenticationOptions(context.realm.name, { transactionId: context.transactionId });
    return {
      body: html`${primary ? html`<p>Sign in with a passkey saved on this device, your phone or a security key.</p>\n` : ''}${passkeyControl({
        ceremony: 'authentication',
        options,
        label: 'Sign in with a passkey',
        primary,
        noscript: primary
          ? 'Signing in with a passkey needs JavaScript, which is turned off in this browser: this sign-in cannot go on without it.'
          : 'Signing in with a passkey needs JavaScript, which is turned off in this browser. Sign in with your password instead.',
      })}`,
      scripts: passkeyScripts(context.realm.issuer),
    };
  }

  function failedWith(context: StepContext, outcome: Failed): StepOutcome {
    if (outcome.failure === 'refused' || outcome.failure === 'malformed') {
      context.request.log.info({ passkey: outcome.failure, reason: outcome.detail }, 'passkey not accepted');
    }
    return FAILURES[outcome.failure];
  }

  return {
    name: 'passkey',
    fields: ['credential', 'passkey_name'],

    async render(context) {
      const { realm, progress } = context;
      const userId = progress.userId;
      if (userId === undefined) return passwordlessPage(context, true);
      const binding = { transactionId: context.transactionId };
      const passkeys = await store.passkeys.listForUser(realm.name, userId);
      if (passkeys.length === 0) {
        const username = (await store.users.usernameOf(realm.name, userId)) ?? '';
        const options = await relyingParty.registrationOptions(realm.name, binding, { userId, username, passkeys });
        return {
          body: html`<p><strong>Register a passkey</strong>: this sign-in asks for one, and your account has none yet. Create it on this device, your phone or a security key.</p>
${passkeyNameField(false)}
${passkeyControl({
  ceremony: 'registration',
  options,
  label: 'Register a passkey',
  primary: true,
  noscript: 'Registering a passkey needs JavaScript, which is turned off in this browser: this sign-in cannot go on without it.',
})}`,
          scripts: passkeyScripts(realm.issuer),
        };
      }
      const options = await relyingParty.authenticationOptions(realm.name, binding, { userId, passkeys });
      return {
        body: html`<p>Confirm that it is you with your passkey.</p>
${passkeyControl({
  ceremony: 'authentication',
  options,
  label: 'Use your passkey',
  primary: true,
  noscript: 'This sign-in asks for a passkey, which needs JavaScript: it is turned off in this browser, so the sign-in cannot go on.',
})}`,
        scripts: passkeyScripts(realm.issuer),
      };
    },

    async alternativeTo(step, context) {
      if (step !== 'password' || context.progress.userId !== undefined) return undefined;
      return passwordlessPage(context, false);
    },

    async submit(context, form) {
      const { realm, progress } = context;
      const current = nextStep(realm.settings.authentication, progress);
      const binding = { transactionId: context.transactionId };
      const userId = progress.userId;

      // Passwordless: the passkey is the current step, or stands in for the password.
      if (userId === undefined) {
        if (current !== 'passkey' && current !== 'password') return { error: 'Continue with the step shown.', failure: false };
        const outcome = await relyingParty.verifyAuthentication(realm.name, binding, form.credential, {});
        if (!outcome.ok) return failedWith(context, outcome);
        return { passed: { userId: outcome.passkey.userId, amr: outcome.amr, completesSignIn: true } };
      }

      // A second factor: only as the current step (the driver accepts an alternative's form at any step).
      if (current !== 'passkey') return { error: 'Continue with the step shown.', failure: false };
      if ((await store.passkeys.listForUser(realm.name, userId)).length === 0) {
        const name = passkeyName(form.passkey_name);
        const outcome = await relyingParty.verifyRegistration(realm.name, binding, form.credential, { userId, name });
        if (!outcome.ok) return failedWith(context, outcome);
        const { request } = context;
        request.server.audit.record({ realm: realm.name, type: 'user.passkey_registered', userId, address: request.ip, details: { via: 'sign_in' } });
        // The new key was shown to be held, as a first one-time code shows an app's: it passes
        // this step, but proves no more than possession, so it completes nothing else.
        return { passed: { userId, amr: outcome.amr.filter((method) => method !== 'mfa') } };
      }
      const outcome = await relyingParty.verifyAuthentication(realm.name, binding, form.credential, { userId });
      if (!outcome.ok) return failedWith(context, outcome);
      return { passed: { userId, amr: outcome.amr, ...(outcome.userVerified ? { completesSignIn: true } : {}) } };
    },
  };
}
