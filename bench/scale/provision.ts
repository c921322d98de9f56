import { type HttpRequest, formPost, send } from './http.js';
import type { ScaleServer } from './server.js';
import type { ClientCredentials } from './token-rows.js';

/**
 * Every client of the bench sends far more than a real client would: the per-client rate
 * limit is set beyond reach, so that its check still runs but never refuses.
 */
export const UNLIMITED = { rate_limit_token: 1_000_000 } as const;

/**
 * Through the admin API: a realm (with its own new signing keys), its scope `api`, and
 * `clients` confidential clients of the client credentials grant.
 */
export async function provisionRealm(
  server: ScaleServer,
  realm: string,
  settings: Record<string, unknown>,
  clients: number,
): Promise<ClientCredentials[]> {
  await server.admin('POST', '/realms', { name: realm, settings: { ...UNLIMITED, ...settings } });
  await server.admin('PUT', `/realms/${realm}/scopes/api`, { description: 'API' });
  const created: ClientCredentials[] = [];
  for (let i = 0; i < clients; i++) {
    const client = (await server.admin('POST', `/realms/${realm}/clients`, { grant_types: ['client_credentials'], scope: 'api' })) as {
      client_id: string;
      client_secret: string;
    };
    created.push({ realm, clientId: client.client_id, clientSecret: client.client_secret });
  }
  return created;
}

export const tokenRequest = (baseUrl: string, client: ClientCredentials): HttpRequest =>
  formPost(`${baseUrl}/oauth2/${client.realm}/access_token`, client, { grant_type: 'client_credentials', scope: 'api' });

/** The introspection of `token` by `client` (its owner: a client sees its own tokens). */
export const introspectRequest = (baseUrl: string, client: ClientCredentials, token: string): HttpRequest =>
  formPost(`${baseUrl}/oauth2/${client.realm}/introspect`, client, { token });

/** What an introspection answers for an active token. */
export const isActive = (body: string): boolean => body.startsWith('{"active":true');

/** Sends one token request; returns its access token. */
export async function obtainAccessToken(request: HttpRequest): Promise<string> {
  const body = await send(request);
  if (typeof body.access_token !== 'string') throw new Error(`${request.url} answered no access_token: ${JSON.stringify(body)}`);
  return body.access_token;
}

/** Sends one introspection request; fails unless the token is active. */
export async function checkActive(request: HttpRequest): Promise<void> {
  const body = await send(request);
  if (body.active !== true) throw new Error(`${request.url} reports a token inactive: ${JSON.stringify(body)}`);
}
