/**
 * The browser script of the passkey forms, served as `{issuer}/assets/passkey.js`. It is kept
 * here as text (plain ES2017, no build step) so that it ships inside dist/ with the code.
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
export const PASSKEY_SCRIPT = String.raw`(function () {
  'use strict';
  var webauthn = window.SimpleWebAuthnBrowser;
  var ENGLISH = {
    alreadyRegistered: 'This authenticator already holds a passkey for your account.',
    notAllowed: 'The passkey was not used: the request was cancelled or timed out. Try again.',
    failed: 'The passkey could not be used. Try again.',
    unsupported: 'This browser does not support passkeys.'
  };

  function messagesOf(button) {
    try {
      var messages = JSON.parse(button.getAttribute('data-passkey-messages'));
      return messages && typeof messages === 'object' ? messages : ENGLISH;
    } catch (error) {
      return ENGLISH;
    }
  }

  function show(form, message) {
    var box = form.querySelector('.passkey-error');
    if (!box) return;
    box.textContent = message;
    box.hidden = false;
  }

  function messageOf(error, messages) {
    if (error && error.code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED') return messages.alreadyRegistered;
    if (error && error.name === 'NotAllowedError') return messages.notAllowed;
    return messages.failed;
  }

  function complete(form, result) {
    form.elements.namedItem('credential').value = JSON.stringify(result);
    form.submit();
  }

  function ceremony(button) {
    var optionsJSON = JSON.parse(button.getAttribute('data-passkey-options'));
    return button.getAttribute('data-passkey') === 'registration'
      ? webauthn.startRegistration({ optionsJSON: optionsJSON })
      : webauthn.startAuthentication({ optionsJSON: optionsJSON });
  }

  function bind(button) {
    var form = button.form;
    if (!form) return;
    var messages = messagesOf(button);
    if (!webauthn || !webauthn.browserSupportsWebAuthn()) {
      show(form, messages.unsupported);
      return;
    }
    button.hidden = false;
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      if (button.disabled) return;
      button.disabled = true;
      ceremony(button).then(
        function (result) {
          complete(form, result);
        },
        function (error) {
          button.disabled = false;
          show(form, messageOf(error, messages));
        }
      );
    });
  }

  var buttons = document.querySelectorAll('button[data-passkey]');
  for (var i = 0; i < buttons.length; i++) bind(buttons[i]);
})();
`;
