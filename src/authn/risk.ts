import { addressKey } from '../address-key.js';
import type { RequestRealm } from '../records/realm.js';
import type { SignInSource, SignInSourceStore } from '../store/sign-in-sources.js';
import type { BruteForceGuard } from './brute-force.js';

/**
 * The `risk` step: the steps after it are asked for when the sign-in comes from a device (a
 * long-lived cookie) or an address this person has not signed in from, or when their account
 * failed to sign in recently; otherwise they are skipped. A sign-in without a device (the
 * password grant) is judged by its address alone.
 *
 * An address is known by its network as every per-address count knows it (`addressKey`): an
 * IPv6 address by its /64, since a host picks a new one within it every day or so (RFC 8981
 * temporary addresses), which would make every sign-in look new; the whole /64 is one site,
 * as one IPv4 address is one home or office behind its router.
 */
export class RiskAssessor {
  constructor(
    private readonly sources: SignInSourceStore,
    private readonly bruteForce: BruteForceGuard,
  ) {}

  async needsMoreSteps(realm: RequestRealm, userId: string, source: SignInSource): Promise<boolean> {
    const [known, failed] = await Promise.all([
      this.sources.known(realm.name, userId, networkOf(source)),
      this.bruteForce.recentFailures(realm, userId),
    ]);
    return failed || !known.address || (source.device !== undefined && !known.device);
  }

  /** A complete sign-in makes its device and address known. */
  remember(realm: RequestRealm, userId: string, source: SignInSource): Promise<void> {
    return this.sources.remember(realm.name, userId, networkOf(source));
  }
}

/** A source as the risk node knows it: its address by its network. */
export const networkOf = (source: SignInSource): SignInSource => ({ device: source.device, address: addressKey(source.address) });
