import type { RealmSettings } from '../records/realm-settings.js';
import { commonPasswords } from './common-passwords.js';

/** The longest password hashed: a bound on the work one request can ask of argon2. */
export const PASSWORD_MAX_LENGTH = 1024;

/** Who the password is for: it may not be their username or email address. */
export interface PasswordContext {
  readonly username?: string | undefined;
  readonly email?: string | undefined;
}

/** Why a password is refused: a reason a page may word its own way, and a description that never holds the password. */
export interface PasswordProblem {
  readonly reason: 'too_short' | 'too_long' | 'common' | 'username' | 'email';
  /** Completes "password: …", e.g. "must be at least 8 characters". */
  readonly description: string;
}

/** Compared as a person would read them: compatibility forms folded, case ignored. */
const fold = (text: string): string => text.normalize('NFKC').toLowerCase();

/**
 * The checks of every new password (CONTRACT.md §9), whoever sets it: an admin, a person
 * registering, resetting or changing it. Undefined when the password is acceptable. Length is
 * counted in characters (code points), as a person counts them.
 */
export function checkPassword(
  password: string,
  settings: Pick<RealmSettings, 'password_min_length'>,
  context: PasswordContext = {},
): PasswordProblem | undefined {
  const min = settings.password_min_length;
  if (password.length > PASSWORD_MAX_LENGTH) return { reason: 'too_long', description: `must be at most ${PASSWORD_MAX_LENGTH} characters` };
  if ([...password].length < min) return { reason: 'too_short', description: `must be at least ${min} character${min === 1 ? '' : 's'}` };
  const folded = fold(password);
  if (commonPasswords().has(folded)) return { reason: 'common', description: 'is one of the most common passwords: choose another' };
  if (context.username && folded === fold(context.username)) return { reason: 'username', description: 'must not be the username' };
  if (context.email && folded === fold(context.email)) return { reason: 'email', description: 'must not be the email address' };
  return undefined;
}
