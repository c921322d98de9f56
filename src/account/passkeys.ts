import type { CeremonyFailure } from '../authn/passkey-ceremony.js';
import type { AuditLog } from '../audit/audit-log.js';
import { MAX_PASSKEYS_PER_PERSON, RelyingParty, passkeyName } from '../authn/passkeys.js';
import { formParams } from '../http/form-params.js';
import { type PasskeysSectionView, passkeysSectionBody } from '../pages/account/passkeys.js';
import { passkeyScripts } from '../pages/assets/scripts.js';
import type { Messages } from '../pages/i18n/index.js';
import type { Store } from '../store/index.js';
import type { Passkey } from '../store/passkeys.js';
import type { FirstFactorCode } from './enrolment-code.js';
import type { AccountHolder, AccountSection } from './section.js';

/** The CSRF subjects of the section's forms: a token of one action does not serve another. */
const REGISTER = 'passkeys register';
const DELETE = 'passkeys delete';

/** Why a passkey was not added, as the account page's notice says it. */
function failureNotice(t: Messages, failure: CeremonyFailure): string {
  const failures = t.account.passkeys.failures;
  return failure === 'limit' ? failures.limit(MAX_PASSKEYS_PER_PERSON) : failures[failure];
}

/**
 * The registration challenge is bound to the session and to the browser: the CSRF token of
 * the form is an HMAC of the browser's cookie, and a form of another browser carries another.
 */
const bindingOf = (holder: AccountHolder, csrf: string) => ({ sid: holder.session.sid, browser: csrf });

/** A base64url credential id as a form posts it; undefined when it cannot be one. */
function credentialIdOf(value: string | undefined): Buffer | undefined {
  return value !== undefined && value.length <= 1364 && /^[A-Za-z0-9_-]+$/.test(value) ? Buffer.from(value, 'base64url') : undefined;
}

/** "Passkeys": the person's passkeys with their names and last use, adding one (WebAuthn registration), deleting one. */
export function passkeysSection(deps: { store: Pick<Store, 'passkeys' | 'webauthnChallenges'>; baseUrl: string; firstFactor: FirstFactorCode; audit: AuditLog }): AccountSection {
  const { store, firstFactor } = deps;
  const relyingParty = new RelyingParty(deps.baseUrl, store.passkeys, store.webauthnChallenges);

  /** How the section offers a new passkey: see PasskeysSectionView. */
  async function adding(holder: AccountHolder, passkeys: readonly Passkey[]): Promise<PasskeysSectionView['add']> {
    if (passkeys.length >= MAX_PASSKEYS_PER_PERSON) return { kind: 'at-limit' };
    const { realm, userId, username } = holder;
    const form = { action: `${realm.issuer}/account/passkeys/register`, csrf: holder.csrf(REGISTER) };
    // The authenticator would keep a passkey that the server then refuses: the person signs
    // in again first (this form, posted without a passkey, takes them there) and then makes it.
    if (!holder.recentSignIn) return { kind: 'sign-in-again', form };
    if (passkeys.length === 0 && (await firstFactor.pending(holder))) return { kind: 'code-first', code: firstFactor.form(holder) };
    const options = await relyingParty.registrationOptions(realm.name, bindingOf(holder, form.csrf), { userId, username, passkeys });
    return { kind: 'register', form, options };
  }

  return {
    title: (t) => t.account.sections.passkeys,
    async render(holder) {
      const passkeys = await store.passkeys.listForUser(holder.realm.name, holder.userId);
      const add = await adding(holder, passkeys);
      const body = passkeysSectionBody(holder.t, {
        passkeys: passkeys.map((passkey) => ({
          name: passkey.name,
          synced: passkey.backedUp,
          addedAt: passkey.createdAt,
          lastUsedAt: passkey.lastUsedAt,
          credentialId: passkey.credentialId.toString('base64url'),
        })),
        remove: { action: `${holder.realm.issuer}/account/passkeys/delete`, csrf: holder.csrf(DELETE) },
        add,
      });
      return add.kind === 'register' ? { body, scripts: passkeyScripts(holder.realm.issuer) } : { body };
    },

    routes(app, tools) {
      app.post('/account/passkeys/register', async (request, reply) => {
        const form = formParams(request.body, ['csrf', 'passkey_name', 'credential']);
        const holder = await tools.credentialHolder(request, reply, REGISTER, form.csrf);
        if (!holder) return reply;
        const { realm, userId } = holder;
        const gated = await firstFactor.pending(holder);
        if (gated) return tools.backToAccount(reply, realm, await firstFactor.mailFirst(holder, gated));
        const name = passkeyName(form.passkey_name);
        const outcome = await relyingParty.verifyRegistration(realm.name, bindingOf(holder, form.csrf!), form.credential, { userId, name });
        if (!outcome.ok) {
          if (outcome.failure === 'refused') request.log.info({ passkey: outcome.failure, reason: outcome.detail }, 'passkey not registered');
          return tools.backToAccount(reply, realm, failureNotice(holder.t, outcome.failure));
        }
        deps.audit.record({ realm: realm.name, type: 'user.passkey_registered', userId, address: request.ip, details: { via: 'account' } });
        return tools.backToAccount(reply, realm, holder.t.account.passkeys.addedNotice(name));
      });

      app.post('/account/passkeys/delete', async (request, reply) => {
        const form = formParams(request.body, ['csrf', 'credential_id']);
        const holder = await tools.credentialHolder(request, reply, DELETE, form.csrf);
        if (!holder) return reply;
        const { realm, userId } = holder;
        const credentialId = credentialIdOf(form.credential_id);
        const outcome = credentialId ? await store.passkeys.delete(realm.name, userId, credentialId) : 'not_found';
        if (outcome === 'not_found') return tools.backToAccount(reply, realm, holder.t.account.passkeys.notFound);
        if (outcome === 'only_way') return tools.backToAccount(reply, realm, holder.t.account.passkeys.onlyWay);
        deps.audit.record({ realm: realm.name, type: 'user.passkey_deleted', userId, address: request.ip });
        return tools.backToAccount(reply, realm, holder.t.account.passkeys.deleted);
      });
    },
  };
}
