import type { Text } from '../../pages/i18n/index.js';
import type { Store } from '../../store/index.js';
import type { KeyEncryption } from '../../tokens/key-encryption.js';
import { OTP_AMR, RECOVERY_CODE_AMR, base32Of, hasConfirmedTotp, issuerLabel, otpauthUri, pendingTotpSecret, verifyOneTimeCode } from '../otp.js';
import type { NodeRunner } from './node.js';

const WRONG_CODE: Text = (t) => t.signIn.wrongCode;
const NO_CODE: Text = (t) => t.signIn.enterCode;

/**
 * The `otp` node: a code of the person's authenticator app (RFC 6238), or one of their
 * recovery codes. A person without a confirmed app sets one up right here: the pending
 * secret is kept in the database, and the first valid code both confirms it and passes.
 */
export function otpNode(deps: { store: Pick<Store, 'users' | 'oneTimeCodes'>; encryption: KeyEncryption }): NodeRunner {
  const { store, encryption } = deps;
  return {
    type: 'otp',
    fields: ['otp', 'recovery_code'],
    async view(context) {
      const { userId, realm } = context;
      if (userId !== undefined && !(await hasConfirmedTotp(store, realm.name, userId))) {
        const secret = await pendingTotpSecret(store, encryption, realm.name, userId, { fresh: false });
        if (secret) {
          const username = (await store.users.usernameOf(realm.name, userId)) ?? '';
          return { kind: 'otp_enrolment', otpauthUri: otpauthUri(issuerLabel(realm), username, secret), secretBase32: base32Of(secret) };
        }
      }
      return { kind: 'otp' };
    },
    async submit(context, _node, form) {
      const { userId } = context;
      const typed = form.recovery_code ?? form.otp;
      if (userId === undefined) return { error: (t) => t.signIn.signInFirst, failure: false };
      if (typed === undefined || typed.trim() === '') return { error: NO_CODE, failure: false };
      const kind = await verifyOneTimeCode(store, encryption, context.realm.name, userId, typed, { pending: true });
      if (kind === undefined) return { error: WRONG_CODE, failure: true };
      return { passed: { userId, amr: kind === 'otp' ? OTP_AMR : RECOVERY_CODE_AMR } };
    },
  };
}
