import { createHash, timingSafeEqual } from 'node:crypto';
import { sha256 } from '../crypto/hash.js';
import { OAuthError } from '../errors.js';
import { scopeNames } from '../oauth/scope.js';
import type { AuthorizationCode, AuthorizationCodeStore } from '../store/authorization-codes.js';
import type { TokenStore } from '../store/tokens.js';
import type { UserStore } from '../store/users.js';
import { type TokenIssuer, type WrittenTokens, issuesRefreshTokens } from '../tokens/issuer.js';
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
    async handle({ realm, client, params, audience, certificateThumbprint, address, audit }) {
      if (!params.code) throw new OAuthError('invalid_request', 'code is required');

      // The code is used up and its tokens written in one transaction. A check that fails
      // still spends the code: the transaction then commits with no tokens, and the refusal
      // is thrown after it.
      const codeHash = sha256(params.code);
      const outcome = await deps.issuer.atomically(async (tx): Promise<{ written: WrittenTokens } | { refusal: OAuthError; revokeGrant?: string }> => {
        // A code of another client or realm is unknown here, and stays usable by its own client.
        const redemption = await deps.codes.redeem(codeHash, realm.name, client.client_id, tx);
        if (!redemption) return { refusal: new OAuthError('invalid_grant', 'the code is invalid or expired') };
        if ('replayedGrantId' in redemption) {
          // RFC 6749 §4.1.2: a second use revokes what the first one obtained. A first use still
          // writing its tokens holds the code's row until it commits, so they are revoked too.
          return { refusal: new OAuthError('invalid_grant', 'the code was already used; its tokens are revoked'), revokeGrant: redemption.replayedGrantId };
        }
        const { code } = redemption;
        const refusal = redirectUriRefusal(code, params.redirect_uri) ?? codeVerifierRefusal(code, params.code_verifier);
        if (refusal) return { refusal };

        const user = await deps.users.getById(realm.name, code.userId, tx);
        if (!user) return { refusal: new OAuthError('invalid_grant', 'the person who signed in no longer exists') };

        const scope = scopeNames(code.scope);
        const written = await deps.issuer.writeUserTokens(
          {
            realm,
            client,
            grantType: 'authorization_code',
            user,
            scope,
            grantId: code.grantId,
            signIn: { authTime: code.authTime, amr: code.amr, acr: code.acr, sid: code.sid },
            refreshScope: issuesRefreshTokens(realm, client) ? scope : undefined,
            nonce: code.nonce,
            audience,
            certificateThumbprint,
            address,
          },
          tx,
        );
        return { written };
      });
      if ('written' in outcome) return outcome.written.complete();
      if (outcome.revokeGrant) {
        await deps.tokens.revokeGrant(outcome.revokeGrant, realm.name);
        audit.record({ realm: realm.name, type: 'token.revoked', clientId: client.client_id, address, details: { grant_id: outcome.revokeGrant, reason: 'code_reused' } });
      }
      throw outcome.refusal;
    },
  };
}

/**
 * RFC 6749 §4.1.3: the redirect URI must be repeated, identically, when the authorization
 * request named it. When it did not, one that is sent must still be the code's.
 */
function redirectUriRefusal(code: AuthorizationCode, presented: string | undefined): OAuthError | undefined {
  if ((code.redirectUriGiven || presented !== undefined) && presented !== code.redirectUri) {
    return new OAuthError('invalid_grant', 'redirect_uri does not match the authorization request');
  }
  return undefined;
}

/**
 * RFC 7636 §4.6: the verifier must hash (S256, the only method served) to the challenge of
 * the authorization request. A verifier for a code issued without a challenge is refused
 * too, as a sign of a PKCE downgrade (RFC 9700 §2.1.1).
 */
function codeVerifierRefusal(code: AuthorizationCode, verifier: string | undefined): OAuthError | undefined {
  if (code.codeChallenge === undefined) {
    return verifier === undefined ? undefined : new OAuthError('invalid_grant', 'code_verifier was sent for a code issued without code_challenge');
  }
  if (verifier === undefined) return new OAuthError('invalid_grant', 'code_verifier is required');
  if (!CODE_VERIFIER.test(verifier)) return new OAuthError('invalid_grant', 'code_verifier is malformed');
  const computed = Buffer.from(createHash('sha256').update(verifier, 'ascii').digest('base64url'));
  const expected = Buffer.from(code.codeChallenge);
  if (computed.length !== expected.length || !timingSafeEqual(computed, expected)) {
    return new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge');
  }
  return undefined;
}
