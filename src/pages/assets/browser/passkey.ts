/**
 * The browser script of the passkey forms, served as `{issuer}/assets/passkey.js` (bundled as a
 * classic script for ES2017 browsers, src/http/browser-bundle.ts).
 *
 * A form with a passkey has a submit button `button[data-passkey]` ("authentication" or
 * "registration") whose `data-passkey-options` holds the ceremony's options, a hidden
 * `input[name=credential]`, and a `.passkey-error` box. The button starts hidden and is
 * shown when WebAuthn is available; on submit, the script runs the ceremony with
 * @simplewebauthn/browser (`assets/webauthn.js`, loaded before), puts its JSON result into
 * the hidden field and submits the form. The pages allow no inline script, so everything is
 * bound here. What the script tells the person comes in the page's language, as JSON in the
 * button's `data-passkey-messages` (src/pages/sign-in/controls.ts); English when it is missing.
 */
import type * as SimpleWebAuthnBrowser from '@simplewebauthn/browser';

declare global {
  interface Window {
    /** The UMD bundle of @simplewebauthn/browser, loaded before this script. */
    SimpleWebAuthnBrowser?: typeof SimpleWebAuthnBrowser;
  }
}

interface Messages {
  alreadyRegistered: string;
  notAllowed: string;
  failed: string;
  unsupported: string;
}

const webauthn = window.SimpleWebAuthnBrowser;
const ENGLISH: Messages = {
  alreadyRegistered: 'This authenticator already holds a passkey for your account.',
  notAllowed: 'The passkey was not used: the request was cancelled or timed out. Try again.',
  failed: 'The passkey could not be used. Try again.',
  unsupported: 'This browser does not support passkeys.',
};

function messagesOf(button: HTMLButtonElement): Messages {
  try {
    const messages: unknown = JSON.parse(button.getAttribute('data-passkey-messages') as string);
    return messages && typeof messages === 'object' ? (messages as Messages) : ENGLISH;
  } catch {
    return ENGLISH;
  }
}

function show(form: HTMLFormElement, message: string): void {
  const box = form.querySelector<HTMLElement>('.passkey-error');
  if (!box) return;
  box.textContent = message;
  box.hidden = false;
}

function messageOf(error: unknown, messages: Messages): string {
  const failure = error as { code?: unknown; name?: unknown } | null | undefined;
  if (failure && failure.code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED') return messages.alreadyRegistered;
  if (failure && failure.name === 'NotAllowedError') return messages.notAllowed;
  return messages.failed;
}

function complete(form: HTMLFormElement, result: unknown): void {
  (form.elements.namedItem('credential') as HTMLInputElement).value = JSON.stringify(result);
  form.submit();
}

function ceremony(library: typeof SimpleWebAuthnBrowser, button: HTMLButtonElement): Promise<unknown> {
  const optionsJSON = JSON.parse(button.getAttribute('data-passkey-options') as string);
  return button.getAttribute('data-passkey') === 'registration'
    ? library.startRegistration({ optionsJSON })
    : library.startAuthentication({ optionsJSON });
}

function bind(button: HTMLButtonElement): void {
  const form = button.form;
  if (!form) return;
  const messages = messagesOf(button);
  if (!webauthn || !webauthn.browserSupportsWebAuthn()) {
    show(form, messages.unsupported);
    return;
  }
  const library = webauthn;
  button.hidden = false;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (button.disabled) return;
    button.disabled = true;
    ceremony(library, button).then(
      (result) => complete(form, result),
      (error: unknown) => {
        button.disabled = false;
        show(form, messageOf(error, messages));
      },
    );
  });
}

for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-passkey]')) bind(button);
