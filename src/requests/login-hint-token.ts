import { userBySubject } from '../authn/user-by-subject.js';
import type { ClientJwks } from '../client-auth/client-jwks.js';
import { refusalReason, verifySignedJwt } from '../assertions/signed-jwt.js';
import { OAuthError } from '../errors.js';
import type { RequestRealm } from '../records/realm.js';
import type { Client } from '../store/clients.js';
import type { User, UserStore } from '../store/users.js';

export interface LoginHintTokenDeps {
  clientJwks: ClientJwks;
  users: Pick<UserStore, 'getById' | 'getByEmail'>;
  now?: () => number;
}

/** The subject of an RFC 9493 identifier this server resolves; undefined for other formats. */
type Subject = { format: 'opaque'; id: string } | { format: 'email'; email: string };

function subjectOf(subId: unknown): Subject | undefined {
  if (typeof subId !== 'object' || subId === null) return undefined;
  const { format, id, email } = subId as Record<string, unknown>;
  if (format === 'opaque' && typeof id === 'string') return { format, id };
  if (format === 'email' && typeof email === 'string') return { format, email };
  return undefined;
}

/**
 * The person a `login_hint_token` names. CIBA Core §7.1 leaves its format to the deployment;
 * here it is a JWT the client signs as it signs request objects (an asymmetric algorithm, one
 * of its keys, `iss` its client_id, `aud` the issuer or the endpoint), with a required `exp`,
 * whose `sub_id` claim is an RFC 9493 subject identifier: format `opaque` with `id` the user's
 * `sub`, or format `email` matched against the `email` claim of exactly one user.
 *
 * An expired token is `expired_login_hint_token` (CIBA Core §13); one that does not verify is
 * `invalid_request`; one naming nobody is `unknown_user_id`.
 */
export async function loginHintTokenUser(
  deps: LoginHintTokenDeps,
  realm: RequestRealm,
  client: Client,
  endpointUrl: string,
  jwt: string,
): Promise<User> {
  const verified = await verifySignedJwt(deps.clientJwks, client, jwt, {
    issuer: client.client_id,
    audience: [...new Set([realm.issuer, endpointUrl])],
    requiredClaims: ['exp'],
    at: (deps.now ?? Date.now)(),
  });
  if (!verified.valid) {
    if (verified.problem === 'expired') throw new OAuthError('expired_login_hint_token', 'the login_hint_token has expired');
    throw new OAuthError('invalid_request', `the login_hint_token is not accepted: ${refusalReason(verified)}`);
  }
  const subject = subjectOf(verified.claims.sub_id);
  if (!subject) {
    throw new OAuthError('invalid_request', 'the login_hint_token needs a sub_id claim: an RFC 9493 subject identifier of format opaque or email');
  }
  const user =
    subject.format === 'opaque'
      ? await userBySubject(deps.users, realm.name, subject.id)
      : await deps.users.getByEmail(realm.name, subject.email);
  if (!user) throw new OAuthError('unknown_user_id', 'the login_hint_token does not name a user of this realm');
  return user;
}
