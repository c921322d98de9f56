import { addressTakenMail, mailedLink, realmLabel } from '../../mail/messages.js';
import type { Text } from '../../records/text.js';
import { addressKey } from '../../address-key.js';
import { tooManyFromAddress } from '../../rate-limits/rate-limits.js';
import type { RequestRealm } from '../../records/realm.js';
import type { Claims, User } from '../../store/users.js';
import { type PasswordHashing, hashPassword } from '../password-hashing.js';
import { USERNAME } from '../username.js';
import { greetedName, sendCounted } from './counted-mail.js';
import type { Requester, SelfServiceDeps } from './deps.js';
import { newPasswordProblem } from './new-password.js';
import { type Mailed, mailVerification } from './verification.js';

/**
 * Registrations an address may try in the window, each counted before its username is looked
 * up: whether a username is taken is told at most this often, not to anyone who asks.
 */
export const REGISTRATION_LIMIT = { perAddress: 30, windowSeconds: 15 * 60 } as const;

/** One address: something, `@`, a domain with a dot; no spaces or control characters. */
export const EMAIL = /^[^\s@\p{C}]{1,64}@(?:[^\s@.\p{C}]+\.)+[^\s@.\p{C}]+$/u;
export const MAX_EMAIL_LENGTH = 254;
export const MAX_NAME_LENGTH = 100;
/** Control and format characters (Unicode `Cc`, `Cf`…) in a name. */
const INVISIBLE = /\p{C}/u;
const USERNAME_TAKEN: Text = (t) => t.register.usernameTaken;

/** The registration form's fields (CONTRACT.md §9). */
export const REGISTRATION_FIELDS = ['username', 'email', 'password', 'given_name', 'family_name'] as const;
export type RegistrationForm = Readonly<Partial<Record<(typeof REGISTRATION_FIELDS)[number], string>>>;

/**
 * The person created, and what became of the verification mail (none when the realm does not
 * verify); or, when the address is another person's, nobody created and what became of the mail
 * to its owner (its page must read as a success: `addressTaken`); or why not.
 */
export type Registration =
  | { readonly user: User; readonly mailed: Mailed | undefined }
  | { readonly addressTaken: true; readonly mailed: Mailed | undefined }
  | { readonly problems: readonly Text[] };

/** `register_page`: `{issuer}/register`; `sign_in`: a journey's `register` node. */
export type RegisteredVia = 'register_page' | 'sign_in';

/**
 * A person registers (CONTRACT.md §9): a free username, a well-formed email address, a
 * password of the realm's policy, and optionally their names. The person is created with
 * `email_verified: false` and a `user.registered` event; with the realm's
 * `email_verification`, a mail with the link that confirms the address follows.
 *
 * An address is one person's (CONTRACT.md §7): with an address that is already someone's, no
 * one is created, its owner is mailed instead (within the address's mail limit), and the
 * caller shows what a registration shows, so that the page tells no one whose address it is.
 * Each attempt with a well-formed username counts against the address's REGISTRATION_LIMIT
 * before the username is looked up (past it: 429).
 */
export async function register(deps: SelfServiceDeps & { readonly passwordHashing: PasswordHashing }, realm: RequestRealm, form: RegistrationForm, requester: Requester & { via: RegisteredVia }): Promise<Registration> {
  const { users } = deps.store;
  const username = form.username?.trim() ?? '';
  const email = form.email?.trim() ?? '';
  const password = form.password ?? '';
  const problems: Text[] = [];
  if (!USERNAME.test(username)) problems.push((t) => t.register.usernameInvalid);
  else if ((await countAttempt(deps, realm, requester.address)) && (await users.get(realm.name, username))) problems.push(USERNAME_TAKEN);
  if (email.length > MAX_EMAIL_LENGTH || !EMAIL.test(email)) problems.push((t) => t.register.emailInvalid);
  const names = namesOf(form, problems);
  const passwordProblem = newPasswordProblem(password, realm.settings, { username, email });
  if (passwordProblem) problems.push(passwordProblem);
  if (problems.length > 0) return { problems };

  // Hashed whether or not the address is taken: the time of the answer must not tell.
  const passwordHash = await hashPassword(password, deps.passwordHashing);
  const owner = await users.getByEmail(realm.name, email);
  if (owner) return { addressTaken: true, mailed: await mailOwner(deps, realm, owner, requester) };
  const claims: Claims = { email, email_verified: false, ...names };
  const user = await users.create(realm.name, username, passwordHash, claims);
  if (!user) {
    // The username or the address taken meanwhile by someone else.
    const meanwhile = await users.getByEmail(realm.name, email);
    if (meanwhile) return { addressTaken: true, mailed: await mailOwner(deps, realm, meanwhile, requester) };
    return { problems: [USERNAME_TAKEN] };
  }
  requester.audit.record({ realm: realm.name, type: 'user.registered', userId: user.id, address: requester.address, details: { via: requester.via } });
  const mailed = realm.settings.email_verification ? await mailVerification(deps, realm, user, requester) : undefined;
  return { user, mailed };
}

/** Counts the attempt against the address's REGISTRATION_LIMIT (an IPv6 address by its /64); throws past it. */
async function countAttempt(deps: SelfServiceDeps, realm: RequestRealm, address: string): Promise<true> {
  const key = `register:${realm.name}:${addressKey(address)}`;
  const { count, secondsLeft } = await deps.store.attemptCounters.countRequest(key, REGISTRATION_LIMIT.windowSeconds);
  if (count > REGISTRATION_LIMIT.perAddress) throw tooManyFromAddress(secondsLeft);
  return true;
}

/**
 * Tells the owner of an address that someone tried to register it, with a link to their
 * account; nothing for a disabled owner (a password reset mails them nothing either). What
 * becomes of it stands in for the verification mail a registration would have sent, and is
 * awaited only where that one would be: without `email_verification`, a registration mails
 * nothing, and its answer does not wait for a mail server.
 */
async function mailOwner(deps: SelfServiceDeps, realm: RequestRealm, owner: User, requester: Requester): Promise<Mailed | undefined> {
  const sending: Promise<Mailed> = owner.enabled
    ? sendCounted(deps, realm, addressTakenMail(owner.claims.email as string, {
        realm: realmLabel(realm),
        username: greetedName(owner),
        link: mailedLink(realm.issuer, '/account', {}, requester.locale),
        lifetime: undefined,
        locale: requester.locale,
        texts: realm.texts,
      }))
    : Promise.resolve('sent');
  if (realm.settings.email_verification) return sending;
  // Nobody waits for it: a failure to count it (the database gone) sends nothing, and is the mail's alone.
  sending.catch(() => undefined);
  return undefined;
}

/** The optional names, trimmed; a problem for each that cannot be one. */
function namesOf(form: RegistrationForm, problems: Text[]): Claims {
  const names: Claims = {};
  const invalid: Record<'given_name' | 'family_name', Text> = {
    given_name: (t) => t.register.givenNameInvalid(MAX_NAME_LENGTH),
    family_name: (t) => t.register.familyNameInvalid(MAX_NAME_LENGTH),
  };
  for (const field of ['given_name', 'family_name'] as const) {
    const value = form[field]?.trim();
    if (!value) continue;
    if (value.length > MAX_NAME_LENGTH || INVISIBLE.test(value)) problems.push(invalid[field]);
    else names[field] = value;
  }
  return names;
}
