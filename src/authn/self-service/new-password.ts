import type { RealmSettings } from '../../realms/settings.js';
import { type PasswordContext, checkPassword } from '../password-policy.js';

/**
 * The realm's password policy (src/authn/password-policy.ts) as a sentence for a page, or
 * undefined when the password is acceptable: a person registering, resetting or changing it.
 */
export function newPasswordProblem(password: string, settings: Pick<RealmSettings, 'password_min_length'>, context: PasswordContext): string | undefined {
  const problem = checkPassword(password, settings, context);
  return problem && `The password ${problem.description}.`;
}
