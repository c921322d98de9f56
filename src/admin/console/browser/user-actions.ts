/**
 * The admin console's operator actions on a person (CONTRACT.md §16): mailing a password reset
 * or a verification link, removing their TOTP generator, their passkeys and their consents,
 * each deleted only once confirmed. A refusal (no mail server, no address, a limit) is shown
 * with the server's reason.
 */
import { call } from './api.js';
import type { User } from './records.js';
import { confirmed, guarded, h, localTime, say, table } from './dom.js';
import { t } from './i18n.js';

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
    passkey.last_used_at ? localTime(passkey.last_used_at) : t('never'),
    actionButton(t('Delete'), 'deleteUserPasskey', async () => {
      await call('DELETE', path('/passkeys/' + encodeURIComponent(passkey.id)));
      await reload();
    }, t('The passkey {passkey} of {person} is deleted.', { passkey: passkey.name, person: name }), t('Delete the passkey {passkey} of {person}? It signs no one in any more.', { passkey: passkey.name, person: name }), t('Delete the passkey {passkey}', { passkey: passkey.name })),
  ]);
  const consentRows = consents.map((consent) => [
    consent.client_name ? consent.client_name + ' (' + consent.client_id + ')' : consent.client_id,
    consent.scope,
    localTime(consent.granted_at),
    actionButton(t('Revoke'), 'revokeUserConsent', async () => {
      await call('DELETE', path('/consents/' + encodeURIComponent(consent.client_id)));
      await reload();
    }, t('What {person} allowed {client} is withdrawn; its tokens for them are revoked.', { person: name, client: consent.client_id }), t('Withdraw what {person} allowed {client}? Its tokens for them are revoked, and it must ask again.', { person: name, client: consent.client_id }), t('Revoke the consent to {client}', { client: consent.client_id })),
  ]);

  return h(
    'section',
    { class: 'operator-actions', 'aria-label': t('Support for {person}', { person: name }) },
    h('h4', {}, t('Mails')),
    h('p', { class: 'note' }, email ? t('Sent to {email}, in their language; the limits of the self-service mails apply.', { email }) : t('They have no email address: nothing can be mailed.')),
    h('div', { class: 'actions' },
      actionButton(t('Send password reset'), 'sendPasswordReset', () => call('POST', path('/send-reset'), {}), t('A password reset link is on its way to {person}.', { person: name })),
      actionButton(t('Send verification mail'), 'sendEmailVerification', () => call('POST', path('/send-verification'), {}), t('A link that confirms their address is on its way to {person}.', { person: name })),
    ),
    h('h4', {}, t('Authenticators')),
    actionButton(t('Remove TOTP'), 'removeUserTotp', () => call('DELETE', path('/totp')), t('The one-time code generator of {person} is removed.', { person: name }), t('Remove the one-time code generator of {person}? Its codes stop working; they may set up another.', { person: name })),
    table(t('Passkeys of {person}', { person: name }), [t('Name'), t('Added'), t('Last used'), t('Action')], passkeyRows),
    h('h4', {}, t('Consents')),
    table(t('Consents of {person}', { person: name }), [t('Client'), t('Scopes'), t('Allowed'), t('Action')], consentRows),
  );
}
