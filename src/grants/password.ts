import { randomUUID } from 'node:crypto';
import { PASSWORD_AMR, passwordAloneSignsIn, verifyPassword } from '../authn/password.js';
import { OAuthError } from '../errors.js';
import { requestedScope } from '../oauth/scope.js';
import type { UserStore } from '../store/users.js';
import { type TokenIssuer, issuesRefreshTokens } from '../tokens/issuer.js';
import type { GrantHandler } from './grant-handler.js';

/**
 * RFC 6749 §4.3: the client sends the person's username and password. Served only where a
 * password alone signs a person in: a realm that asks for a one-time code or a passkey
 * cannot ask for them here.
 */
export function passwordGrant(deps: { users: UserStore; issuer: TokenIssuer }): GrantHandler<'username' | 'password' | 'scope'> {
  return {
    type: 'password',
    parameters: ['username', 'password', 'scope'],
    async handle({ realm, client, params, certificateThumbprint }) {
      if (!passwordAloneSignsIn(realm.settings)) {
        throw new OAuthError('invalid_grant', 'this realm requires more than a password to sign in');
      }
      const { username, password } = params;
      if (username === undefined || password === undefined) throw new OAuthError('invalid_request', 'username and password are required');

      // The scope is checked first, so that a refused request says nothing about the password.
      const scope = requestedScope(params.scope, client.scope);

      // One answer for an unknown username and a wrong password (RFC 6749 §5.2: invalid_grant).
      const user = await verifyPassword(deps.users, realm.name, username, password);
      if (!user) throw new OAuthError('invalid_grant', 'the username or password is incorrect');

      return deps.issuer.issueUserTokens({
        realm,
        client,
        grantType: 'password',
        user,
        scope,
        signIn: { authTime: new Date(), amr: PASSWORD_AMR, sid: randomUUID() },
        refreshScope: issuesRefreshTokens(realm, client) ? scope : undefined,
        certificateThumbprint,
      });
    },
  };
}
