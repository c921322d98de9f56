import { type HttpRequest as FormRequest, formPost, send } from '../oauth.js';

/** The requests of the scale bench, built once and sent many times by autocannon. */
export interface HttpRequest extends FormRequest {
  /** Whether a 200 answer's body is what the scenario expects (e.g. an active token); else it counts as an error. */
  readonly check?: (body: string) => boolean;
}

export { formPost, send };

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
