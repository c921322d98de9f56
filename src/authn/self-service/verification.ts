import { mailedLink, realmLabel, verificationMail } from '../../mail/messages.js';
import type { RequestRealm } from '../../records/realm.js';
import type { User } from '../../store/users.js';
import { type Mailed, sendCounted } from './counted-mail.js';
import type { Requester, SelfServiceDeps } from './deps.js';

export type { Mailed } from './counted-mail.js';

/** The person's email address, when their claims hold one. */
export const emailOf = (user: Pick<User, 'claims'>): string | undefined => (typeof user.claims.email === 'string' ? user.claims.email : undefined);

/**
 * Whether the person has an email address they have not confirmed. Someone without an address
 * (a person an admin made without one) has nothing to confirm and is not stopped.
 */
export const emailToConfirm = (user: Pick<User, 'claims'>): boolean => emailOf(user) !== undefined && user.claims.email_verified !== true;

/**
 * Mails the person a link `{issuer}/verify?ticket=…` that confirms their address (CONTRACT.md
 * §9), in the language of the page that asked, within the ticket's and the address's limits.
 * Awaited: the page says whether it went.
 */
export async function mailVerification(deps: SelfServiceDeps, realm: RequestRealm, user: User, requester: Pick<Requester, 'address' | 'locale'>): Promise<Mailed> {
  const { address, locale } = requester;
  const email = emailOf(user);
  if (email === undefined || !deps.mailer) return 'failed';
  const lifetime = realm.settings.ticket_lifetime;
  const issued = await deps.store.tickets.issue('email_verification', realm.name, user.id, address, lifetime);
  if (issued === 'limited') return 'limited';
  const link = mailedLink(realm.issuer, '/verify', { ticket: issued.ticket }, locale);
  // No username: the address is not confirmed yet (greetedName).
  return sendCounted(deps, realm, verificationMail(email, { realm: realmLabel(realm), username: undefined, link, lifetime, locale, texts: realm.texts }));
}

/**
 * Uses a verification ticket: the person's `email_verified` claim becomes true, and a
 * `user.email_verified` event is recorded. Undefined when the ticket does not work (unknown,
 * used, expired).
 */
export async function confirmEmail(deps: SelfServiceDeps, realm: RequestRealm, ticket: string, requester: Requester): Promise<User | undefined> {
  const { users, tickets } = deps.store;
  const userId = await tickets.redeem('email_verification', realm.name, ticket);
  const user = userId === undefined ? undefined : await users.getById(realm.name, userId);
  if (!user) return undefined;
  const confirmed = await users.update(realm.name, user.username, { claims: { email_verified: true } });
  if (confirmed) requester.audit.record({ realm: realm.name, type: 'user.email_verified', userId: user.id, address: requester.address });
  return confirmed;
}
