import { PROOF_REPLAYED } from '../dpop/proofs.js';
import { DpopProofError } from '../dpop/proof.js';
import { OAuthError } from '../errors.js';
import type { AssertionSpend } from '../store/spent-assertions.js';
import type { TokenStore } from '../store/tokens.js';
import type { MintedTokens, TokenResponse } from '../tokens/issuer.js';

/** Where a grant's minted tokens are written: their rows and event in one statement (src/store/tokens.ts insertAll). */
export type TokenWriter = Pick<TokenStore, 'insertAll' | 'insertAllSpending'>;

const PERSON_GONE = 'the person behind the grant no longer exists, was disabled, or changed their password meanwhile';

/**
 * Writes what the issuer minted: batched with other grants' and committed when this resolves,
 * or in the transaction whose token store is given (`Store.transaction`). Refused when the
 * person behind the tokens was deleted or disabled meanwhile, or changed the password the grant
 * checked (src/store/token-statements.ts insertTokens). With `proofSpend`, the request's DPoP
 * proof is spent in the same statement, and nothing is written if it was spent before
 * (DpopProofError, RFC 9449 §11.1).
 */
export async function write(tokens: TokenWriter, minted: MintedTokens, proofSpend?: AssertionSpend): Promise<MintedTokens> {
  if (proofSpend) {
    const outcome = await tokens.insertAllSpending(minted.rows, minted.event, proofSpend);
    if (outcome === 'replayed') throw new DpopProofError('invalid_dpop_proof', PROOF_REPLAYED);
    if (outcome === 'refused') throw new OAuthError('invalid_grant', PERSON_GONE);
  } else if (!(await tokens.insertAll(minted.rows, minted.event))) {
    throw new OAuthError('invalid_grant', PERSON_GONE);
  }
  return minted;
}

/** Writes what the issuer minted (spending `proofSpend` with it), and answers with the tokens. */
export async function issue(tokens: TokenWriter, minted: MintedTokens, proofSpend?: AssertionSpend): Promise<TokenResponse> {
  return (await write(tokens, minted, proofSpend)).complete();
}
