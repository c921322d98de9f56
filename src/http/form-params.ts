import { OAuthError } from '../errors.js';

/**
 * The named parameters of a form body. Others are ignored; a repeated one is
 * `invalid_request` (RFC 6749 §3.1, §3.2); an empty one counts as absent (RFC 6749 §3.1).
 */
export function formParams<Name extends string>(body: unknown, names: readonly Name[]): Partial<Record<Name, string>> {
  const params: Partial<Record<Name, string>> = {};
  if (typeof body !== 'object' || body === null) return params;
  for (const name of names) {
    if (!Object.hasOwn(body, name)) continue;
    const value = (body as Record<string, unknown>)[name];
    if (Array.isArray(value)) throw new OAuthError('invalid_request', `the ${name} parameter is repeated`);
    if (typeof value === 'string' && value !== '') params[name] = value;
  }
  return params;
}
