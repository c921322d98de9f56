/**
 * The requests of the scale bench, built once and sent many times by autocannon. Its own
 * (small) helpers rather than bench/oauth.ts: the scenarios here send realm paths of many
 * realms and clients.
 */
export interface HttpRequest {
  readonly url: string;
  readonly method: 'POST';
  readonly headers: Record<string, string>;
  readonly body: string;
  /** Whether a 200 answer's body is what the scenario expects (e.g. an active token); else it counts as an error. */
  readonly check?: (body: string) => boolean;
}

/** RFC 6749 §2.3.1: id and secret are form-urlencoded before being joined and base64-encoded. */
function basicAuth(clientId: string, clientSecret: string): string {
  const encode = (value: string): string => new URLSearchParams({ v: value }).toString().slice(2);
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`).toString('base64')}`;
}

export function formPost(url: string, credentials: { clientId: string; clientSecret: string }, params: Record<string, string>): HttpRequest {
  return {
    url,
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth(credentials.clientId, credentials.clientSecret) },
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

/** The admin API of a running realmgate: JSON in and out, any non-2xx answer is an error. */
export function adminClient(baseUrl: string, adminToken: string) {
  return async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const response = await fetch(`${baseUrl}/admin${path}`, {
      method,
      headers: { authorization: `Bearer ${adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!response.ok) throw new Error(`admin API: ${method} ${path} answered ${response.status}: ${await response.text()}`);
    return response.status === 204 ? undefined : response.json();
  };
}
