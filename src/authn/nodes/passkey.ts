import type { Store } from '../../store/index.js';
import type { JourneyNode } from '../../records/journey.js';
import type { CeremonyFailure, Failed } from '../passkey-ceremony.js';
import { RelyingParty, passkeyName } from '../passkeys.js';
import type { Mailer } from '../../mail/mailer.js';
import { EnrolmentCodeGate } from '../enrolment-code.js';
import type { NodeContext, NodeOutcome, NodeRunner } from './node.js';

/** Whether a failed ceremony counts towards brute-force limits: only a passkey the server refused. */
const COUNTED: Readonly<Record<CeremonyFailure, boolean>> = {
  missing: false,
  malformed: false,
  expired: false,
  refused: true,
  duplicate: false,
  limit: false,
};

export interface PasskeyNodeRunner extends NodeRunner {
  /** The options of a passwordless ceremony, offered beside a password form. */
  passwordlessOptions(context: NodeContext): Promise<unknown>;
}

/**
 * The `passkey` node (WebAuthn). Two ways through it:
 *
 * - for the person a node before identified, a passkey of theirs (allowCredentials): a
 *   second factor. A person who has none takes `unavailable` (the journey decides that
 *   without a page), or, at a node with `enrol`, registers one here, which passes it.
 * - for no one yet, a discoverable credential with user verification: a passwordless
 *   sign-in without a username, as the node's page or offered beside a password form.
 *
 * Without JavaScript it cannot be passed, and its page says so.
 */
export function passkeyNode(deps: { store: Pick<Store, 'users' | 'passkeys' | 'webauthnChallenges' | 'tickets' | 'mailAllowances'>; baseUrl: string; mailer: Mailer | undefined }): PasskeyNodeRunner {
  const { store } = deps;
  // A first passkey enrolled here asks first for a code mailed to the verified address (src/authn/enrolment-code.ts).
  const gate = new EnrolmentCodeGate(deps);
  const relyingParty = new RelyingParty(deps.baseUrl, store.passkeys, store.webauthnChallenges);
  const bindingOf = (context: NodeContext) => ({ transactionId: context.transactionId });

  function failedWith(context: NodeContext, outcome: Failed): NodeOutcome {
    if (outcome.failure === 'refused' || outcome.failure === 'malformed') {
      context.log.info({ passkey: outcome.failure, reason: outcome.detail }, 'passkey not accepted');
    }
    const { failure } = outcome;
    return { error: (t) => t.passkey.failures[failure], failure: COUNTED[failure] };
  }

  const offersUnavailable = (node: JourneyNode) => node.type === 'passkey' && node.next.unavailable !== 'deny';

  return {
    type: 'passkey',
    fields: ['credential', 'passkey_name', 'unavailable', 'otp', 'resend'],

    passwordlessOptions: (context) => relyingParty.authenticationOptions(context.realm.name, bindingOf(context)),

    async view(context, node) {
      const { realm, userId } = context;
      if (userId === undefined) {
        const options = await relyingParty.authenticationOptions(realm.name, bindingOf(context));
        return { kind: 'passkey', mode: 'passwordless', options, offerUnavailable: offersUnavailable(node) };
      }
      const passkeys = await store.passkeys.listForUser(realm.name, userId);
      if (passkeys.length === 0) {
        const gated = node.type === 'passkey' && node.enrol ? await gate.pending(context) : undefined;
        if (gated) return gate.view(context, gated);
        const username = (await store.users.usernameOf(realm.name, userId)) ?? '';
        const options = await relyingParty.registrationOptions(realm.name, bindingOf(context), { userId, username, passkeys });
        return { kind: 'passkey', mode: 'register', options, offerUnavailable: false };
      }
      const options = await relyingParty.authenticationOptions(realm.name, bindingOf(context), { userId, passkeys });
      return { kind: 'passkey', mode: 'second_factor', options, offerUnavailable: false };
    },

    async submit(context, node, form) {
      const { realm, userId } = context;
      if (userId === undefined) {
        if (form.unavailable !== undefined && offersUnavailable(node)) return { outcome: 'unavailable' };
        const outcome = await relyingParty.verifyAuthentication(realm.name, bindingOf(context), form.credential, {});
        if (!outcome.ok) return failedWith(context, outcome);
        const disabled = (await store.users.getById(realm.name, outcome.passkey.userId))?.enabled !== true;
        return { passed: { userId: outcome.passkey.userId, amr: outcome.amr }, disabled };
      }
      if ((await store.passkeys.listForUser(realm.name, userId)).length === 0) {
        if (node.type !== 'passkey' || !node.enrol) return { outcome: 'unavailable' };
        const gated = await gate.pending(context);
        if (gated) return gate.submit(context, gated, form);
        const name = passkeyName(form.passkey_name);
        const outcome = await relyingParty.verifyRegistration(realm.name, bindingOf(context), form.credential, { userId, name });
        if (!outcome.ok) return failedWith(context, outcome);
        context.audit.record({ realm: realm.name, type: 'user.passkey_registered', userId, address: context.address, details: { via: 'sign_in' } });
        // The new key was shown to be held, as a first one-time code shows an app's: it
        // passes this node, but proves no more than possession.
        return { passed: { userId, amr: outcome.amr.filter((method) => method !== 'mfa') } };
      }
      const outcome = await relyingParty.verifyAuthentication(realm.name, bindingOf(context), form.credential, { userId });
      if (!outcome.ok) return failedWith(context, outcome);
      return { passed: { userId, amr: outcome.amr } };
    },
  };
}
