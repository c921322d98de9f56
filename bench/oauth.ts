/** The two requests under test, identical in shape for every server. */
export interface Endpoint {
  readonly url: string;
  readonly clientId: string;
  readonly clientSecret: string;
}

export interface HttpRequest {
  readonly url: string;
  readonly method: 'POST';
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** RFC 6749 §2.3.1: id and secret are form-urlencoded before being joined and base64-encoded. */
function basicAuth(clientId: string, clientSecret: string): string {
  const encode = (value: string): string => new URLSearchParams({ v: value }).toString().slice(2);
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`).toString('base64')}`;
}

function formPost(endpoint: Endpoint, params: Record<string, string>): HttpRequest {
  return {
    url: endpoint.url,
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(endpoint.clientId, endpoint.clientSecret),
    },
    body: new URLSearchParams(params).toString(),
  };
}

export const clientCredentialsRequest = (token: Endpoint): HttpRequest =>
  formPost(token, { grant_type: 'client_credentials', scope: 'api' });

export const introspectionRequest = (introspection: Endpoint, accessToken: string): HttpRequest =>
  formPost(introspection, { token: accessToken });

async function send(request: HttpRequest): Promise<Record<string, unknown>> {
  const { url, ...init } = request;
  const response = await fetch(url, init);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** Sends one client credentials request, checks it succeeds, and returns its access token. */
export async function obtainAccessToken(request: HttpRequest): Promise<string> {
  const body = await send(request);
  if (typeof body.access_token !== 'string') throw new Error(`${request.url} answered no access_token: ${JSON.stringify(body)}`);
  return body.access_token;
}

/** Sends one introspection request and checks the token is reported active. */
export async function checkActive(request: HttpRequest): Promise<void> {
  const body = await send(request);
  if (body.active !== true) throw new Error(`${request.url} reports the token inactive: ${JSON.stringify(body)}`);
}
