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

/**
 * The named parameters that may repeat (RFC 8693 §2.1 `audience` and `resource`): every
 * non-empty value of each, in order.
 */
export function formParamLists<Name extends string>(body: unknown, names: readonly Name[]): Partial<Record<Name, string[]>> {
  const lists: Partial<Record<Name, string[]>> = {};
  if (typeof body !== 'object' || body === null) return lists;
  for (const name of names) {
    if (!Object.hasOwn(body, name)) continue;
    const value = (body as Record<string, unknown>)[name];
    const values = (Array.isArray(value) ? value : [value]).filter((item): item is string => typeof item === 'string' && item !== '');
    if (values.length > 0) lists[name] = values;
  }
  return lists;
}
