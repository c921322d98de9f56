import type { MailMessage } from '../../mail/mailer.js';
import type { RequestRealm } from '../../records/realm.js';
import type { User } from '../../store/users.js';
import type { SelfServiceDeps } from './deps.js';

/** What became of a mail a page sends: sent, refused by a limit (the tickets', the recipient's), or not taken by the mail server. */
export type Mailed = 'sent' | 'limited' | 'failed';

/**
 * Sends a mail of the pages by which people manage themselves (and a sign-in's enrolment code), counted first against its
 * recipient's limit (5 an hour per realm, src/store/mail-allowances.ts): whoever types an
 * address cannot have it flooded, from however many addresses or instances.
 */
export async function sendCounted(deps: Pick<SelfServiceDeps, 'mailer'> & { readonly store: Pick<SelfServiceDeps['store'], 'mailAllowances'> }, realm: RequestRealm, message: MailMessage): Promise<Mailed> {
  if (!deps.mailer) return 'failed';
  if (!(await deps.store.mailAllowances.take(realm.name, message.to))) return 'limited';
  return (await deps.mailer.send(message)) ? 'sent' : 'failed';
}

/**
 * The username a mail to the person may name: only once their address is confirmed. Until
 * then whoever typed the address also chose the username, which would carry their words to it.
 */
export const greetedName = (user: Pick<User, 'username' | 'claims'>): string | undefined =>
  user.claims.email_verified === true ? user.username : undefined;
