import type { Text } from '../../records/text.js';
import type { RealmSettings } from '../../records/realm-settings.js';
import { PASSWORD_MAX_LENGTH, type PasswordContext, checkPassword } from '../password-policy.js';

/**
 * The realm's password policy (src/authn/password-policy.ts) as a sentence for a page, or
 * undefined when the password is acceptable: a person registering, resetting or changing it.
 */
export function newPasswordProblem(password: string, settings: Pick<RealmSettings, 'password_min_length'>, context: PasswordContext): Text | undefined {
  const problem = checkPassword(password, settings, context);
  if (!problem) return undefined;
  const { reason } = problem;
  if (reason === 'too_short') return (t) => t.passwordPolicy.too_short(settings.password_min_length);
  if (reason === 'too_long') return (t) => t.passwordPolicy.too_long(PASSWORD_MAX_LENGTH);
  return (t) => t.passwordPolicy[reason];
}
