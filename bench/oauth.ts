/** A client's credentials, sent with HTTP Basic authentication to every server. */
export interface Credentials {
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
export function basicAuth({ clientId, clientSecret }: Credentials): string {
  const encode = (value: string): string => new URLSearchParams({ v: value }).toString().slice(2);
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`).toString('base64')}`;
}

export function formPost(url: string, client: Credentials, params: Record<string, string>): HttpRequest {
  return {
    url,
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth(client) },
    body: new URLSearchParams(params).toString(),
  };
}

/** Sends one request; anything but a 200 with a JSON object is an error. */
export async function send(request: HttpRequest): Promise<Record<string, unknown>> {
  const { url, ...init } = request;
  const response = await fetch(url, init);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

export function stringField(body: Record<string, unknown>, name: string, where: string): string {
  const value = body[name];
  if (typeof value !== 'string' || value === '') throw new Error(`${where} answered no ${name}: ${JSON.stringify(body).slice(0, 300)}`);
  return value;
}

/** Sends one introspection request and checks the token is reported active. */
export async function checkActive(introspectionUrl: string, client: Credentials, token: string): Promise<void> {
  const body = await send(formPost(introspectionUrl, client, { token }));
  if (body.active !== true) throw new Error(`${introspectionUrl} reports a token inactive: ${JSON.stringify(body)}`);
}

/**
 * A string field of a JSON answer, read without parsing it: the load generator shares the
 * CPU with the server under test, and every server's answers are read the same way.
 */
export function jsonStringField(body: string, name: string): string | undefined {
  const marker = `"${name}":"`;
  const start = body.indexOf(marker);
  if (start < 0) return undefined;
  const end = body.indexOf('"', start + marker.length);
  return end < 0 ? undefined : body.slice(start + marker.length, end);
}
