import { PASSWORD_AMR } from '../password-verification.js';
import type { SelfServiceDeps } from '../self-service/deps.js';
import type { PasswordHashing } from '../password-hashing.js';
import { REGISTRATION_FIELDS, register } from '../self-service/person-registration.js';
import type { NodeRunner } from './node.js';

/**
 * The `register` node (CONTRACT.md §8, §9): the registration form within the sign-in. The new
 * person passes it as with a password (`pwd`), and the journey goes on as theirs; with the
 * realm's `email_verification`, the link that confirms the address is mailed at once. The node
 * runs wherever a journey has it: the realm's `self_registration` governs `{issuer}/register`.
 */
export function registerNode(deps: SelfServiceDeps & { readonly passwordHashing: PasswordHashing }): NodeRunner {
  return {
    type: 'register',
    fields: REGISTRATION_FIELDS,
    async view(_context, _node, shown) {
      const form = shown.form ?? {};
      return { kind: 'register', kept: { username: form.username ?? '', email: form.email ?? '', given_name: form.given_name ?? '', family_name: form.family_name ?? '' } };
    },
    async submit(context, _node, form) {
      const registration = await register(deps, context.realm, form, { address: context.address, audit: context.audit, locale: context.locale, via: 'sign_in' });
      if ('problems' in registration) {
        const { problems } = registration;
        return { error: (t) => problems.map((problem) => problem(t)).join(' '), failure: false };
      }
      // The address is someone's: its owner was mailed, and nobody signs in.
      if ('addressTaken' in registration) return { error: (t) => t.register.addressMailed(form.email!.trim()), failure: false };
      return { passed: { userId: registration.user.id, amr: PASSWORD_AMR } };
    },
  };
}
