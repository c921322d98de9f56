import { OAuthError } from '../errors.js';
import type { TokenStore } from '../store/tokens.js';
import type { MintedTokens, TokenResponse } from '../tokens/issuer.js';

/** Where a grant's minted tokens are written: their rows and event in one statement (src/store/tokens.ts insertAll). */
export type TokenWriter = Pick<TokenStore, 'insertAll'>;

/**
 * Writes what the issuer minted: batched with other grants' and committed when this resolves,
 * or in the transaction whose token store is given (`Store.transaction`). Refused when the
 * person behind the tokens was deleted or disabled meanwhile, or changed the password the grant
 * checked (src/store/token-statements.ts insertTokens).
 */
export async function write(tokens: TokenWriter, minted: MintedTokens): Promise<MintedTokens> {
  if (!(await tokens.insertAll(minted.rows, minted.event))) {
    throw new OAuthError('invalid_grant', 'the person behind the grant no longer exists, was disabled, or changed their password meanwhile');
  }
  return minted;
}

/** Writes what the issuer minted, and answers with the tokens. */
export async function issue(tokens: TokenWriter, minted: MintedTokens): Promise<TokenResponse> {
  return (await write(tokens, minted)).complete();
}
