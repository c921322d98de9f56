import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { type JWTPayload, type JWTVerifyResult, createLocalJWKSet, jwtVerify } from 'jose';
import type { AdminClient } from './app.js';
import { type ServiceClient, basic, postForm, realmPath } from './oauth.js';

export interface TestUser {
  username: string;
  password: string;
  /** The user's `sub`. */
  sub: string;
}

/** Creates a person through the admin API. */
export async function createUser(
  admin: AdminClient,
  realm: string,
  username: string,
  options: { password?: string; claims?: Record<string, unknown> } = {},
): Promise<TestUser> {
  const password = options.password ?? `pw-${username}-0123456789`;
  const response = await admin.request('POST', `/realms/${realm}/users`, {
    username,
    password,
    ...(options.claims ? { claims: options.claims } : {}),
  });
  if (response.statusCode !== 201) throw new Error(`create user: ${response.statusCode} ${response.body}`);
  return { username, password, sub: (response.json() as { sub: string }).sub };
}

/** A confidential client's request to the token endpoint, authenticated with Basic. */
export function tokenRequest(
  app: FastifyInstance,
  realm: string,
  client: ServiceClient,
  form: Record<string, string | string[]>,
): Promise<LightMyRequestResponse> {
  return postForm(app, `${realmPath(realm)}/access_token`, form, { authorization: basic(client.clientId, client.secret) });
}

/** The password grant (RFC 6749 §4.3) for a user. */
export function passwordGrant(
  app: FastifyInstance,
  realm: string,
  client: ServiceClient,
  user: Pick<TestUser, 'username' | 'password'>,
  form: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return tokenRequest(app, realm, client, { grant_type: 'password', username: user.username, password: user.password, ...form });
}

export interface TokenBody {
  access_token: string;
  token_type: string;
  expires_in: number;
  scope: string;
  refresh_token?: string;
  id_token?: string;
}

/** The tokens of a successful password grant. */
export async function passwordTokens(
  app: FastifyInstance,
  realm: string,
  client: ServiceClient,
  user: TestUser,
  scope?: string,
): Promise<TokenBody> {
  const response = await passwordGrant(app, realm, client, user, scope === undefined ? {} : { scope });
  if (response.statusCode !== 200) throw new Error(`password grant: ${response.statusCode} ${response.body}`);
  return response.json() as TokenBody;
}

/** The refresh token grant (RFC 6749 §6). */
export function refreshGrant(
  app: FastifyInstance,
  realm: string,
  client: ServiceClient,
  refreshToken: string,
  form: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return tokenRequest(app, realm, client, { grant_type: 'refresh_token', refresh_token: refreshToken, ...form });
}

/** Verifies an ID token against the realm's published key set, fetched as a client would. */
export async function verifyIdToken(
  app: FastifyInstance,
  realm: string,
  idToken: string,
  expected: { issuer: string; audience: string },
): Promise<JWTVerifyResult<JWTPayload>> {
  const jwks = await app.inject({ method: 'GET', url: `${realmPath(realm)}/connect/jwk_uri` });
  if (jwks.statusCode !== 200) throw new Error(`jwks: ${jwks.statusCode}`);
  return jwtVerify(idToken, createLocalJWKSet(jwks.json()), { ...expected, algorithms: ['RS256', 'ES256'] });
}
