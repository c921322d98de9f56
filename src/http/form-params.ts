import { OAuthError } from '../errors.js';

/**
 * Input limits of form bodies and queries (docs/configuration.md "Input limits"), beside the body limit of
 * src/endpoints/index.ts. No real request comes near them; they keep what is stored, indexed,
 * hashed or echoed small whatever a client sends.
 */
export const FORM_LIMITS = {
  /** Distinct parameter names in one form or query. */
  parameters: 1_000,
  /** Bytes (UTF-8) of one value; the parameters below have their own. */
  valueBytes: 4_096,
  /** Values of one parameter that may repeat (`audience`, `resource`). */
  repeatedValues: 100,
} as const;

/**
 * Parameters whose own limit differs: a username names a realm user (at most 255 characters);
 * JWTs, SAML assertions and WebAuthn responses are bounded by the body limit alone.
 */
const VALUE_BYTES: Readonly<Record<string, number>> = {
  username: 1_024,
  ...Object.fromEntries(
    ['assertion', 'subject_token', 'actor_token', 'request', 'client_assertion', 'id_token_hint', 'login_hint_token', 'token', 'access_token', 'credential'].map(
      (name) => [name, Number.POSITIVE_INFINITY],
    ),
  ),
};

function checkedForm(body: unknown): body is Record<string, unknown> {
  if (typeof body !== 'object' || body === null) return false;
  if (Object.keys(body).length > FORM_LIMITS.parameters) throw new OAuthError('invalid_request', 'the request has too many parameters');
  return true;
}

function checkLength(name: string, value: string): void {
  const limit = VALUE_BYTES[name] ?? FORM_LIMITS.valueBytes;
  // Characters first: a value that short cannot be over the limit in bytes either.
  if (value.length * 3 > limit && Buffer.byteLength(value, 'utf8') > limit) {
    throw new OAuthError('invalid_request', `the ${name} parameter is too long`);
  }
}

/**
 * The named parameters of a form body. Others are ignored; a repeated one is
 * `invalid_request` (RFC 6749 §3.1, §3.2); an empty one counts as absent (RFC 6749 §3.1).
 */
export function formParams<Name extends string>(body: unknown, names: readonly Name[]): Partial<Record<Name, string>> {
  const params: Partial<Record<Name, string>> = {};
  if (!checkedForm(body)) return params;
  for (const name of names) {
    if (!Object.hasOwn(body, name)) continue;
    const value = body[name];
    if (Array.isArray(value)) throw new OAuthError('invalid_request', `the ${name} parameter is repeated`);
    if (typeof value === 'string' && value !== '') {
      checkLength(name, value);
      params[name] = value;
    }
  }
  return params;
}

/**
 * The named parameters that may repeat (RFC 8693 §2.1 `audience` and `resource`): every
 * non-empty value of each, in order.
 */
export function formParamLists<Name extends string>(body: unknown, names: readonly Name[]): Partial<Record<Name, string[]>> {
  const lists: Partial<Record<Name, string[]>> = {};
  if (!checkedForm(body)) return lists;
  for (const name of names) {
    if (!Object.hasOwn(body, name)) continue;
    const value = body[name];
    const values = (Array.isArray(value) ? value : [value]).filter((item): item is string => typeof item === 'string' && item !== '');
    if (values.length > FORM_LIMITS.repeatedValues) throw new OAuthError('invalid_request', `the ${name} parameter is repeated too often`);
    for (const item of values) checkLength(name, item);
    if (values.length > 0) lists[name] = values;
  }
  return lists;
}
