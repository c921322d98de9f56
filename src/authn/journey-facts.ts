import type { RequestRealm } from '../records/realm.js';
import type { SignInSource } from '../store/sign-in-sources.js';
import type { Store } from '../store/index.js';
import type { JourneyFacts } from './journeys/walk.js';
import { hasConfirmedTotp } from './otp.js';
import { emailToConfirm } from './self-service/verification.js';
import type { RiskAssessor } from './risk.js';

/**
 * What the decided nodes of a journey ask, answered from the store: the risk of this
 * sign-in's source (a device cookie and an address; the password grant has no device), the
 * person's credentials, their `email_verified` claim.
 */
export function journeyFacts(
  deps: { store: Pick<Store, 'users' | 'passkeys' | 'oneTimeCodes'>; risk: RiskAssessor },
  realm: RequestRealm,
  /** `source` is asked for only when a risk node runs: a device cookie is set only then. */
  sign: { source: () => SignInSource; clientId: string | undefined },
): JourneyFacts {
  const { store, risk } = deps;
  return {
    clientId: sign.clientId,
    risk: async (userId) => ((await risk.needsMoreSteps(realm, userId, sign.source())) ? 'high' : 'low'),
    hasPasskey: async (userId) => (await store.passkeys.listForUser(realm.name, userId)).length > 0,
    hasOtp: (userId) => hasConfirmedTotp(store, realm.name, userId),
    emailVerified: async (userId) => (await store.users.getById(realm.name, userId))?.claims.email_verified === true,
    emailToConfirm: async (userId) => {
      const user = await store.users.getById(realm.name, userId);
      return user !== undefined && emailToConfirm(user);
    },
  };
}
