import { EMAIL, MAX_EMAIL_LENGTH, MAX_NAME_LENGTH } from '../authn/self-service/person-registration.js';
import { emailOf, mailVerification } from '../authn/self-service/verification.js';
import { formParams } from '../http/form-params.js';
import type { Mailer } from '../mail/mailer.js';
import { emailChangePage, namesPage, profileSectionBody } from '../pages/account/profile.js';
import type { Messages } from '../pages/i18n/index.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { Store } from '../store/index.js';
import { isEmailTaken } from '../store/users.js';
import type { AccountHolder, AccountSection } from './section.js';

const NAMES = 'profile names';
const EMAIL_CHANGE = 'profile email';
const NAMES_PATH = '/account/profile/names';
const EMAIL_PATH = '/account/profile/email';

/** Control and format characters (Unicode `Cc`, `Cf`…), which no name holds. */
const INVISIBLE = /\p{C}/u;

const namesForm = (holder: AccountHolder) => ({ action: `${holder.realm.issuer}${NAMES_PATH}`, csrf: holder.csrf(NAMES) });
const emailForm = (holder: AccountHolder) => ({ action: `${holder.realm.issuer}${EMAIL_PATH}`, csrf: holder.csrf(EMAIL_CHANGE) });

/** What is wrong with a name as typed, if anything; an empty name removes the claim. */
function nameProblem(t: Messages, field: 'given_name' | 'family_name', value: string): string | undefined {
  if (value.length <= MAX_NAME_LENGTH && !INVISIBLE.test(value)) return undefined;
  return field === 'given_name' ? t.register.givenNameInvalid(MAX_NAME_LENGTH) : t.register.familyNameInvalid(MAX_NAME_LENGTH);
}

/**
 * "Name and email" (CONTRACT.md §16): the person edits their `given_name` and `family_name`,
 * and their `email`. A new address is the person's at once and unconfirmed (`email_verified`
 * false); the verification links mailed before stop working, so that a link sent to the old
 * address cannot confirm the new one. When the realm verifies addresses, a link goes to the new
 * one, and the realm's sign-in waits for it as it does after a registration. The address is
 * where password resets go, so changing it is a change of how the person signs in: the
 * re-authentication rule applies (src/account/reauthentication.ts).
 */
export function profileSection(deps: { store: Pick<Store, 'users' | 'tickets' | 'mailAllowances' | 'attemptCounters'>; mailer: Mailer | undefined; audit: AuditLog }): AccountSection {
  const { store } = deps;
  return {
    title: (t) => t.account.sections.profile,
    async render(holder) {
      const user = await store.users.getById(holder.realm.name, holder.userId);
      if (!user) return { body: undefined };
      const text = (name: string) => (typeof user.claims[name] === 'string' ? (user.claims[name] as string) : '');
      return {
        body: profileSectionBody(holder.t, {
          givenName: text('given_name'),
          familyName: text('family_name'),
          email: emailOf(user),
          emailVerified: user.claims.email_verified === true,
          names: namesForm(holder),
          changeEmail: emailForm(holder),
        }),
      };
    },
    routes(app, tools) {
      app.post(NAMES_PATH, async (request, reply) => {
        const form = formParams(request.body, ['csrf', 'given_name', 'family_name']);
        const holder = await tools.holder(request, reply, NAMES, form.csrf);
        if (!holder) return reply;
        const { realm, t } = holder;
        const givenName = form.given_name?.trim() ?? '';
        const familyName = form.family_name?.trim() ?? '';
        const problem = nameProblem(t, 'given_name', givenName) ?? nameProblem(t, 'family_name', familyName);
        if (problem) return tools.sendAccountPage(reply, realm, namesPage(t, { form: namesForm(holder), givenName, familyName, error: problem }));
        // An empty field removes the claim (a top-level null, UserStore.change).
        const claims = { given_name: givenName || null, family_name: familyName || null };
        const changed = await store.users.update(realm.name, holder.username, { claims });
        if (!changed) return reply.redirect(`${realm.issuer}/account`, 303);
        deps.audit.record({ realm: realm.name, type: 'user.updated', userId: holder.userId, address: request.ip, details: { via: 'account', claims: Object.keys(claims) } });
        return tools.backToAccount(reply, realm, t.account.profile.namesSaved);
      });

      app.post(EMAIL_PATH, async (request, reply) => {
        const form = formParams(request.body, ['csrf', 'email']);
        const holder = await tools.credentialHolder(request, reply, EMAIL_CHANGE, form.csrf);
        if (!holder) return reply;
        const { realm, t, userId } = holder;
        const texts = t.account.profile;
        const email = form.email?.trim() ?? '';
        const again = (error: string) => tools.sendAccountPage(reply, realm, emailChangePage(t, { form: emailForm(holder), email, error }));
        if (email.length > MAX_EMAIL_LENGTH || !EMAIL.test(email)) return again(texts.emailInvalid);
        const before = await store.users.getById(realm.name, userId);
        if (!before) return reply.redirect(`${realm.issuer}/account`, 303);
        if (emailOf(before)?.toLowerCase() === email.toLowerCase()) return tools.backToAccount(reply, realm, texts.emailUnchanged);

        await store.tickets.withdraw('email_verification', realm.name, userId);
        let user;
        try {
          user = await store.users.update(realm.name, holder.username, { claims: { email, email_verified: false } });
        } catch (error) {
          if (isEmailTaken(error)) return again(texts.emailUnavailable);
          throw error;
        }
        if (!user) return reply.redirect(`${realm.issuer}/account`, 303);
        // A link mailed to the old address meanwhile (a sign-in's mail) must not confirm the new one either.
        await store.tickets.withdraw('email_verification', realm.name, userId);
        deps.audit.record({ realm: realm.name, type: 'user.updated', userId, address: request.ip, details: { via: 'account', claims: ['email', 'email_verified'] } });
        if (!realm.settings.email_verification) return tools.backToAccount(reply, realm, texts.emailChanged);
        const mailed = await mailVerification(deps, realm, user, { address: request.ip, locale: holder.locale });
        return tools.backToAccount(reply, realm, mailed === 'sent' ? texts.emailChangedConfirm(email) : texts.emailChangedNotMailed);
      });
    },
  };
}
