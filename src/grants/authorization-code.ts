import { createHash } from 'node:crypto';
import { requestedAuthorizationDetails } from '../authorization-details/requested.js';
import { OAuthError } from '../errors.js';
import type { AuthorizationCode } from '../store/authorization-codes.js';
import type { TokenStore } from '../store/tokens.js';
import type { TokenIssuer } from '../tokens/issuer.js';
import { sha256 } from '../secrets.js';
import type { GrantHandler } from './grant-handler.js';

/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
const CODE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/**
 * RFC 6749 §4.1.3: the client exchanges a code for the tokens of the person who signed in.
 * The code is used up by the first attempt (the database decides between concurrent ones),
 * and its tokens written in the same statement when the redirect URI, the verifier, the
 * key of the DPoP proof (for a code of `dpop_jkt`) and the resources asked (RFC 8707 §2.2: within
 * those the authorization request named) match it (src/store/code-exchange.ts), so a check that
 * fails also spends it. RFC 9396 §6.1: `authorization_details` asked here narrow the access
 * token's to entries the code holds.
 */
export function authorizationCodeGrant(deps: {
  tokens: Pick<TokenStore, 'exchangeCode' | 'revokeGrant'>;
  issuer: Pick<TokenIssuer, 'codeTokens'>;
}): GrantHandler<'code' | 'redirect_uri' | 'code_verifier' | 'authorization_details'> {
  return {
    type: 'authorization_code',
    parameters: ['code', 'redirect_uri', 'code_verifier', 'authorization_details'],
    async handle({ realm, client, params, audience, audienceScopes, certificateThumbprint, keyThumbprint, address, audit }) {
      if (!params.code) throw new OAuthError('invalid_request', 'code is required');
      // A code of another client or realm is unknown here, and stays usable by its own client.
      const presented = {
        hash: sha256(params.code),
        realm: realm.name,
        clientId: client.client_id,
        redirectUri: params.redirect_uri,
        challenge: challengeOf(params.code_verifier),
        keyThumbprint,
      };
      // Malformed details are refused before the code is spent; whether the code holds them, by its statement.
      const authorizationDetails = requestedAuthorizationDetails(params.authorization_details, realm.settings, client);
      const minted = deps.issuer.codeTokens({ realm, client, audience, audienceScopes, certificateThumbprint, keyThumbprint, address, authorizationDetails });
      const outcome = await deps.tokens.exchangeCode(presented, minted.tokens);
      if (!outcome) throw new OAuthError('invalid_grant', 'the code is invalid or expired');
      if ('issued' in outcome) return minted.complete(outcome);
      if ('replayedGrantId' in outcome) {
        // RFC 6749 §4.1.2: a second use revokes what the first one obtained, which its statement
        // committed before this one could find the code used.
        await deps.tokens.revokeGrant(outcome.replayedGrantId, realm.name);
        audit.record({ realm: realm.name, type: 'token.revoked', clientId: client.client_id, address, details: { grant_id: outcome.replayedGrantId, reason: 'code_reused' } });
        throw new OAuthError('invalid_grant', 'the code was already used; its tokens are revoked');
      }
      if (!outcome.redirectUriMatches) throw new OAuthError('invalid_grant', 'redirect_uri does not match the authorization request');
      if (!outcome.verifierMatches) throw verifierRefusal(outcome.refused, params.code_verifier);
      // RFC 9449 §10: the code of a request with dpop_jkt needs a proof of that key.
      if (!outcome.keyMatches) {
        throw new OAuthError('invalid_grant', keyThumbprint === undefined ? 'the code is bound to a DPoP key (dpop_jkt): a DPoP proof is required' : 'the DPoP proof is of another key than the code is bound to (dpop_jkt)');
      }
      if (!outcome.targetMatches) {
        throw new OAuthError(
          'invalid_target',
          outcome.refused.resources === undefined
            ? 'the authorization request named no resource: the exchange may ask only for the client\'s allowed_audiences'
            : 'the exchange may ask only for resources the authorization request named',
        );
      }
      if (!outcome.detailsMatch) throw new OAuthError('invalid_authorization_details', 'the exchange may ask only for authorization details the person granted');
      throw new OAuthError('invalid_grant', 'the person who signed in no longer exists');
    },
  };
}

/**
 * RFC 7636 §4.6: what the verifier must equal, the code's challenge (S256, the only method
 * served): none without a verifier; a malformed one matches no challenge ('').
 */
function challengeOf(verifier: string | undefined): string | undefined {
  if (verifier === undefined) return undefined;
  return CODE_VERIFIER.test(verifier) ? createHash('sha256').update(verifier, 'ascii').digest('base64url') : '';
}

/**
 * Why the verifier did not match the code's challenge. A verifier for a code issued without a
 * challenge is refused too, as a sign of a PKCE downgrade (RFC 9700 §2.1.1).
 */
function verifierRefusal(code: AuthorizationCode, verifier: string | undefined): OAuthError {
  if (code.codeChallenge === undefined) return new OAuthError('invalid_grant', 'code_verifier was sent for a code issued without code_challenge');
  if (verifier === undefined) return new OAuthError('invalid_grant', 'code_verifier is required');
  if (!CODE_VERIFIER.test(verifier)) return new OAuthError('invalid_grant', 'code_verifier is malformed');
  return new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge');
}
