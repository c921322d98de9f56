import type { RequestRealm } from '../realms/resolve.js';
import type { SignInSource, SignInSourceStore } from '../store/sign-in-sources.js';
import type { BruteForceGuard } from './brute-force.js';

/**
 * The `risk` step: the steps after it are asked for when the sign-in comes from a device (a
 * long-lived cookie) or an address this person has not signed in from, or when their account
 * failed to sign in recently; otherwise they are skipped. A sign-in without a device (the
 * password grant) is judged by its address alone.
 */
export class RiskAssessor {
  constructor(
    private readonly sources: SignInSourceStore,
    private readonly bruteForce: BruteForceGuard,
  ) {}

  async needsMoreSteps(realm: RequestRealm, person: { userId: string; username: string }, source: SignInSource): Promise<boolean> {
    const [known, failed] = await Promise.all([
      this.sources.known(realm.name, person.userId, source),
      this.bruteForce.recentFailures(realm, person.username),
    ]);
    return failed || !known.address || (source.device !== undefined && !known.device);
  }

  /** A complete sign-in makes its device and address known. */
  remember(realm: RequestRealm, userId: string, source: SignInSource): Promise<void> {
    return this.sources.remember(realm.name, userId, source);
  }
}
