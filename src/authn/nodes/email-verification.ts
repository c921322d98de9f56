import type { SelfServiceDeps } from '../self-service/deps.js';
import { emailToConfirm, mailVerification } from '../self-service/verification.js';
import type { NodeOutcome, NodeRunner } from './node.js';

/** What the person reads after asking for the mail again. */
const RESENT: Readonly<Record<'sent' | 'limited' | 'failed', NodeOutcome>> = {
  sent: { notice: (t) => t.emailVerification.resent },
  limited: { error: (t) => t.emailVerification.tooMany, failure: false },
  failed: { error: (t) => t.emailVerification.notSent, failure: false },
};

/**
 * The `email_verification` node (CONTRACT.md §8, §9), and the gate that the realm's
 * `email_verification` adds to every journey (src/authn/journeys/email-gate.ts). A confirmed
 * address passes it without a page (walk.ts); anyone else reads that they should open the
 * mail's link, and may have it sent again (within the tickets' limits), then continue.
 */
export function emailVerificationNode(deps: SelfServiceDeps): NodeRunner {
  return {
    type: 'email_verification',
    fields: ['resend'],
    async view() {
      return { kind: 'email_verification' };
    },
    async submit(context, _node, form) {
      const { realm, userId } = context;
      const user = userId === undefined ? undefined : await deps.store.users.getById(realm.name, userId);
      if (!user) return { error: (t) => t.signIn.signInFirst, failure: false };
      if (form.resend !== undefined) return RESENT[await mailVerification(deps, realm, user, context)];
      return emailToConfirm(user) ? { error: (t) => t.emailVerification.notYet, failure: false } : { passed: { userId: user.id, amr: [] } };
    },
  };
}
