import { realmLabel, verificationMail } from '../../mail/messages.js';
import type { RequestRealm } from '../../realms/resolve.js';
import type { User } from '../../store/users.js';
import type { Requester, SelfServiceDeps } from './deps.js';

/** The person's email address, when their claims hold one. */
export const emailOf = (user: Pick<User, 'claims'>): string | undefined => (typeof user.claims.email === 'string' ? user.claims.email : undefined);

/**
 * Whether the person has an email address they have not confirmed. Someone without an address
 * (a person an admin made without one) has nothing to confirm and is not stopped.
 */
export const emailToConfirm = (user: Pick<User, 'claims'>): boolean => emailOf(user) !== undefined && user.claims.email_verified !== true;

/** What became of a mail a page sends: sent, refused by the tickets' limits, or not taken by the mail server. */
export type Mailed = 'sent' | 'limited' | 'failed';

/**
 * Mails the person a link `{issuer}/verify?ticket=…` that confirms their address (CONTRACT.md
 * §9), in the language of the page that asked. Awaited: the page says whether it went.
 */
export async function mailVerification(deps: SelfServiceDeps, realm: RequestRealm, user: User, requester: Pick<Requester, 'address' | 'locale'>): Promise<Mailed> {
  const { address, locale } = requester;
  const email = emailOf(user);
  if (email === undefined || !deps.mailer) return 'failed';
  const lifetime = realm.settings.ticket_lifetime;
  const issued = await deps.store.tickets.issue('email_verification', realm.name, user.id, address, lifetime);
  if (issued === 'limited') return 'limited';
  const link = `${realm.issuer}/verify?ticket=${encodeURIComponent(issued.ticket)}`;
  const sent = await deps.mailer.send(verificationMail(email, { realm: realmLabel(realm), username: user.username, link, lifetime, locale }));
  return sent ? 'sent' : 'failed';
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
