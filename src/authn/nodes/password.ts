import type { Text } from '../../records/text.js';
import type { UserStore } from '../../store/users.js';
import type { PasswordHashing } from '../password-hashing.js';
import { PASSWORD_AMR, passwordFingerprint, verifyPassword } from '../password-verification.js';
import type { NodeRunner } from './node.js';

/** One message whatever was wrong, so that the page does not tell which usernames exist. */
const WRONG_CREDENTIALS: Text = (t) => t.signIn.wrongCredentials;

/** The `password` node (CONTRACT.md §4): a username and a password, checked with argon2id. */
export function passwordNode(users: UserStore, hashing: PasswordHashing): NodeRunner {
  return {
    type: 'password',
    fields: ['username', 'password'],
    account: (form) => form.username,
    async view(context, _node, shown) {
      // The ways to an account (CONTRACT.md §9), each carrying this sign-in to come back to.
      const { issuer, settings } = context.realm;
      const transaction = `?transaction=${encodeURIComponent(context.transactionId)}`;
      return {
        kind: 'password',
        username: shown.username ?? '',
        ...(settings.self_registration ? { register: `${issuer}/register${transaction}` } : {}),
        ...(settings.password_reset ? { reset: `${issuer}/reset${transaction}` } : {}),
      };
    },
    async submit(context, _node, form) {
      if (form.username === undefined || form.password === undefined) return { error: (t) => t.signIn.enterUsernameAndPassword, failure: false };
      const user = await verifyPassword(users, hashing, context.realm.name, form.username, form.password);
      if (!user) return { error: WRONG_CREDENTIALS, failure: true };
      return { passed: { userId: user.id, amr: PASSWORD_AMR, passwordOf: passwordFingerprint(user.passwordHash!) }, disabled: !user.enabled, person: user };
    },
  };
}
