import { createHash, timingSafeEqual } from 'node:crypto';
import { sha256 } from '../crypto/hash.js';
import { OAuthError } from '../errors.js';
import { scopeNames } from '../oauth/scope.js';
import type { AuthorizationCode, AuthorizationCodeStore } from '../store/authorization-codes.js';
import type { TokenStore } from '../store/tokens.js';
import type { UserStore } from '../store/users.js';
import { type TokenIssuer, issuesRefreshTokens } from '../tokens/issuer.js';
import type { GrantHandler } from './grant-handler.js';

/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
const CODE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/**
 * RFC 6749 §4.1.3: the client exchanges a code for the tokens of the person who signed in.
 * The code is used up by the first attempt (the database decides between concurrent ones),
 * so a check that fails below also spends it.
 */
export function authorizationCodeGrant(deps: {
  codes: AuthorizationCodeStore;
  tokens: TokenStore;
  users: UserStore;
  issuer: TokenIssuer;
}): GrantHandler<'code' | 'redirect_uri' | 'code_verifier'> {
  return {
    type: 'authorization_code',
    parameters: ['code', 'redirect_uri', 'code_verifier'],
    async handle({ realm, client, params, certificateThumbprint }) {
      if (!params.code) throw new OAuthError('invalid_request', 'code is required');

      // A code of another client or realm is unknown here, and stays usable by its own client.
      const codeHash = sha256(params.code);
      const redemption = await deps.codes.redeem(codeHash, realm.name, client.client_id);
      if (!redemption) throw new OAuthError('invalid_grant', 'the code is invalid or expired');
      if ('replayedGrantId' in redemption) {
        // RFC 6749 §4.1.2: a second use revokes what the first one obtained.
        await deps.tokens.revokeGrant(redemption.replayedGrantId, realm.name);
        throw new OAuthError('invalid_grant', 'the code was already used; its tokens are revoked');
      }
      const { code } = redemption;
      checkRedirectUri(code, params.redirect_uri);
      checkCodeVerifier(code, params.code_verifier);

      const user = await deps.users.getById(realm.name, code.userId);
      if (!user) throw new OAuthError('invalid_grant', 'the person who signed in no longer exists');

      const scope = scopeNames(code.scope);
      const response = await deps.issuer.issueUserTokens({
        realm,
        client,
        grantType: 'authorization_code',
        user,
        scope,
        grantId: code.grantId,
        signIn: { authTime: code.authTime, amr: code.amr, sid: code.sid },
        refreshScope: issuesRefreshTokens(realm, client) ? scope : undefined,
        nonce: code.nonce,
        certificateThumbprint,
      });
      // A second use that ran while these tokens were written revoked the grant without them.
      // This use won the code, so it answers; its tokens die with the grant (CONTRACT.md §6).
      if (await deps.codes.wasReplayed(codeHash)) await deps.tokens.revokeGrant(code.grantId, realm.name);
      return response;
    },
  };
}

/**
 * RFC 6749 §4.1.3: the redirect URI must be repeated, identically, when the authorization
 * request named it. When it did not, one that is sent must still be the code's.
 */
function checkRedirectUri(code: AuthorizationCode, presented: string | undefined): void {
  if ((code.redirectUriGiven || presented !== undefined) && presented !== code.redirectUri) {
    throw new OAuthError('invalid_grant', 'redirect_uri does not match the authorization request');
  }
}

/**
 * RFC 7636 §4.6: the verifier must hash (S256, the only method served) to the challenge of
 * the authorization request. A verifier for a code issued without a challenge is refused
 * too, as a sign of a PKCE downgrade (RFC 9700 §2.1.1).
 */
function checkCodeVerifier(code: AuthorizationCode, verifier: string | undefined): void {
  if (code.codeChallenge === undefined) {
    if (verifier !== undefined) throw new OAuthError('invalid_grant', 'code_verifier was sent for a code issued without code_challenge');
    return;
  }
  if (verifier === undefined) throw new OAuthError('invalid_grant', 'code_verifier is required');
  if (!CODE_VERIFIER.test(verifier)) throw new OAuthError('invalid_grant', 'code_verifier is malformed');
  const computed = Buffer.from(createHash('sha256').update(verifier, 'ascii').digest('base64url'));
  const expected = Buffer.from(code.codeChallenge);
  if (computed.length !== expected.length || !timingSafeEqual(computed, expected)) {
    throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge');
  }
}
