/**
 * The admin console's operator actions on a person (CONTRACT.md §16): mailing a password reset
 * or a verification link, removing their TOTP generator, their passkeys and their consents,
 * each deleted only once confirmed. A refusal (no mail server, no address, a limit) is shown
 * with the server's reason.
 */
import { call } from './api.js';
import type { User } from './records.js';
import { confirmed, guarded, h, localTime, say, table } from './dom.js';

interface Passkey {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
  backed_up: boolean;
}

interface Consent {
  client_id: string;
  client_name: string | null;
  scope: string;
  granted_at: string;
}

/** An instant in the reader's time zone and language; the ISO form as its machine-readable value and tooltip. */

const userPath = (realm: string, username: string, rest: string) => '/realms/' + encodeURIComponent(realm) + '/users/' + encodeURIComponent(username) + rest;

/** A button that asks first (when `question` is given), then calls the operation and says what it did. */
function actionButton(label: string, operation: string, run: () => Promise<unknown>, done: string, question?: string, ariaLabel?: string): HTMLButtonElement {
  return h('button', {
    type: 'button',
    'data-operation': operation,
    ...(ariaLabel ? { 'aria-label': ariaLabel } : {}),
    onclick: guarded(async () => {
      if (question !== undefined && !(await confirmed(question, label))) return;
      await run();
      say(done);
    }),
  }, label);
}

/** The section of a person's page with what support does for them; `reload` shows the person again. */
export async function operatorActions(realm: string, user: User, reload: () => Promise<void>): Promise<HTMLElement> {
  const name = user.username;
  const path = (rest: string) => userPath(realm, name, rest);
  const [{ passkeys }, { consents }] = await Promise.all([
    call<{ passkeys: Passkey[] }>('GET', path('/passkeys')),
    call<{ consents: Consent[] }>('GET', path('/consents')),
  ]);
  const email = typeof user.claims.email === 'string' ? user.claims.email : undefined;

  const passkeyRows = passkeys.map((passkey) => [
    passkey.name,
    localTime(passkey.created_at),
    passkey.last_used_at ? localTime(passkey.last_used_at) : 'never',
    actionButton('Delete', 'deleteUserPasskey', async () => {
      await call('DELETE', path('/passkeys/' + encodeURIComponent(passkey.id)));
      await reload();
    }, 'The passkey ' + passkey.name + ' of ' + name + ' is deleted.', 'Delete the passkey ' + passkey.name + ' of ' + name + '? It signs no one in any more.', 'Delete the passkey ' + passkey.name),
  ]);
  const consentRows = consents.map((consent) => [
    consent.client_name ? consent.client_name + ' (' + consent.client_id + ')' : consent.client_id,
    consent.scope,
    localTime(consent.granted_at),
    actionButton('Revoke', 'revokeUserConsent', async () => {
      await call('DELETE', path('/consents/' + encodeURIComponent(consent.client_id)));
      await reload();
    }, 'What ' + name + ' allowed ' + consent.client_id + ' is withdrawn; its tokens for them are revoked.', 'Withdraw what ' + name + ' allowed ' + consent.client_id + '? Its tokens for them are revoked, and it must ask again.', 'Revoke the consent to ' + consent.client_id),
  ]);

  return h(
    'section',
    { class: 'operator-actions', 'aria-label': 'Support for ' + name },
    h('h4', {}, 'Mails'),
    h('p', { class: 'note' }, email ? 'Sent to ' + email + ', in their language; the limits of the self-service mails apply.' : 'They have no email address: nothing can be mailed.'),
    h('div', { class: 'actions' },
      actionButton('Send password reset', 'sendPasswordReset', () => call('POST', path('/send-reset'), {}), 'A password reset link is on its way to ' + name + '.'),
      actionButton('Send verification mail', 'sendEmailVerification', () => call('POST', path('/send-verification'), {}), 'A link that confirms their address is on its way to ' + name + '.'),
    ),
    h('h4', {}, 'Authenticators'),
    actionButton('Remove TOTP', 'removeUserTotp', () => call('DELETE', path('/totp')), 'The one-time code generator of ' + name + ' is removed.', 'Remove the one-time code generator of ' + name + '? Its codes stop working; they may set up another.'),
    table('Passkeys of ' + name, ['Name', 'Added', 'Last used', 'Action'], passkeyRows),
    h('h4', {}, 'Consents'),
    table('Consents of ' + name, ['Client', 'Scopes', 'Allowed', 'Action'], consentRows),
  );
}
