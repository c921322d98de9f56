import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

export const basic = (clientId: string, secret: string): string =>
  `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`;

/** Where a realm's endpoints live below BASE_URL. */
export const realmPath = (realm: string): string => (realm === 'root' ? '/oauth2' : `/oauth2/${realm}`);

/** POSTs a form, as an OAuth client does. A value that is an array repeats the parameter. */
export function postForm(
  app: FastifyInstance,
  url: string,
  form: Record<string, string | string[]>,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(form)) {
    for (const item of Array.isArray(value) ? value : [value]) body.append(name, item);
  }
  return app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: body.toString(),
  });
}

export interface ServiceClient {
  clientId: string;
  secret: string;
}

export function clientCredentials(app: FastifyInstance, realm: string, client: ServiceClient, form: Record<string, string | string[]> = {}) {
  return postForm(app, `${realmPath(realm)}/access_token`, { grant_type: 'client_credentials', ...form }, {
    authorization: basic(client.clientId, client.secret),
  });
}

export async function accessToken(app: FastifyInstance, realm: string, client: ServiceClient, scope?: string): Promise<string> {
  const response = await clientCredentials(app, realm, client, scope ? { scope } : {});
  if (response.statusCode !== 200) throw new Error(`token: ${response.statusCode} ${response.body}`);
  return (response.json() as { access_token: string }).access_token;
}

export function introspect(app: FastifyInstance, realm: string, client: ServiceClient, token: string) {
  return postForm(app, `${realmPath(realm)}/introspect`, { token }, { authorization: basic(client.clientId, client.secret) });
}

export function revoke(app: FastifyInstance, realm: string, client: ServiceClient, token: string) {
  return postForm(app, `${realmPath(realm)}/token/revoke`, { token }, { authorization: basic(client.clientId, client.secret) });
}
