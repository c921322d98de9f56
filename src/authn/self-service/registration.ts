import type { Text } from '../../pages/i18n/index.js';
import type { RequestRealm } from '../../realms/resolve.js';
import type { Claims, User } from '../../store/users.js';
import { hashPassword } from '../password-hashing.js';
import { USERNAME } from '../username.js';
import type { Requester, SelfServiceDeps } from './deps.js';
import { newPasswordProblem } from './new-password.js';
import { type Mailed, mailVerification } from './verification.js';

/** One address: something, `@`, a domain with a dot; no spaces or control characters. */
const EMAIL = /^[^\s@\p{C}]{1,64}@(?:[^\s@.\p{C}]+\.)+[^\s@.\p{C}]+$/u;
const MAX_EMAIL_LENGTH = 254;
const MAX_NAME_LENGTH = 100;
/** Control and format characters (Unicode `Cc`, `Cf`…) in a name. */
const INVISIBLE = /\p{C}/u;
const USERNAME_TAKEN: Text = (t) => t.register.usernameTaken;

/** The registration form's fields (CONTRACT.md §9). */
export const REGISTRATION_FIELDS = ['username', 'email', 'password', 'given_name', 'family_name'] as const;
export type RegistrationForm = Readonly<Partial<Record<(typeof REGISTRATION_FIELDS)[number], string>>>;

/** The person created, and what became of the verification mail (none when the realm does not verify); or why not. */
export type Registration = { readonly user: User; readonly mailed: Mailed | undefined } | { readonly problems: readonly Text[] };

/** `register_page`: `{issuer}/register`; `sign_in`: a journey's `register` node. */
export type RegisteredVia = 'register_page' | 'sign_in';

/**
 * A person registers (CONTRACT.md §9): a free username, a well-formed email address, a
 * password of the realm's policy, and optionally their names. The person is created with
 * `email_verified: false` and a `user.registered` event; with the realm's
 * `email_verification`, a mail with the link that confirms the address follows.
 */
export async function register(deps: SelfServiceDeps, realm: RequestRealm, form: RegistrationForm, requester: Requester & { via: RegisteredVia }): Promise<Registration> {
  const { users } = deps.store;
  const username = form.username?.trim() ?? '';
  const email = form.email?.trim() ?? '';
  const password = form.password ?? '';
  const problems: Text[] = [];
  if (!USERNAME.test(username)) problems.push((t) => t.register.usernameInvalid);
  else if (await users.get(realm.name, username)) problems.push(USERNAME_TAKEN);
  if (email.length > MAX_EMAIL_LENGTH || !EMAIL.test(email)) problems.push((t) => t.register.emailInvalid);
  const names = namesOf(form, problems);
  const passwordProblem = newPasswordProblem(password, realm.settings, { username, email });
  if (passwordProblem) problems.push(passwordProblem);
  if (problems.length > 0) return { problems };

  const claims: Claims = { email, email_verified: false, ...names };
  const user = await users.create(realm.name, username, await hashPassword(password), claims);
  // Taken meanwhile by another registration.
  if (!user) return { problems: [USERNAME_TAKEN] };
  requester.audit.record({ realm: realm.name, type: 'user.registered', userId: user.id, address: requester.address, details: { via: requester.via } });
  const mailed = realm.settings.email_verification ? await mailVerification(deps, realm, user, requester) : undefined;
  return { user, mailed };
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
