import { mailedLink, passwordResetMail, realmLabel } from '../../mail/messages.js';
import type { Text } from '../../records/text.js';
import type { Locale } from '../../records/locales.js';
import type { RequestRealm } from '../../records/realm.js';
import { type PasswordHashing, hashPassword } from '../password-hashing.js';
import type { User } from '../../store/users.js';
import { type Mailed, greetedName, sendCounted } from './counted-mail.js';
import type { Requester, SelfServiceDeps } from './deps.js';
import { newPasswordProblem } from './new-password.js';
import { emailOf } from './verification.js';

/**
 * A person who forgot their password asked for a link (CONTRACT.md §9), by username or email
 * address; a disabled person is mailed nothing. Whether anyone is named must not show, in what the page says or in how long it takes:
 * the caller answers without waiting for this. The work is the same for no one: the two
 * lookups, then a ticket issued, or the same statements run without a person
 * (`TicketStore.rehearse`). The mail is sent with the ticket, in the language of the page that
 * asked; nothing waits for it.
 */
export async function requestReset(deps: SelfServiceDeps, realm: RequestRealm, typed: string, requester: { address: string; locale: Locale }): Promise<void> {
  const { address, locale } = requester;
  const { users, tickets } = deps.store;
  const lifetime = realm.settings.ticket_lifetime;
  const [byName, byEmail] = await Promise.all([users.get(realm.name, typed), users.getByEmail(realm.name, typed)]);
  const person = byName ?? byEmail;
  const email = person && emailOf(person);
  // A disabled person signs in nowhere: a link would only tell them, or whoever reads their mail, that the account is there.
  if (!person?.enabled || email === undefined || !deps.mailer) return tickets.rehearse('password_reset', realm.name, address, lifetime);
  await mailPasswordReset(deps, realm, person, email, { address, locale });
}

/**
 * Issues a reset ticket for the person and mails its link to `email`, within the tickets' limits
 * (per person and per requesting address) and the recipient's; says what became of the mail.
 */
export async function mailPasswordReset(deps: SelfServiceDeps, realm: RequestRealm, person: User, email: string, requester: { address: string; locale: Locale }): Promise<Mailed> {
  const lifetime = realm.settings.ticket_lifetime;
  const issued = await deps.store.tickets.issue('password_reset', realm.name, person.id, requester.address, lifetime);
  if (issued === 'limited') return 'limited';
  const link = mailedLink(realm.issuer, '/reset', { ticket: issued.ticket }, requester.locale);
  return sendCounted(deps, realm, passwordResetMail(email, { realm: realmLabel(realm), username: greetedName(person), link, lifetime, locale: requester.locale, texts: realm.texts }));
}

/** Whose a reset ticket is while it works, without using it: the page that asks for the new password. */
export async function resetTicketHolder(deps: SelfServiceDeps, realm: RequestRealm, ticket: string): Promise<string | undefined> {
  const userId = await deps.store.tickets.live('password_reset', realm.name, ticket);
  return userId === undefined ? undefined : deps.store.users.usernameOf(realm.name, userId);
}

/** `gone`: the ticket does not work (unknown, used, expired); a problem: the policy refused the password, and the ticket still works. */
export type ResetOutcome = 'done' | 'gone' | { readonly problem: Text; readonly username: string };

/**
 * Sets the new password of the ticket's person: the realm's policy first (a refused password
 * leaves the ticket working), then the ticket is used, the password set, and the person's
 * sessions ended and grants revoked (UserStore.update, CONTRACT.md §7); a `user.password_reset`
 * event.
 */
export async function resetPassword(deps: SelfServiceDeps & { readonly passwordHashing: PasswordHashing }, realm: RequestRealm, ticket: string, password: string, requester: Requester): Promise<ResetOutcome> {
  const { users, tickets } = deps.store;
  const userId = await tickets.live('password_reset', realm.name, ticket);
  const user = userId === undefined ? undefined : await users.getById(realm.name, userId);
  if (!user) return 'gone';
  const problem = newPasswordProblem(password, realm.settings, { username: user.username, email: emailOf(user) });
  if (problem) return { problem, username: user.username };
  const passwordHash = await hashPassword(password, deps.passwordHashing);
  if ((await tickets.redeem('password_reset', realm.name, ticket)) !== user.id) return 'gone';
  if (!(await users.update(realm.name, user.username, { passwordHash }))) return 'gone';
  requester.audit.record({ realm: realm.name, type: 'user.password_reset', userId: user.id, address: requester.address });
  return 'done';
}
