import { CLOCK_SKEW_SECONDS } from '../assertions/signed-jwt.js';
import type { RequestRealm } from '../records/realm.js';
import type { AssertionSpend, SpentAssertionStore } from '../store/spent-assertions.js';
import { type HeadersOf, dpopProofOf } from './header.js';
import type { DpopNonces } from './nonces.js';
import { DpopProofError, type VerifiedProof, verifyDpopProof } from './proof.js';

/** Why a proof whose `jti` was spent before is refused. */
export const PROOF_REPLAYED = 'the DPoP proof was used before (its jti is spent)';

/** The request a proof comes with. */
export type ProvedRequest = HeadersOf & { readonly method: string };

/**
 * The DPoP proofs this server receives (RFC 9449): at the token endpoint and PAR, which bind
 * what they issue to the proof's key, and at UserInfo, which checks the key of a bound token.
 * A proof is verified for the endpoint's URL below the realm's issuer, with the nonce the realm
 * may demand (`dpop_nonce`), and its `jti` is spent once across every instance: one conditional
 * INSERT into the spent assertions, by the key's thumbprint, kept until the proof could no
 * longer be accepted anyway, when the cleanup deletes it (src/store/cleanup.ts). That INSERT
 * is a statement of its own (`verify`), or part of the one that writes the tokens the proof
 * binds (`check`, then `spendOf` for the token store: src/store/tokens.ts insertAllSpending).
 */
export class DpopProofs {
  constructor(
    private readonly deps: {
      spent: Pick<SpentAssertionStore, 'use'>;
      nonces: DpopNonces;
    },
  ) {}

  /** `DPoP-Nonce` for the answers of a realm that demands nonces (RFC 9449 §8: any answer may carry a fresh one). */
  nonceHeaders(realm: RequestRealm): Record<string, string> {
    return realm.settings.dpop_nonce ? { 'dpop-nonce': this.deps.nonces.current(realm.name) } : {};
  }

  /**
   * The request's proof, verified for `path` of the realm (and for `accessToken`, whose hash it
   * must carry), its `jti` spent; undefined when the request sends none. Throws DpopProofError.
   */
  async verify(request: ProvedRequest, realm: RequestRealm, path: string, accessToken?: string): Promise<VerifiedProof | undefined> {
    const verified = await this.check(request, realm, path, accessToken);
    if (verified === undefined) return undefined;
    const spend = this.spendOf(realm, verified);
    if (!(await this.deps.spent.use(spend.realm, spend.issuer, spend.id, spend.expiresAt))) throw new DpopProofError('invalid_dpop_proof', PROOF_REPLAYED);
    return verified;
  }

  /** `verify` without spending the `jti`: the caller spends `spendOf` the proof with what it writes, or refuses the request. */
  async check(request: ProvedRequest, realm: RequestRealm, path: string, accessToken?: string): Promise<VerifiedProof | undefined> {
    const proof = dpopProofOf(request);
    if (proof === undefined) return undefined;
    return verifyDpopProof(proof, {
      method: request.method,
      url: `${realm.issuer}${path}`,
      accessToken,
      nonce: realm.settings.dpop_nonce ? { accepts: (nonce) => this.deps.nonces.accepts(realm.name, nonce) } : undefined,
      clockSkewSeconds: CLOCK_SKEW_SECONDS,
    });
  }

  /** The spent assertion a verified proof leaves: its `jti`, by its key's thumbprint, until it could no longer be accepted. */
  spendOf(realm: RequestRealm, verified: VerifiedProof): AssertionSpend {
    return { realm: realm.name, issuer: `DPoP ${verified.thumbprint}`, id: verified.jti, expiresAt: verified.acceptableUntil };
  }
}
