import type { Text } from '../../records/text.js';
import type { Store } from '../../store/index.js';
import type { KeyEncryption } from '../../tokens/key-encryption.js';
import { OTP_AMR, RECOVERY_CODE_AMR, base32Of, hasConfirmedTotp, issuerLabel, otpauthUri, pendingTotpSecret, verifyOneTimeCode } from '../otp.js';
import type { Mailer } from '../../mail/mailer.js';
import { EnrolmentCodeGate, type GatedEnrolment } from '../enrolment-code.js';
import type { NodeRunner } from './node.js';

const WRONG_CODE: Text = (t) => t.signIn.wrongCode;
const NO_CODE: Text = (t) => t.signIn.enterCode;

/**
 * The `otp` node: a code of the person's authenticator app (RFC 6238), or one of their
 * recovery codes. A person without a confirmed app sets one up right here: the pending
 * secret is kept in the database, and the first valid code both confirms it and passes.
 * Where the realm can mail the person's verified address, a code mailed there comes first
 * (src/authn/enrolment-code.ts): the secret is neither shown nor confirmed before it.
 *
 * Without pages (`enrols: false`, the password grant) nothing is set up: only a confirmed
 * app's code, or a recovery code, passes.
 */
export function otpNode(
  deps: { store: Pick<Store, 'users' | 'oneTimeCodes' | 'tickets' | 'mailAllowances'>; encryption: KeyEncryption; mailer: Mailer | undefined },
  options: { enrols: boolean } = { enrols: true },
): NodeRunner {
  const { store, encryption } = deps;
  const gate = new EnrolmentCodeGate(deps);
  return {
    type: 'otp',
    fields: ['otp', 'recovery_code', 'resend'],
    async view(context) {
      const { userId, realm } = context;
      if (userId !== undefined && !(await hasConfirmedTotp(store, realm.name, userId))) {
        const gated = await gate.pending(context);
        if (gated) return gate.view(context, gated);
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
      if (!options.enrols) {
        if (typed === undefined) return { error: NO_CODE, failure: false };
        const kind = await verifyOneTimeCode(store, encryption, context.realm.name, userId, typed);
        return kind === undefined ? { error: WRONG_CODE, failure: true } : { passed: { userId, amr: kind === 'otp' ? OTP_AMR : RECOVERY_CODE_AMR } };
      }
      if (form.resend !== undefined) {
        const gated = await gate.pending(context);
        if (gated) return gate.submit(context, gated, form);
      }
      if (typed === undefined || typed.trim() === '') return { error: NO_CODE, failure: false };
      // Enrolling: the secret is confirmed only once the mailed code passed; until then the code typed is the mail's.
      const enrolment: { gated?: GatedEnrolment } = {};
      const pending = async () => (enrolment.gated = await gate.pending(context)) === undefined;
      const kind = await verifyOneTimeCode(store, encryption, context.realm.name, userId, typed, { pending });
      if (kind === undefined && enrolment.gated && form.recovery_code === undefined) return gate.submit(context, enrolment.gated, form);
      if (kind === undefined) return { error: WRONG_CODE, failure: true };
      return { passed: { userId, amr: kind === 'otp' ? OTP_AMR : RECOVERY_CODE_AMR } };
    },
  };
}
